package io.lbk8s.bgp.session;

import io.lbk8s.net.link.TcpSocket;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link Connection} over a {@link TcpSocket}. The socket's read blocks in native code, which would hold a virtual
 * thread's carrier (two carriers on a two-core node), so a platform thread of its own reads and hands the bytes over
 * through a queue, on which any thread may wait. Writes go straight to the socket: they block only while the kernel's
 * send buffer is full.
 */
final class SocketConnection implements Connection {

    private sealed interface Chunk {}

    private record Bytes(byte[] bytes) implements Chunk {}

    private record End() implements Chunk {}

    private record Failed(IOException cause) implements Chunk {}

    private static final int READ_SIZE = 65_536;
    /** Bounds what is read ahead of the session: 64 reads. */
    private static final int QUEUE_CHUNKS = 64;

    private final TcpSocket socket;
    private final BlockingQueue<Chunk> chunks = new ArrayBlockingQueue<>(QUEUE_CHUNKS);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread reader;
    private final InputStream input = new ChunkInput();
    private final OutputStream output = new SocketOutput();

    private SocketConnection(TcpSocket socket) {
        this.socket = socket;
        this.reader = Thread.ofPlatform()
                .daemon()
                .name("tcp-read-" + socket.remote().getAddress().getHostAddress())
                .unstarted(this::readLoop);
    }

    static SocketConnection start(TcpSocket socket) {
        SocketConnection connection = new SocketConnection(socket);
        connection.reader.start();
        return connection;
    }

    private void readLoop() {
        byte[] buffer = new byte[READ_SIZE];
        Chunk last;
        try {
            for (int n; (n = socket.read(buffer, 0, buffer.length)) >= 0; ) {
                if (!hand(new Bytes(Arrays.copyOf(buffer, n)))) {
                    return;
                }
            }
            last = new End();
        } catch (IOException e) {
            last = closed.get() ? new End() : new Failed(e);
        }
        hand(last);
    }

    /** Queues a chunk, waiting while the session is behind; false once the connection is closed. */
    private boolean hand(Chunk chunk) {
        try {
            while (!closed.get()) {
                if (chunks.offer(chunk, 100, TimeUnit.MILLISECONDS)) {
                    return true;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    @Override
    public InputStream input() {
        return input;
    }

    @Override
    public OutputStream output() {
        return output;
    }

    @Override
    public InetSocketAddress local() {
        return socket.local();
    }

    @Override
    public InetSocketAddress remote() {
        return socket.remote();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        socket.shutdown(); // wakes the reader out of read(), so that the descriptor is closed after it is done
        try {
            reader.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        chunks.offer(new End()); // a session waiting in read() sees the end
        socket.close();
    }

    private final class ChunkInput extends InputStream {
        private byte[] current = new byte[0];
        private int position;
        private Chunk ending;

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] target, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            while (position == current.length) {
                if (ending != null || !next()) {
                    return end();
                }
            }
            int n = Math.min(length, current.length - position);
            System.arraycopy(current, position, target, offset, n);
            position += n;
            return n;
        }

        /** Takes the next chunk; false at the end of the stream. */
        private boolean next() throws IOException {
            Chunk chunk;
            try {
                chunk = chunks.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while reading from " + remote());
            }
            switch (chunk) {
                case Bytes(byte[] bytes) -> {
                    current = bytes;
                    position = 0;
                    return true;
                }
                case End end -> ending = end;
                case Failed failed -> ending = failed;
            }
            return false;
        }

        private int end() throws IOException {
            if (ending instanceof Failed(IOException cause)) {
                throw new IOException(cause.getMessage(), cause);
            }
            return -1;
        }

        @Override
        public int available() {
            return current.length - position;
        }
    }

    private final class SocketOutput extends OutputStream {
        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            if (closed.get()) {
                throw new IOException("the connection to " + remote() + " is closed");
            }
            socket.write(bytes, offset, length);
        }
    }
}
