package io.lbk8s.net.link;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Map;

/**
 * The few libc calls lbk8s's networking needs (this package's sockets and interfaces, the TCP and UDP sockets of
 * BGP and BFD, and bpf(2) for the XDP responder and the fence in io.lbk8s.net), bound once. Every call that can fail captures errno, because the JVM may
 * overwrite the thread's errno before Java code could read it. Each wrapper returns the raw result; the caller
 * reads {@link #errno()} right after a negative one, on the same thread.
 */
public final class Native {

    static final int AF_INET = 2;
    static final int AF_PACKET = 17;
    static final int SOCK_DGRAM = 2;
    static final int SOCK_RAW = 3;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int SOL_SOCKET = 1;
    static final int SOL_PACKET = 263;
    static final int SO_RCVBUF = 8;
    static final int SO_RCVTIMEO = 20;
    static final int SO_ATTACH_FILTER = 26;
    static final int SO_RCVBUFFORCE = 33;
    static final int PACKET_STATISTICS = 6;
    static final int PACKET_IGNORE_OUTGOING = 23;
    static final long SIOCGIFHWADDR = 0x8927;
    static final long SIOCGIFFLAGS = 0x8913;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int AF_INET6 = 10;
    static final int SOCK_STREAM = 1;
    static final int SOCK_NONBLOCK = 0x800;
    static final int SO_REUSEADDR = 2;
    static final int SO_ERROR = 4;
    static final int IPPROTO_IP = 0;
    static final int IPPROTO_TCP = 6;
    static final int IPPROTO_IPV6 = 41;
    static final int IP_TTL = 2;
    static final int IP_RECVTTL = 12;
    static final int IPV6_UNICAST_HOPS = 16;
    static final int IPV6_V6ONLY = 26;
    static final int IPV6_RECVHOPLIMIT = 51;
    static final int IPV6_HOPLIMIT = 52;
    static final int TCP_MD5SIG = 14;
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;
    static final int O_NONBLOCK = 0x800;
    static final int SHUT_RDWR = 2;
    static final int EINPROGRESS = 115;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    private static final MethodHandle SOCKET =
            bind("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle BIND = bind("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle SETSOCKOPT =
            bind("setsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle GETSOCKOPT =
            bind("getsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle RECV =
            bind("recv", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle SEND =
            bind("send", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle CLOSE = bind("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle RECVMMSG =
            bind("recvmmsg", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle SENDMMSG =
            bind("sendmmsg", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    /** recvmmsg: block for the first message only, then take what is already queued. */
    static final int MSG_WAITFORONE = 0x10000;
    /** recv: return at once (EAGAIN) when nothing is queued. */
    static final int MSG_DONTWAIT = 0x40;

    private static final MethodHandle CONNECT =
            bind("connect", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle LISTEN = bind("listen", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle ACCEPT4 =
            bind("accept4", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle GETSOCKNAME =
            bind("getsockname", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle GETPEERNAME =
            bind("getpeername", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle READ =
            bind("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle WRITE =
            bind("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle SENDTO =
            bind("sendto", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle RECVMSG =
            bind("recvmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle SHUTDOWN = bind("shutdown", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    // fcntl(int, int, ...) is variadic: its third argument must be passed as a variadic one
    private static final MethodHandle FCNTL = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("fcntl"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
            CAPTURE_ERRNO,
            Linker.Option.firstVariadicArg(2));

    static final short POLLIN = 0x1;
    static final short POLLOUT = 0x4;
    private static final MethodHandle POLL =
            bind("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    // ioctl(int, unsigned long, ...) is variadic: the third argument must be passed as a variadic one.
    private static final MethodHandle IOCTL = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("ioctl"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS),
            CAPTURE_ERRNO,
            Linker.Option.firstVariadicArg(2));
    private static final MethodHandle IF_NAMEINDEX = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("if_nameindex"), FunctionDescriptor.of(ADDRESS), CAPTURE_ERRNO);
    private static final MethodHandle IF_FREENAMEINDEX = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("if_freenameindex"), FunctionDescriptor.ofVoid(ADDRESS));
    // syscall(long number, ...) is variadic too; bpf(2) has no libc wrapper
    private static final MethodHandle SYSCALL = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("syscall"),
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT),
            CAPTURE_ERRNO,
            Linker.Option.firstVariadicArg(1));
    /** bpf(2)'s system call number on this architecture, or -1 where lbk8s does not know it. */
    static final long SYS_BPF = switch (System.getProperty("os.arch")) {
        case "amd64", "x86_64" -> 321;
        case "aarch64", "riscv64" -> 280;
        default -> -1;
    };

    private static final MethodHandle STRERROR = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("strerror"), FunctionDescriptor.of(ADDRESS, JAVA_INT));

    /** One errno slot per thread, reused for every call, so that the receive loop allocates nothing. */
    private static final ThreadLocal<MemorySegment> STATE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CALL_STATE));

    private static final Map<Integer, String> ERRNO_NAMES = Map.ofEntries(
            Map.entry(1, "EPERM"),
            Map.entry(2, "ENOENT"),
            Map.entry(4, "EINTR"),
            Map.entry(6, "ENXIO"),
            Map.entry(7, "E2BIG"),
            Map.entry(9, "EBADF"),
            Map.entry(11, "EAGAIN"),
            Map.entry(12, "ENOMEM"),
            Map.entry(13, "EACCES"),
            Map.entry(14, "EFAULT"),
            Map.entry(16, "EBUSY"),
            Map.entry(17, "EEXIST"),
            Map.entry(19, "ENODEV"),
            Map.entry(22, "EINVAL"),
            Map.entry(23, "ENFILE"),
            Map.entry(24, "EMFILE"),
            Map.entry(90, "EMSGSIZE"),
            Map.entry(92, "ENOPROTOOPT"),
            Map.entry(93, "EPROTONOSUPPORT"),
            Map.entry(95, "EOPNOTSUPP"),
            Map.entry(97, "EAFNOSUPPORT"),
            Map.entry(99, "EADDRNOTAVAIL"),
            Map.entry(100, "ENETDOWN"),
            Map.entry(101, "ENETUNREACH"),
            Map.entry(104, "ECONNRESET"),
            Map.entry(105, "ENOBUFS"),
            Map.entry(110, "ETIMEDOUT"),
            Map.entry(111, "ECONNREFUSED"),
            Map.entry(113, "EHOSTUNREACH"),
            Map.entry(115, "EINPROGRESS"),
            Map.entry(32, "EPIPE"),
            Map.entry(98, "EADDRINUSE"));

    private Native() {}

    private static MethodHandle bind(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow(name), descriptor, CAPTURE_ERRNO);
    }

    /** errno of this thread's last call through this class. */
    public static int errno() {
        return (int) ERRNO.get(STATE.get(), 0L);
    }

    static String errnoName(int errno) {
        return ERRNO_NAMES.getOrDefault(errno, "errno " + errno);
    }

    /** "Operation not permitted (EPERM)". */
    public static String describe(int errno) {
        String text;
        try {
            text = ((MemorySegment) STRERROR.invokeExact(errno))
                    .reinterpret(256)
                    .getString(0);
        } catch (Throwable t) {
            text = "error";
        }
        return text + " (" + errnoName(errno) + ")";
    }

    static int socket(int domain, int type, int protocol) {
        try {
            return (int) SOCKET.invokeExact(STATE.get(), domain, type, protocol);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static int bind(int fd, MemorySegment address, int length) {
        try {
            return (int) BIND.invokeExact(STATE.get(), fd, address, length);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static int setsockopt(int fd, int level, int option, MemorySegment value, int length) {
        try {
            return (int) SETSOCKOPT.invokeExact(STATE.get(), fd, level, option, value, length);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static int getsockopt(int fd, int level, int option, MemorySegment value, MemorySegment length) {
        try {
            return (int) GETSOCKOPT.invokeExact(STATE.get(), fd, level, option, value, length);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static long recv(int fd, MemorySegment buffer, long length, int flags) {
        try {
            return (long) RECV.invokeExact(STATE.get(), fd, buffer, length, flags);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static long send(int fd, MemorySegment buffer, long length, int flags) {
        try {
            return (long) SEND.invokeExact(STATE.get(), fd, buffer, length, flags);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static int recvmmsg(int fd, MemorySegment messages, int count, int flags) {
        try {
            return (int) RECVMMSG.invokeExact(STATE.get(), fd, messages, count, flags, MemorySegment.NULL);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static int sendmmsg(int fd, MemorySegment messages, int count, int flags) {
        try {
            return (int) SENDMMSG.invokeExact(STATE.get(), fd, messages, count, flags);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    /** poll(2) on {@code count} {@code struct pollfd} (int fd, short events, short revents): how many are ready. */
    static int poll(MemorySegment fds, int count, int timeoutMillis) {
        try {
            return (int) POLL.invokeExact(STATE.get(), fds, (long) count, timeoutMillis);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static int connect(int fd, MemorySegment address, int length) {
        try {
            return (int) CONNECT.invokeExact(STATE.get(), fd, address, length);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static int listen(int fd, int backlog) {
        try {
            return (int) LISTEN.invokeExact(STATE.get(), fd, backlog);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static int accept(int fd, MemorySegment address, MemorySegment length, int flags) {
        try {
            return (int) ACCEPT4.invokeExact(STATE.get(), fd, address, length, flags);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static int getsockname(int fd, MemorySegment address, MemorySegment length) {
        try {
            return (int) GETSOCKNAME.invokeExact(STATE.get(), fd, address, length);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static int getpeername(int fd, MemorySegment address, MemorySegment length) {
        try {
            return (int) GETPEERNAME.invokeExact(STATE.get(), fd, address, length);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static long read(int fd, MemorySegment buffer, long length) {
        try {
            return (long) READ.invokeExact(STATE.get(), fd, buffer, length);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static long write(int fd, MemorySegment buffer, long length) {
        try {
            return (long) WRITE.invokeExact(STATE.get(), fd, buffer, length);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static long sendto(int fd, MemorySegment buffer, long length, int flags, MemorySegment to, int toLength) {
        try {
            return (long) SENDTO.invokeExact(STATE.get(), fd, buffer, length, flags, to, toLength);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static long recvmsg(int fd, MemorySegment message, int flags) {
        try {
            return (long) RECVMSG.invokeExact(STATE.get(), fd, message, flags);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static int shutdown(int fd, int how) {
        try {
            return (int) SHUTDOWN.invokeExact(STATE.get(), fd, how);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static int fcntl(int fd, int command, int argument) {
        try {
            return (int) FCNTL.invokeExact(STATE.get(), fd, command, argument);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    public static int close(int fd) {
        try {
            return (int) CLOSE.invokeExact(STATE.get(), fd);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static int ioctl(int fd, long request, MemorySegment argument) {
        try {
            return (int) IOCTL.invokeExact(STATE.get(), fd, request, argument);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    /** bpf(2): the command's result (often a new descriptor), or -1 with errno. */
    public static int bpf(int command, MemorySegment attributes) {
        if (SYS_BPF < 0) {
            throw new UnsupportedOperationException("bpf(2) is not known on " + System.getProperty("os.arch"));
        }
        try {
            return (int)
                    (long) SYSCALL.invokeExact(STATE.get(), SYS_BPF, command, attributes, (int) attributes.byteSize());
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    /** The {@code struct if_nameindex} array (netlink-based, so right in any namespace), or NULL with errno. */
    static MemorySegment ifNameIndex() {
        try {
            return (MemorySegment) IF_NAMEINDEX.invokeExact(STATE.get());
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    static void ifFreeNameIndex(MemorySegment array) {
        try {
            IF_FREENAMEINDEX.invokeExact(array);
        } catch (Throwable t) {
            throw linkageFailure(t);
        }
    }

    private static RuntimeException linkageFailure(Throwable t) {
        if (t instanceof Error e) {
            throw e;
        }
        return t instanceof RuntimeException r ? r : new IllegalStateException(t);
    }
}
