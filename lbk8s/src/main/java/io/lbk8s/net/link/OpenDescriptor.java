package io.lbk8s.net.link;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A socket's file descriptor, closed at most once: the kernel may give a closed descriptor's number to the next open,
 * and a second close would close that.
 */
abstract sealed class OpenDescriptor implements AutoCloseable permits PacketSocket, TcpSocket, UdpSocket {
    final int fd;
    private final AtomicBoolean closed = new AtomicBoolean();

    OpenDescriptor(int fd) {
        this.fd = fd;
    }

    final boolean isClosed() {
        return closed.get();
    }

    @Override
    public final void close() {
        if (closed.compareAndSet(false, true)) {
            Native.close(fd);
        }
    }
}
