package io.lbk8s.net.link;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A TCP socket made through java.lang.foreign, because the JDK's sockets cannot sign segments with a TCP MD5 key
 * (RFC 2385, {@code TCP_MD5SIG}), which BGP peers ask for. Reads and writes block the calling thread in native
 * code: a virtual thread calling them keeps its carrier thread, so read on a platform thread.
 *
 * <p>Close only after the threads that read and write have stopped ({@link #shutdown} wakes them): a closed
 * descriptor number can be reused by another open.
 */
public final class TcpSocket extends OpenDescriptor {

    /** Linux's TCP_MD5SIG_MAXKEYLEN. */
    public static final int MAX_KEY_BYTES = 80;

    // struct tcp_md5sig { sockaddr_storage tcpm_addr; u8 flags; u8 prefixlen; u16 keylen; int ifindex; u8 key[80]; }
    private static final int MD5SIG_SIZE = SocketAddresses.STORAGE + 8 + MAX_KEY_BYTES;
    private static final int MD5SIG_KEYLEN = SocketAddresses.STORAGE + 2;
    private static final int MD5SIG_KEY = SocketAddresses.STORAGE + 8;
    private static final int ECONNREFUSED = 111;
    private static final int ETIMEDOUT = 110;
    private static final int EHOSTUNREACH = 113;
    private static final int ENETUNREACH = 101;
    private static final int EADDRNOTAVAIL = 99;
    private static final int EADDRINUSE = 98;
    private static final int ENOENT = 2;
    private static final int EACCES = 13;

    private final InetSocketAddress local;
    private final InetSocketAddress remote;

    private TcpSocket(int fd, InetSocketAddress local, InetSocketAddress remote) {
        super(fd);
        this.local = local;
        this.remote = remote;
    }

    /**
     * Connects to {@code remote}, from {@code source} when given, signing every segment with {@code md5Key} when
     * given. A peer that expects another key (or none) drops our segments silently, so that ends as a time-out.
     *
     * @throws IOException with one sentence: refused, timed out, no route, a key too long, a source not ours
     */
    public static TcpSocket connect(
            InetSocketAddress remote, Optional<InetAddress> source, Optional<String> md5Key, Duration timeout)
            throws IOException {
        return connect(remote, source, md5Key, OptionalInt.empty(), timeout);
    }

    /**
     * Likewise, every segment leaving with {@code ttl} (IPv6: hop limit), 1-255, when given; else the system's
     * default.
     */
    public static TcpSocket connect(
            InetSocketAddress remote,
            Optional<InetAddress> source,
            Optional<String> md5Key,
            OptionalInt ttl,
            Duration timeout)
            throws IOException {
        byte[] key = md5Key.isPresent() ? keyBytes(md5Key.get()) : null;
        InetAddress peer = remote.getAddress();
        int fd = open(peer, Native.SOCK_NONBLOCK);
        try (Arena arena = Arena.ofConfined()) {
            if (key != null) {
                setMd5Key(fd, peer, key, arena);
            }
            if (ttl.isPresent()) {
                setTtl(fd, peer, ttl.getAsInt(), arena);
            }
            if (source.isPresent()) {
                bind(fd, new InetSocketAddress(source.get(), 0), arena);
            }
            MemorySegment address = SocketAddresses.allocate(arena, remote);
            if (Native.connect(fd, address, SocketAddresses.size(peer)) < 0) {
                int errno = Native.errno();
                if (errno != Native.EINPROGRESS) {
                    throw connectFailure(remote, errno);
                }
                awaitConnected(fd, remote, timeout, arena);
            }
            // blocking from now on: the reader waits in read() for the peer's next message
            if (Native.fcntl(fd, Native.F_SETFL, Native.fcntl(fd, Native.F_GETFL, 0) & ~Native.O_NONBLOCK) < 0) {
                throw NativeIOException.of(
                        "cannot make the connection to " + text(remote) + " blocking", Native.errno());
            }
            return new TcpSocket(fd, localAddress(fd, arena), remote);
        } catch (IOException | RuntimeException e) {
            Native.close(fd);
            throw e;
        }
    }

    /**
     * A listening socket on {@code local} that accepts only connections signed with the key given for the client's
     * address (and unsigned ones from clients without a key). For tests and for peers that connect to us.
     */
    public static TcpSocket listen(InetSocketAddress local, Map<InetAddress, String> md5Keys) throws IOException {
        int fd = open(local.getAddress(), 0);
        try (Arena arena = Arena.ofConfined()) {
            Native.setsockopt(fd, Native.SOL_SOCKET, Native.SO_REUSEADDR, arena.allocateFrom(JAVA_INT, 1), 4);
            for (var entry : md5Keys.entrySet()) {
                setMd5Key(fd, entry.getKey(), keyBytes(entry.getValue()), arena);
            }
            bind(fd, local, arena);
            if (Native.listen(fd, 16) < 0) {
                throw NativeIOException.of("cannot listen on " + text(local), Native.errno());
            }
            return new TcpSocket(fd, localAddress(fd, arena), null);
        } catch (IOException | RuntimeException e) {
            Native.close(fd);
            throw e;
        }
    }

    /**
     * On a listening socket: accept connections from {@code peer} only when signed with {@code key}, or unsigned ones
     * again when empty. The kernel checks the SYN, so set it before the peer connects. On an IPv6 socket that also takes
     * IPv4, an IPv4 peer's key goes in as its IPv4-mapped address, the form the kernel takes there.
     */
    public void acceptSignedBy(InetAddress peer, Optional<String> key) throws IOException {
        byte[] bytes = key.isPresent() ? keyBytes(key.get()) : new byte[0];
        InetAddress as = peer;
        if (local.getAddress() instanceof Inet6Address && !(peer instanceof Inet6Address)) {
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xff;
            mapped[11] = (byte) 0xff;
            System.arraycopy(peer.getAddress(), 0, mapped, 12, 4);
            as = Inet6Address.getByAddress(null, mapped, -1);
        }
        try (Arena arena = Arena.ofConfined()) {
            try {
                setMd5Key(fd, as, bytes, arena);
            } catch (NativeIOException e) {
                if (key.isPresent() || e.errno() != ENOENT) { // removing a key that was never set: nothing to do
                    throw e;
                }
            }
        }
    }

    /** The next connection, or empty when none came within {@code timeout}. */
    public Optional<TcpSocket> accept(Duration timeout) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            if (!poll(fd, Native.POLLIN, timeout, arena)) {
                return Optional.empty();
            }
            MemorySegment address = arena.allocate(SocketAddresses.STORAGE, 8);
            MemorySegment length = arena.allocateFrom(JAVA_INT, SocketAddresses.STORAGE);
            int client = Native.accept(fd, address, length, Native.SOCK_CLOEXEC);
            if (client < 0) {
                throw NativeIOException.of("cannot accept a connection on " + text(local), Native.errno());
            }
            return Optional.of(new TcpSocket(client, localAddress(client, arena), SocketAddresses.read(address)));
        }
    }

    /** Like InputStream.read: at least one byte, blocking until one arrives, or -1 at the end of the stream. */
    public int read(byte[] buffer, int offset, int length) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment native_ = arena.allocate(Math.max(1, length));
            while (true) {
                long n = Native.read(fd, native_, length);
                if (n >= 0) {
                    MemorySegment.copy(native_, JAVA_BYTE, 0, buffer, offset, (int) n);
                    return n == 0 && length > 0 ? -1 : (int) n;
                }
                int errno = Native.errno();
                if (errno != Native.EINTR) {
                    throw NativeIOException.of("cannot read from " + text(remote), errno);
                }
            }
        }
    }

    /** Writes all of it, blocking while the kernel's send buffer is full. */
    public void write(byte[] buffer, int offset, int length) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment native_ = arena.allocate(Math.max(1, length));
            MemorySegment.copy(buffer, offset, native_, JAVA_BYTE, 0, length);
            long written = 0;
            while (written < length) {
                long n = Native.write(fd, native_.asSlice(written), length - written);
                if (n < 0) {
                    int errno = Native.errno();
                    if (errno == Native.EINTR) {
                        continue;
                    }
                    throw NativeIOException.of("cannot write to " + text(remote), errno);
                }
                written += n;
            }
        }
    }

    public InetSocketAddress local() {
        return local;
    }

    /** The peer; null for a listening socket. */
    public InetSocketAddress remote() {
        return remote;
    }

    /** Ends both directions: a thread blocked in {@link #read} returns -1, one in {@link #write} fails. */
    public void shutdown() {
        if (!isClosed()) {
            Native.shutdown(fd, Native.SHUT_RDWR);
        }
    }

    private static byte[] keyBytes(String key) throws IOException {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_KEY_BYTES) {
            throw new IOException(
                    "the TCP MD5 password is " + bytes.length + " bytes long; Linux takes at most " + MAX_KEY_BYTES);
        }
        return bytes;
    }

    private static int open(InetAddress address, int flags) throws IOException {
        int fd = Native.socket(SocketAddresses.family(address), Native.SOCK_STREAM | Native.SOCK_CLOEXEC | flags, 0);
        if (fd < 0) {
            throw NativeIOException.of("cannot open a TCP socket", Native.errno());
        }
        return fd;
    }

    /** Signs (and demands signatures on) every segment to and from {@code peer} with {@code key}. */
    private static void setMd5Key(int fd, InetAddress peer, byte[] key, Arena arena) throws IOException {
        MemorySegment md5sig = arena.allocate(MD5SIG_SIZE, 8);
        SocketAddresses.write(md5sig, new InetSocketAddress(peer, 0));
        md5sig.set(JAVA_SHORT, MD5SIG_KEYLEN, (short) key.length);
        MemorySegment.copy(key, 0, md5sig, JAVA_BYTE, MD5SIG_KEY, key.length);
        if (Native.setsockopt(fd, Native.IPPROTO_TCP, Native.TCP_MD5SIG, md5sig, MD5SIG_SIZE) < 0) {
            throw NativeIOException.of(
                    "cannot set the TCP MD5 password for " + peer.getHostAddress()
                            + " (the kernel needs CONFIG_TCP_MD5SIG)",
                    Native.errno());
        }
    }

    /** The TTL of what this socket sends (IPv6: the unicast hop limit), as the kernel holds it. */
    public int ttl() throws IOException {
        boolean v6 = local.getAddress() instanceof Inet6Address;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(JAVA_INT);
            MemorySegment length = arena.allocateFrom(JAVA_INT, 4);
            if (Native.getsockopt(
                            fd,
                            v6 ? Native.IPPROTO_IPV6 : Native.IPPROTO_IP,
                            v6 ? Native.IPV6_UNICAST_HOPS : Native.IP_TTL,
                            value,
                            length)
                    < 0) {
                throw NativeIOException.of("cannot read the TTL of " + this, Native.errno());
            }
            return value.get(JAVA_INT, 0);
        }
    }

    /** Every segment from now on leaves with {@code ttl} (IPv6: hop limit): for an accepted connection. */
    public void ttl(int ttl) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            setTtl(fd, local.getAddress(), ttl, arena);
        }
    }

    private static void setTtl(int fd, InetAddress peer, int ttl, Arena arena) throws IOException {
        boolean v6 = peer instanceof Inet6Address;
        if (Native.setsockopt(
                        fd,
                        v6 ? Native.IPPROTO_IPV6 : Native.IPPROTO_IP,
                        v6 ? Native.IPV6_UNICAST_HOPS : Native.IP_TTL,
                        arena.allocateFrom(JAVA_INT, ttl),
                        4)
                < 0) {
            throw NativeIOException.of(
                    "cannot set TTL " + ttl + " on the connection to " + peer.getHostAddress(), Native.errno());
        }
    }

    private static void bind(int fd, InetSocketAddress local, Arena arena) throws IOException {
        MemorySegment address = SocketAddresses.allocate(arena, local);
        if (Native.bind(fd, address, SocketAddresses.size(local.getAddress())) < 0) {
            int errno = Native.errno();
            throw switch (errno) {
                case EADDRNOTAVAIL ->
                    new NativeIOException(
                            "cannot use source address " + local.getAddress().getHostAddress()
                                    + ": it is not an address of this node",
                            errno);
                case EADDRINUSE -> new NativeIOException(text(local) + " is in use by another socket", errno);
                case EACCES ->
                    new NativeIOException(
                            "cannot bind to " + text(local) + ": a port below 1024 needs CAP_NET_BIND_SERVICE", errno);
                default -> NativeIOException.of("cannot bind to " + text(local), errno);
            };
        }
    }

    private static void awaitConnected(int fd, InetSocketAddress remote, Duration timeout, Arena arena)
            throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean ready = false;
        for (long left = timeout.toNanos(); !ready && left > 0; left = deadline - System.nanoTime()) {
            ready = poll(fd, Native.POLLOUT, Duration.ofNanos(left), arena);
        }
        if (!ready) {
            throw new NativeIOException(
                    "no connection to " + text(remote) + " within " + timeout.toMillis()
                            + " ms: the peer does not answer, or expects another TCP MD5 password (or none)",
                    ETIMEDOUT);
        }
        MemorySegment error = arena.allocate(JAVA_INT);
        MemorySegment length = arena.allocateFrom(JAVA_INT, 4);
        if (Native.getsockopt(fd, Native.SOL_SOCKET, Native.SO_ERROR, error, length) < 0) {
            throw NativeIOException.of("cannot read the result of connecting to " + text(remote), Native.errno());
        }
        if (error.get(JAVA_INT, 0) != 0) {
            throw connectFailure(remote, error.get(JAVA_INT, 0));
        }
    }

    /** True when {@code events} came within {@code timeout}; false on time-out or a signal. */
    static boolean poll(int fd, short events, Duration timeout, Arena arena) throws IOException {
        MemorySegment pollfd = arena.allocate(8, 4); // struct pollfd { int fd; short events, revents; }
        pollfd.set(JAVA_INT, 0, fd);
        pollfd.set(JAVA_SHORT, 4, events);
        int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(0, (timeout.toNanos() + 999_999) / 1_000_000));
        int n = Native.poll(pollfd, 1, millis);
        if (n < 0 && Native.errno() != Native.EINTR) {
            throw NativeIOException.of("cannot wait on a socket", Native.errno());
        }
        return n > 0; // POLLERR/POLLHUP count too: SO_ERROR or the next call tells what happened
    }

    private static NativeIOException connectFailure(InetSocketAddress remote, int errno) {
        String sentence = switch (errno) {
            case ECONNREFUSED -> "connection to " + text(remote) + " refused: nothing listens there";
            case ETIMEDOUT -> "no connection to " + text(remote) + ": the peer did not answer";
            case EHOSTUNREACH, ENETUNREACH ->
                "no route to host " + remote.getAddress().getHostAddress();
            default -> "cannot connect to " + text(remote) + ": " + Native.describe(errno);
        };
        return new NativeIOException(sentence, errno);
    }

    private static InetSocketAddress localAddress(int fd, Arena arena) throws IOException {
        MemorySegment address = arena.allocate(SocketAddresses.STORAGE, 8);
        MemorySegment length = arena.allocateFrom(JAVA_INT, SocketAddresses.STORAGE);
        if (Native.getsockname(fd, address, length) < 0) {
            throw NativeIOException.of("cannot read a TCP socket's local address", Native.errno());
        }
        return SocketAddresses.read(address);
    }

    static String text(InetSocketAddress address) {
        if (address == null) {
            return "the listening socket";
        }
        String ip = address.getAddress().getHostAddress();
        return (ip.contains(":") ? "[" + ip + "]" : ip) + ":" + address.getPort();
    }

    @Override
    public String toString() {
        return "TcpSocket[" + text(local) + " -> " + text(remote) + "]";
    }
}
