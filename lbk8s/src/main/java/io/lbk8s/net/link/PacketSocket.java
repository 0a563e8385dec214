package io.lbk8s.net.link;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.lbk8s.net.bpf.BpfProgram;
import io.lbk8s.net.frame.Wire;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * A raw AF_PACKET socket on one interface for one ethertype, with a classic BPF filter, through java.lang.foreign.
 *
 * <p>Opening order matters: the socket is created with protocol 0 so that nothing is queued yet, the filter is
 * attached, and only then bind() names the ethertype and interface; so no unfiltered frame ever sits in the
 * queue. Frames we send ourselves are not looped back to us (PACKET_IGNORE_OUTGOING, Linux 4.20+).
 *
 * <p>{@link #receive} and {@link #send} need native segments (the kernel writes into them while the call runs).
 * Receive and send may be called from different threads; close only after the receiving thread has stopped, as
 * a closed descriptor number can be reused by another open.
 */
public final class PacketSocket extends OpenDescriptor {

    /** PACKET_STATISTICS since the previous call (the kernel resets on read); packets include the dropped ones. */
    public record Stats(long packets, long drops) {}

    private static final int SOCKADDR_LL_SIZE = 20;

    private final int ifindex;
    private final String description;

    private PacketSocket(int fd, int ifindex, String description) {
        super(fd);
        this.ifindex = ifindex;
        this.description = description;
    }

    public static PacketSocket open(LinkInfo link, int etherType, BpfProgram filter, Duration receiveTimeout)
            throws IOException {
        return open(link.index(), link.name(), etherType, filter, receiveTimeout);
    }

    public static PacketSocket open(int ifindex, int etherType, BpfProgram filter, Duration receiveTimeout)
            throws IOException {
        return open(ifindex, "interface #" + ifindex, etherType, filter, receiveTimeout);
    }

    private static PacketSocket open(
            int ifindex, String name, int etherType, BpfProgram filter, Duration receiveTimeout) throws IOException {
        if (ifindex <= 0) {
            throw new IllegalArgumentException("no interface index " + ifindex + " (" + name + ")");
        }
        int fd = Native.socket(Native.AF_PACKET, Native.SOCK_RAW | Native.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw NativeIOException.of("cannot open a raw socket on " + name, Native.errno());
        }
        try (Arena arena = Arena.ofConfined()) {
            attachFilter(fd, name, filter, arena);
            setReceiveTimeout(fd, name, receiveTimeout, arena);
            MemorySegment ignore = arena.allocateFrom(JAVA_INT, 1);
            // best effort: without it our own replies come back, and the responder skips them by sender MAC anyway
            Native.setsockopt(fd, Native.SOL_PACKET, Native.PACKET_IGNORE_OUTGOING, ignore, 4);
            MemorySegment address = arena.allocate(SOCKADDR_LL_SIZE, 4);
            address.set(JAVA_SHORT, 0, (short) Native.AF_PACKET);
            address.set(Wire.U16, 2, (short) etherType); // sll_protocol is in network order
            address.set(JAVA_INT, 4, ifindex);
            if (Native.bind(fd, address, SOCKADDR_LL_SIZE) < 0) {
                throw NativeIOException.of(
                        "cannot bind the raw socket to " + name + " (index " + ifindex + ", ethertype 0x"
                                + Integer.toHexString(etherType) + ")",
                        Native.errno());
            }
        } catch (IOException | RuntimeException e) {
            Native.close(fd);
            throw e;
        }
        return new PacketSocket(fd, ifindex, name);
    }

    /**
     * Replaces the filter of the open socket; the kernel swaps it atomically. Frames the old filter let in may still
     * be queued, so a reader checks what it gets regardless.
     */
    public void replaceFilter(BpfProgram filter) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            attachFilter(fd, description, filter, arena);
        }
    }

    private static void attachFilter(int fd, String name, BpfProgram filter, Arena arena) throws IOException {
        var instructions = filter.instructions();
        MemorySegment code = arena.allocate(8L * instructions.size(), 8);
        for (int i = 0; i < instructions.size(); i++) {
            BpfProgram.Instruction insn = instructions.get(i);
            long at = 8L * i; // struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; } in host order
            code.set(JAVA_SHORT, at, (short) insn.code());
            code.set(JAVA_BYTE, at + 2, (byte) insn.jumpTrue());
            code.set(JAVA_BYTE, at + 3, (byte) insn.jumpFalse());
            code.set(JAVA_INT, at + 4, insn.k());
        }
        MemorySegment program = arena.allocate(16, 8); // struct sock_fprog { u16 len; (6 bytes padding) pointer; }
        program.set(JAVA_SHORT, 0, (short) instructions.size());
        program.set(ADDRESS, 8, code);
        if (Native.setsockopt(fd, Native.SOL_SOCKET, Native.SO_ATTACH_FILTER, program, 16) < 0) {
            throw NativeIOException.of("cannot attach the BPF filter to the raw socket on " + name, Native.errno());
        }
    }

    private static void setReceiveTimeout(int fd, String name, Duration timeout, Arena arena) throws IOException {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("a receive timeout must be positive, so that loops can stop");
        }
        MemorySegment timeval = arena.allocate(16, 8);
        timeval.set(JAVA_LONG, 0, timeout.toSeconds());
        long micros = timeout.toNanosPart() / 1000;
        timeval.set(JAVA_LONG, 8, timeout.toSeconds() == 0 && micros == 0 ? 1 : micros); // 0/0 would mean never
        if (Native.setsockopt(fd, Native.SOL_SOCKET, Native.SO_RCVTIMEO, timeval, 16) < 0) {
            throw NativeIOException.of("cannot set the receive timeout on the raw socket on " + name, Native.errno());
        }
    }

    /** One frame into {@code buffer} (truncated to its size); -1 when the timeout passed or a signal came. */
    public int receive(MemorySegment buffer) throws IOException {
        return receive(buffer, 0);
    }

    /** One frame if one is queued, without waiting; -1 when none is. */
    public int receiveNow(MemorySegment buffer) throws IOException {
        return receive(buffer, Native.MSG_DONTWAIT);
    }

    private int receive(MemorySegment buffer, int flags) throws IOException {
        long n = Native.recv(fd, buffer, buffer.byteSize(), flags);
        if (n >= 0) {
            return (int) n;
        }
        int errno = Native.errno();
        if (errno == Native.EAGAIN || errno == Native.EINTR) {
            return -1;
        }
        throw NativeIOException.of("cannot receive on the raw socket on " + description, errno);
    }

    /** Throws away whatever is queued (frames an earlier filter let in). */
    public void discardQueued() throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(64);
            while (receiveNow(buffer) >= 0) {
                // truncated, and dropped
            }
        }
    }

    /**
     * Waits until one of {@code sockets} has a frame queued, or {@code timeout} passed. Returns a bit set: bit i for
     * {@code sockets[i]} (at most 32), 0 when the time passed or a signal came.
     */
    public static int awaitReadable(PacketSocket[] sockets, Duration timeout) throws IOException {
        if (sockets.length > 32) {
            throw new IllegalArgumentException("at most 32 sockets, not " + sockets.length);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment fds =
                    arena.allocate(8L * sockets.length, 4); // struct pollfd { int fd; short events, revents; }
            for (int i = 0; i < sockets.length; i++) {
                fds.set(JAVA_INT, 8L * i, sockets[i].fd);
                fds.set(JAVA_SHORT, 8L * i + 4, Native.POLLIN);
            }
            int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(0, (timeout.toNanos() + 999_999) / 1_000_000));
            int n = Native.poll(fds, sockets.length, millis);
            if (n < 0) {
                int errno = Native.errno();
                if (errno == Native.EINTR) {
                    return 0;
                }
                throw NativeIOException.of("cannot wait for the raw sockets", errno);
            }
            int ready = 0;
            for (int i = 0; i < sockets.length; i++) {
                if (fds.get(JAVA_SHORT, 8L * i + 6) != 0) {
                    ready |= 1 << i;
                }
            }
            return ready;
        }
    }

    /**
     * Receives into {@code batch}: blocks (up to the receive timeout) for one frame, then takes those already
     * queued. Returns how many arrived (their lengths are in the batch), or 0 on timeout/EINTR/EAGAIN.
     */
    public int receive(FrameBatch batch) throws IOException {
        batch.resetLengths();
        int n = Native.recvmmsg(fd, batch.headers(), batch.capacity(), Native.MSG_WAITFORONE);
        if (n >= 0) {
            return n;
        }
        int errno = Native.errno();
        if (errno == Native.EAGAIN || errno == Native.EINTR) {
            return 0;
        }
        throw NativeIOException.of("cannot receive on the raw socket on " + description, errno);
    }

    /** Sends the first {@code count} frames of {@code batch}, with the lengths set on it, in as few calls as it takes. */
    public void send(FrameBatch batch, int count) throws IOException {
        int sent = 0;
        while (sent < count) {
            int n = Native.sendmmsg(fd, batch.headers().asSlice(64L * sent), count - sent, 0);
            if (n < 0) {
                int errno = Native.errno();
                if (errno == Native.EINTR) {
                    continue;
                }
                throw NativeIOException.of("cannot send on the raw socket on " + description, errno);
            }
            sent += n;
        }
    }

    /** Sends one complete Ethernet frame (header included) out of the bound interface. */
    public void send(MemorySegment frame, int length) throws IOException {
        if (length < 14 || length > frame.byteSize()) {
            throw new IllegalArgumentException("frame length " + length + " outside 14.." + frame.byteSize());
        }
        if (Native.send(fd, frame, length, 0) < 0) {
            throw NativeIOException.of("cannot send on the raw socket on " + description, Native.errno());
        }
    }

    /**
     * Asks for a receive queue of {@code bytes}: SO_RCVBUFFORCE first, which ignores net.core.rmem_max but needs
     * CAP_NET_ADMIN, then plain SO_RCVBUF, which the kernel caps at rmem_max. Returns whether the forced size took.
     */
    public boolean requestReceiveBuffer(int bytes) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocateFrom(JAVA_INT, bytes);
            if (Native.setsockopt(fd, Native.SOL_SOCKET, Native.SO_RCVBUFFORCE, value, 4) == 0) {
                return true;
            }
            if (Native.setsockopt(fd, Native.SOL_SOCKET, Native.SO_RCVBUF, value, 4) < 0) {
                throw NativeIOException.of("cannot set the receive buffer on " + description, Native.errno());
            }
            return false;
        }
    }

    /** The receive buffer as the kernel reports it (twice the requested size, for its bookkeeping). */
    public int receiveBufferBytes() throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(JAVA_INT);
            MemorySegment length = arena.allocateFrom(JAVA_INT, 4);
            if (Native.getsockopt(fd, Native.SOL_SOCKET, Native.SO_RCVBUF, value, length) < 0) {
                throw NativeIOException.of("cannot read the receive buffer size on " + description, Native.errno());
            }
            return value.get(JAVA_INT, 0);
        }
    }

    public Stats statistics() throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment stats = arena.allocate(8, 4); // struct tpacket_stats { unsigned tp_packets, tp_drops; }
            MemorySegment length = arena.allocateFrom(JAVA_INT, 8);
            if (Native.getsockopt(fd, Native.SOL_PACKET, Native.PACKET_STATISTICS, stats, length) < 0) {
                throw NativeIOException.of("cannot read the statistics of " + description, Native.errno());
            }
            return new Stats(
                    Integer.toUnsignedLong(stats.get(JAVA_INT, 0)), Integer.toUnsignedLong(stats.get(JAVA_INT, 4)));
        }
    }

    public int ifindex() {
        return ifindex;
    }

    @Override
    public String toString() {
        return "PacketSocket[" + description + ", fd " + fd + "]";
    }
}
