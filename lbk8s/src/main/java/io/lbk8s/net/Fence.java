package io.lbk8s.net;

import io.lbk8s.net.link.Native;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The time until which this node may answer ARP and NDP. A failure detector renews it while the node is healthy;
 * when it lapses, every answer stops: the XDP program's (in the kernel), the raw sockets', and gratuitous ARP and
 * unsolicited NA. A node whose speaker is frozen (all its processes stopped) therefore falls silent in the kernel
 * once the last deadline passes, and clients stop sending traffic into it.
 *
 * <p>Deadlines are on the {@link System#nanoTime()} clock. HotSpot on Linux reads CLOCK_MONOTONIC for it, the clock
 * of the kernel's bpf_ktime_get_ns, so the XDP programs compare the same numbers ({@code XdpArpProgramTest} checks
 * this on the running kernel).
 *
 * <p>The kernel's copy is one BPF array map (one u64), created when the first XDP program of this fence is loaded
 * and read by all of them. A failed write of it is recorded ({@link #kernelProblem()}) and logged once, never thrown:
 * the kernel then keeps its old deadline, lapses on its own and passes requests to the stack, where the raw sockets
 * answer them as long as this Java side permits. The kernel can only fall silent early, never answer late.
 */
public final class Fence implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Fence.class);
    private static final Fence UNLIMITED = new Fence(false, Long.MAX_VALUE, 0);

    private final boolean renewable;
    private final int mapFlags;
    /** Serialises deadline changes with their writes to the kernel, so the map always ends with the latest one. */
    private final Object renewals = new Object();
    /** Serialises creating the map, loading programs that name its descriptor, and closing it. */
    private final Object kernelUse = new Object();

    private volatile long deadlineNanos;
    private FenceMap map; // guarded by renewals (writes) and kernelUse (creation, close)
    private boolean closed; // guarded by renewals
    private volatile String kernelProblem;

    private Fence(boolean renewable, long deadlineNanos, int mapFlags) {
        this.renewable = renewable;
        this.deadlineNanos = deadlineNanos;
        this.mapFlags = mapFlags;
    }

    /** A fence that never lapses: for speakers without the failure detector, and tests. Renewing it does nothing. */
    public static Fence unlimited() {
        return UNLIMITED;
    }

    /** A fence that permits nothing until it is renewed, and then only until the deadline last given. */
    public static Fence renewable() {
        return new Fence(true, 0, 0);
    }

    /** For tests: a renewable fence whose kernel map takes extra creation flags (to make its writes fail). */
    static Fence renewableWithMapFlags(int mapFlags) {
        return new Fence(true, 0, mapFlags);
    }

    /**
     * Permits answers until {@code deadlineNanos} on the {@link System#nanoTime()} clock; a deadline in the past
     * lapses the fence. Cheap enough to call every few milliseconds: a volatile write, and with XDP programs one
     * bpf(2) call. Never throws. Does nothing on an unlimited or closed fence.
     */
    public void renewUntil(long deadlineNanos) {
        if (!renewable) {
            return;
        }
        synchronized (renewals) {
            if (closed) {
                return;
            }
            this.deadlineNanos = deadlineNanos;
            writeKernelCopy(deadlineNanos);
        }
    }

    /** Stops every answer now, in Java and in the kernel. Does nothing on an unlimited fence. */
    public void lapse() {
        renewUntil(0);
    }

    /** Whether answers are permitted now. */
    public boolean permits() {
        return System.nanoTime() < deadlineNanos;
    }

    /** The first failed write of the kernel's copy of the deadline, if any (the kernel may have lapsed early since). */
    public Optional<String> kernelProblem() {
        return Optional.ofNullable(kernelProblem);
    }

    /** Whether XDP programs must check this fence: an unlimited one needs no check and no map. */
    boolean needsKernelCheck() {
        return renewable;
    }

    /** Something done with the descriptor of the fence's map, loading a program that reads it. */
    @FunctionalInterface
    interface KernelUse<T> {
        T apply(int mapFd) throws IOException;
    }

    /**
     * Runs {@code use} with the descriptor of the kernel's copy of the deadline, creating the map (with the current
     * deadline) at the first call. Close waits for it, so the descriptor stays valid while {@code use} runs.
     *
     * @throws IOException when the fence is closed, or the kernel refuses the map
     * @throws IllegalStateException on an unlimited fence, which has no map (see {@link #needsKernelCheck})
     */
    <T> T withKernelMap(KernelUse<T> use) throws IOException {
        if (!renewable) {
            throw new IllegalStateException("an unlimited fence has no kernel map");
        }
        synchronized (kernelUse) {
            FenceMap current;
            synchronized (renewals) {
                if (closed) {
                    throw new IOException("the answer fence is closed");
                }
                current = map;
            }
            if (current == null) {
                FenceMap created = FenceMap.create(mapFlags);
                synchronized (renewals) {
                    map = created;
                    writeKernelCopy(deadlineNanos);
                }
                current = created;
            }
            return use.apply(current.fd());
        }
    }

    private void writeKernelCopy(long deadline) {
        if (map == null) {
            return;
        }
        int errno;
        try {
            errno = map.write(deadline);
        } catch (RuntimeException e) {
            recordKernelProblem(e.toString());
            return;
        }
        if (errno != 0) {
            recordKernelProblem("cannot write the answer fence's deadline into the kernel: " + Native.describe(errno)
                    + "; answers in the kernel stop when its last deadline passes, the raw sockets answer instead");
        }
    }

    private void recordKernelProblem(String problem) {
        if (kernelProblem == null) {
            kernelProblem = problem;
            log.warn("{}", problem);
        }
    }

    /**
     * Lapses the fence for good and closes its map; programs still loaded keep reading deadline 0 and pass every
     * request on. Does nothing on an unlimited fence.
     */
    @Override
    public void close() {
        if (!renewable) {
            return;
        }
        synchronized (kernelUse) {
            synchronized (renewals) {
                if (closed) {
                    return;
                }
                deadlineNanos = 0;
                writeKernelCopy(0);
                closed = true;
                if (map != null) {
                    map.close();
                }
            }
        }
    }

    @Override
    public String toString() {
        if (!renewable) {
            return "Fence[unlimited]";
        }
        long left = deadlineNanos - System.nanoTime();
        return left > 0 ? "Fence[permits for " + left / 1_000_000 + " ms]" : "Fence[lapsed]";
    }
}
