package io.lbk8s.net.link;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;

/**
 * A UDP socket through java.lang.foreign, for what a DatagramChannel cannot do: send with a chosen unicast TTL (hop
 * limit) and tell the TTL each datagram arrived with, which single-hop BFD relies on (RFC 5881 5: 255 both ways,
 * so that a packet from beyond the link, whose TTL a router lowered, is recognised).
 *
 * <p>{@link #receive} is for one thread at a time (it reuses one buffer); {@link #send} may be called from any.
 * Close after the receiving thread has stopped.
 */
public final class UdpSocket extends OpenDescriptor {

    /**
     * One datagram: its first {@code length} bytes are in the caller's buffer.
     *
     * @param ttl the IPv4 TTL or IPv6 hop limit it arrived with; -1 when the kernel did not say
     */
    public record Datagram(InetSocketAddress source, int ttl, int length) {}

    private static final int MAX_DATAGRAM = 2048;
    // struct msghdr on 64-bit Linux: name, namelen, iov, iovlen, control, controllen, flags
    private static final long MSGHDR_SIZE = 56;
    private static final long CONTROL_SIZE = 64;
    private static final int EADDRINUSE = 98;

    private final InetSocketAddress local;
    private final String description;
    private final MemorySegment receiveArea = Arena.ofAuto().allocate(MAX_DATAGRAM + 512, 16);

    private UdpSocket(int fd, InetSocketAddress local) {
        super(fd);
        this.local = local;
        this.description = "UDP " + TcpSocket.text(local);
    }

    /**
     * Binds to {@code local}; sends with {@code ttl} (1..255); reports received TTLs when {@code reportTtl}. An IPv6
     * socket takes IPv6 only, so that an IPv4 one may share the port.
     */
    public static UdpSocket open(InetSocketAddress local, int ttl, boolean reportTtl) throws IOException {
        boolean v6 = local.getAddress() instanceof Inet6Address;
        int fd = Native.socket(v6 ? Native.AF_INET6 : Native.AF_INET, Native.SOCK_DGRAM | Native.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw NativeIOException.of("cannot open a UDP socket", Native.errno());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment one = arena.allocateFrom(JAVA_INT, 1);
            if (v6) {
                setOption(fd, Native.IPPROTO_IPV6, Native.IPV6_V6ONLY, one, "IPV6_V6ONLY");
                setOption(
                        fd,
                        Native.IPPROTO_IPV6,
                        Native.IPV6_UNICAST_HOPS,
                        arena.allocateFrom(JAVA_INT, ttl),
                        "the hop limit");
                if (reportTtl) {
                    setOption(fd, Native.IPPROTO_IPV6, Native.IPV6_RECVHOPLIMIT, one, "IPV6_RECVHOPLIMIT");
                }
            } else {
                setOption(fd, Native.IPPROTO_IP, Native.IP_TTL, arena.allocateFrom(JAVA_INT, ttl), "the TTL");
                if (reportTtl) {
                    setOption(fd, Native.IPPROTO_IP, Native.IP_RECVTTL, one, "IP_RECVTTL");
                }
            }
            MemorySegment address = SocketAddresses.allocate(arena, local);
            if (Native.bind(fd, address, SocketAddresses.size(local.getAddress())) < 0) {
                int errno = Native.errno();
                throw errno == EADDRINUSE
                        ? new NativeIOException(TcpSocket.text(local) + " (UDP) is in use by another socket", errno)
                        : NativeIOException.of("cannot bind a UDP socket to " + TcpSocket.text(local), errno);
            }
            MemorySegment bound = arena.allocate(SocketAddresses.STORAGE, 8);
            MemorySegment length = arena.allocateFrom(JAVA_INT, SocketAddresses.STORAGE);
            if (Native.getsockname(fd, bound, length) < 0) {
                throw NativeIOException.of("cannot read a UDP socket's address", Native.errno());
            }
            return new UdpSocket(fd, SocketAddresses.read(bound));
        } catch (IOException | RuntimeException e) {
            Native.close(fd);
            throw e;
        }
    }

    private static void setOption(int fd, int level, int option, MemorySegment value, String what) throws IOException {
        if (Native.setsockopt(fd, level, option, value, 4) < 0) {
            throw NativeIOException.of("cannot set " + what + " on a UDP socket", Native.errno());
        }
    }

    /** The next datagram into {@code buffer} (truncated to it), or empty when none came within {@code timeout}. */
    public Optional<Datagram> receive(byte[] buffer, Duration timeout) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            if (!TcpSocket.poll(fd, Native.POLLIN, timeout, arena)) {
                return Optional.empty();
            }
        }
        MemorySegment data = receiveArea.asSlice(0, MAX_DATAGRAM);
        MemorySegment name = receiveArea.asSlice(MAX_DATAGRAM, SocketAddresses.STORAGE);
        MemorySegment control = receiveArea.asSlice(MAX_DATAGRAM + SocketAddresses.STORAGE, CONTROL_SIZE);
        MemorySegment header =
                receiveArea.asSlice(MAX_DATAGRAM + SocketAddresses.STORAGE + CONTROL_SIZE, MSGHDR_SIZE + 8);
        MemorySegment iovec = receiveArea.asSlice(
                MAX_DATAGRAM + SocketAddresses.STORAGE + CONTROL_SIZE + MSGHDR_SIZE + 8, 16); // { base, len }
        iovec.set(ADDRESS, 0, data);
        iovec.set(JAVA_LONG, 8, MAX_DATAGRAM);
        header.fill((byte) 0);
        header.set(ADDRESS, 0, name);
        header.set(JAVA_INT, 8, SocketAddresses.STORAGE);
        header.set(ADDRESS, 16, iovec);
        header.set(JAVA_LONG, 24, 1L);
        header.set(ADDRESS, 32, control);
        header.set(JAVA_LONG, 40, CONTROL_SIZE);
        long n = Native.recvmsg(fd, header, Native.MSG_DONTWAIT);
        if (n < 0) {
            int errno = Native.errno();
            if (errno == Native.EAGAIN || errno == Native.EINTR) {
                return Optional.empty();
            }
            throw NativeIOException.of("cannot receive on " + description, errno);
        }
        int length = (int) Math.min(n, buffer.length);
        MemorySegment.copy(data, JAVA_BYTE, 0, buffer, 0, length);
        // the kernel sets msg_controllen to what it wrote
        return Optional.of(new Datagram(SocketAddresses.read(name), ttl(control, header.get(JAVA_LONG, 40)), length));
    }

    /**
     * The TTL from the control messages: {@code struct cmsghdr { size_t len; int level; int type; }} then the data,
     * each message aligned to 8 bytes.
     */
    private static int ttl(MemorySegment control, long controlLength) {
        long at = 0;
        while (at + 16 <= controlLength) {
            long length = control.get(JAVA_LONG, at);
            int level = control.get(JAVA_INT, at + 8);
            int type = control.get(JAVA_INT, at + 12);
            if (length < 16) {
                break;
            }
            if ((level == Native.IPPROTO_IP && type == Native.IP_TTL)
                    || (level == Native.IPPROTO_IPV6 && type == Native.IPV6_HOPLIMIT)) {
                return control.get(JAVA_INT, at + 16);
            }
            at += (length + 7) & ~7L;
        }
        return -1;
    }

    public void send(InetSocketAddress to, byte[] bytes) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocateFrom(JAVA_BYTE, bytes);
            MemorySegment address = SocketAddresses.allocate(arena, to);
            long n = Native.sendto(fd, data, bytes.length, 0, address, SocketAddresses.size(to.getAddress()));
            if (n < 0) {
                throw NativeIOException.of(
                        "cannot send from " + description + " to " + TcpSocket.text(to), Native.errno());
            }
        }
    }

    public InetSocketAddress local() {
        return local;
    }

    @Override
    public String toString() {
        return "UdpSocket[" + description + "]";
    }
}
