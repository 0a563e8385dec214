package io.lbk8s.net.link;

import java.io.IOException;

/** A failed system call: the sentence says what we tried and what to do; errno is kept for callers that branch. */
public final class NativeIOException extends IOException {

    private final int errno;

    public NativeIOException(String message, int errno) {
        super(message);
        this.errno = errno;
    }

    /** "cannot bind ...: No such device (ENODEV); the interface does not exist (any more)". */
    static NativeIOException of(String whatFailed, int errno) {
        String hint = switch (errno) {
            case 1, 13 -> "; the speaker needs CAP_NET_RAW";
            case 6, 19 -> "; the interface does not exist (any more)";
            case 100 -> "; the interface is down";
            case 105, 12 -> "; the kernel is short of buffers";
            default -> "";
        };
        return new NativeIOException(whatFailed + ": " + Native.describe(errno) + hint, errno);
    }

    public int errno() {
        return errno;
    }

    public String errnoName() {
        return Native.errnoName(errno);
    }
}
