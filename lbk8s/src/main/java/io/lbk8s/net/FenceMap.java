package io.lbk8s.net;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.lbk8s.net.link.Native;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The kernel's copy of a {@link Fence}'s deadline: a BPF array map of one u64 (nanoseconds of CLOCK_MONOTONIC, the
 * clock of bpf_ktime_get_ns), which every XDP program of the fence reads. Programs may only read it
 * (BPF_F_RDONLY_PROG); the speaker writes it with one bpf(2) call per renewal, into memory allocated once.
 *
 * <p>Not thread-safe: the fence serialises writes and close.
 */
final class FenceMap implements AutoCloseable {

    private static final int MAP_CREATE = 0;
    private static final int MAP_UPDATE_ELEM = 2;
    private static final int MAP_TYPE_ARRAY = 2;
    private static final int RDONLY_PROG = 1 << 7;
    /** For tests: the map can then not be written from user space, as if every write failed. */
    static final int RDONLY = 1 << 3;

    private final int fd;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment attributes = arena.allocate(32, 8);
    private final MemorySegment key = arena.allocate(4, 4); // index 0, the only entry
    private final MemorySegment value = arena.allocate(8, 8);
    private boolean closed;

    private FenceMap(int fd) {
        this.fd = fd;
    }

    /** A new map holding deadline 0 (lapsed) until the first {@link #write}; {@code extraFlags} for tests. */
    static FenceMap create(int extraFlags) throws IOException {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(72, 8);
            attr.set(JAVA_INT, 0, MAP_TYPE_ARRAY);
            attr.set(JAVA_INT, 4, 4); // key: the index
            attr.set(JAVA_INT, 8, 8); // value: the deadline
            attr.set(JAVA_INT, 12, 1);
            attr.set(JAVA_INT, 16, RDONLY_PROG | extraFlags);
            XdpArpResponder.putName(attr, 28, "lbk8s_fence");
            int fd = Native.bpf(MAP_CREATE, attr);
            if (fd < 0) {
                throw XdpArpResponder.failure("cannot create the BPF map of the answer fence", Native.errno());
            }
            return new FenceMap(fd);
        }
    }

    int fd() {
        return fd;
    }

    /**
     * Sets the deadline the programs compare with; a negative one is written as 0, because the programs compare
     * unsigned. Returns 0, or the errno of the failed write (the old deadline then stays).
     */
    int write(long deadlineNanos) {
        if (closed) {
            return 9; // EBADF: nothing to write to any more
        }
        value.set(JAVA_LONG, 0, Math.max(0, deadlineNanos));
        attributes.set(JAVA_INT, 0, fd);
        attributes.set(ADDRESS, 8, key);
        attributes.set(ADDRESS, 16, value);
        attributes.set(JAVA_LONG, 24, 0); // BPF_ANY
        return Native.bpf(MAP_UPDATE_ELEM, attributes) < 0 ? Native.errno() : 0;
    }

    /** Closes our descriptor; programs that read the map keep it, with the deadline last written. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            XdpArpResponder.closeQuietly(fd);
            arena.close();
        }
    }
}
