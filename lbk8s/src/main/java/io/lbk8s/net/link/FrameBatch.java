package io.lbk8s.net.link;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A fixed set of frame buffers with the {@code struct mmsghdr} array that recvmmsg(2) and sendmmsg(2) take, so that
 * a busy responder moves many frames per system call; under light load a batch holds one frame. Confined to the
 * thread whose arena allocated it.
 */
public final class FrameBatch {
    // struct mmsghdr { struct msghdr msg_hdr (56 bytes); unsigned int msg_len; } padded to 64, on x86_64
    private static final long MMSGHDR = 64;
    private static final long MSG_IOV = 16;
    private static final long MSG_IOVLEN = 24;
    private static final long MSG_LEN = 56;
    private static final long IOVEC = 16;

    private final int capacity;
    private final int frameBytes;
    private final MemorySegment headers;
    private final MemorySegment iovecs;
    private final MemorySegment[] frames;

    public FrameBatch(Arena arena, int capacity, int frameBytes) {
        this.capacity = capacity;
        this.frameBytes = frameBytes;
        headers = arena.allocate(MMSGHDR * capacity, 16);
        iovecs = arena.allocate(IOVEC * capacity, 16);
        MemorySegment buffers = arena.allocate((long) frameBytes * capacity, 16);
        frames = new MemorySegment[capacity];
        for (int i = 0; i < capacity; i++) {
            frames[i] = buffers.asSlice((long) frameBytes * i, frameBytes);
            iovecs.set(ADDRESS, IOVEC * i, frames[i]);
            headers.set(ADDRESS, MMSGHDR * i + MSG_IOV, iovecs.asSlice(IOVEC * i, IOVEC));
            headers.set(JAVA_LONG, MMSGHDR * i + MSG_IOVLEN, 1L);
            setLength(i, frameBytes);
        }
    }

    public int capacity() {
        return capacity;
    }

    public MemorySegment frame(int i) {
        return frames[i];
    }

    /** The length of frame {@code i} as received. */
    public int receivedLength(int i) {
        return headers.get(JAVA_INT, MMSGHDR * i + MSG_LEN);
    }

    /** The length of frame {@code i} to send (or, before a receive, the room for it). */
    public void setLength(int i, int length) {
        iovecs.set(JAVA_LONG, IOVEC * i + 8, length);
    }

    /** Makes every frame's room whole again before a receive. */
    void resetLengths() {
        for (int i = 0; i < capacity; i++) {
            setLength(i, frameBytes);
        }
    }

    MemorySegment headers() {
        return headers;
    }
}
