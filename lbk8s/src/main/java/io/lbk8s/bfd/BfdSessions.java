package io.lbk8s.bfd;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.link.NativeIOException;
import io.lbk8s.net.link.UdpSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's single-hop BFD (RFC 5881): one receiving socket on UDP 3784 per family (or per listen address), any
 * number of sessions, each sending from a port of its own with TTL 255. Packets are matched to sessions by Your
 * Discriminator, or by the peer's address while the peer does not know ours yet (it sends 0).
 *
 * <p>Threads: one platform thread per receiving socket (the receive blocks in native code), one timer thread for
 * every session's packets and detection times, and one thread that runs the callbacks in order.
 */
public final class BfdSessions implements AutoCloseable {

    public static final int CONTROL_PORT = 3784;
    /** RFC 5881 4: the source port of a session is one of these, the same for all its packets. */
    static final int FIRST_SOURCE_PORT = 49152;

    static final int TTL = 255;
    private static final Duration RECEIVE_WAIT = Duration.ofMillis(200);
    private static final int EADDRINUSE = 98;
    private static final Logger log = LoggerFactory.getLogger(BfdSessions.class);

    private final List<UdpSocket> receivers;
    private final List<Thread> receiveThreads = new ArrayList<>();
    private final ScheduledThreadPoolExecutor timer;
    private final ExecutorService callbacks;
    private final Map<Integer, Watched> byDiscriminator = new ConcurrentHashMap<>();
    private final Map<IpAddress, Watched> byPeer = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private BfdSessions(List<UdpSocket> receivers) {
        this.receivers = receivers;
        this.timer = new ScheduledThreadPoolExecutor(
                1, Thread.ofPlatform().name("bfd-timer").daemon().factory());
        timer.setRemoveOnCancelPolicy(true);
        this.callbacks = Executors.newSingleThreadExecutor(
                Thread.ofPlatform().name("bfd-callbacks").daemon().factory());
        for (UdpSocket receiver : receivers) {
            receiveThreads.add(Thread.ofPlatform()
                    .name("bfd-receive-" + receiver.local().getAddress().getHostAddress())
                    .daemon()
                    .start(() -> receiveLoop(receiver)));
        }
    }

    /** Listens on port 3784 of every address, IPv4 and IPv6. */
    public static BfdSessions open() throws IOException {
        return open(List.of(InetAddress.ofLiteral("0.0.0.0"), InetAddress.ofLiteral("::")));
    }

    /** Listens on port 3784 of these addresses only (a wildcard address listens on all of its family). */
    public static BfdSessions open(List<InetAddress> listenAddresses) throws IOException {
        List<UdpSocket> sockets = new ArrayList<>();
        try {
            for (InetAddress address : listenAddresses) {
                sockets.add(UdpSocket.open(new InetSocketAddress(address, CONTROL_PORT), TTL, true));
            }
        } catch (IOException | RuntimeException e) {
            sockets.forEach(UdpSocket::close);
            throw e;
        }
        return new BfdSessions(List.copyOf(sockets));
    }

    /**
     * Starts a session with {@code peer} from {@code local} (an address of this node on the peer's link).
     * {@code onChange} gets each new state (DOWN, INIT, UP) in order, on one thread, never at the same time.
     *
     * @throws IOException when no source port is free or {@code local} is not ours
     */
    public BfdSession watch(IpAddress local, IpAddress peer, BfdSettings settings, Consumer<BfdState> onChange)
            throws IOException {
        if (closed) {
            throw new IllegalStateException("BFD is stopped");
        }
        Watched session = new Watched(discriminator(), peer, settings, openSender(inet(local)), inet(peer), onChange);
        if (byPeer.putIfAbsent(peer, session) != null) {
            session.sender.close();
            throw new IllegalStateException("a BFD session with " + peer + " exists already");
        }
        byDiscriminator.put(session.discriminator, session);
        session.start();
        return session;
    }

    private int discriminator() {
        while (true) {
            int candidate = ThreadLocalRandom.current().nextInt();
            if (candidate != 0 && !byDiscriminator.containsKey(candidate)) {
                return candidate;
            }
        }
    }

    /** A port of the range chosen at random, tried up to 100 times: the range is shared with every other program. */
    private static UdpSocket openSender(InetAddress local) throws IOException {
        for (int attempt = 0; ; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(FIRST_SOURCE_PORT, 65536);
            try {
                return UdpSocket.open(new InetSocketAddress(local, port), TTL, false);
            } catch (NativeIOException e) {
                if (e.errno() != EADDRINUSE || attempt == 99) {
                    throw e;
                }
            }
        }
    }

    private void receiveLoop(UdpSocket socket) {
        byte[] buffer = new byte[512];
        while (!closed) {
            try {
                socket.receive(buffer, RECEIVE_WAIT).ifPresent(datagram -> dispatch(buffer, datagram));
            } catch (IOException e) {
                if (!closed) {
                    log.warn("BFD receive on {} failed: {}", socket.local(), e.getMessage());
                    sleepQuietly();
                }
            }
        }
    }

    private void dispatch(byte[] buffer, UdpSocket.Datagram datagram) {
        IpAddress source = IpAddress.of(datagram.source().getAddress());
        switch (BfdCodec.decode(buffer, datagram.length())) {
            case BfdCodec.Invalid(String reason) -> log.debug("BFD packet from {} dropped: {}", source, reason);
            case BfdCodec.Valid(BfdPacket packet) -> {
                Watched session = packet.yourDiscriminator() != 0
                        ? byDiscriminator.get(packet.yourDiscriminator())
                        : byPeer.get(source);
                if (session == null || !session.peer.equals(source)) {
                    log.debug("BFD packet from {} matches no session", source);
                } else if (datagram.ttl() < session.settings.minimumTtl()) {
                    // RFC 5881 5: a lower TTL means it crossed a router, so it is not from our neighbour
                    log.debug(
                            "BFD packet from {} dropped: TTL {} < {}",
                            source,
                            datagram.ttl(),
                            session.settings.minimumTtl());
                } else {
                    session.apply(new BfdEvent.Received(packet));
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        for (Watched session : List.copyOf(byPeer.values())) {
            session.close();
        }
        for (Thread thread : receiveThreads) {
            try {
                thread.join(RECEIVE_WAIT.multipliedBy(3).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        receivers.forEach(UdpSocket::close);
        timer.shutdownNow();
        callbacks.shutdown();
    }

    private static InetAddress inet(IpAddress address) {
        try {
            return InetAddress.getByAddress(address.toBytes());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static void sleepQuietly() {
        try {
            Thread.sleep(RECEIVE_WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A session: its variables change only inside {@link #apply}, one event at a time. */
    private final class Watched implements BfdSession {
        final int discriminator;
        final IpAddress peer;
        final BfdSettings settings;
        final UdpSocket sender;
        final InetSocketAddress destination;
        final Consumer<BfdState> onChange;
        private SessionVariables variables;
        private ScheduledFuture<?> pending;
        private volatile BfdState state = BfdState.DOWN;
        private volatile Diagnostic diagnostic = Diagnostic.NONE;

        Watched(
                int discriminator,
                IpAddress peer,
                BfdSettings settings,
                UdpSocket sender,
                InetAddress peerAddress,
                Consumer<BfdState> onChange) {
            this.discriminator = discriminator;
            this.peer = peer;
            this.settings = settings;
            this.sender = sender;
            this.destination = new InetSocketAddress(peerAddress, CONTROL_PORT);
            this.onChange = onChange;
        }

        synchronized void start() {
            enact(StateMachine.start(settings, discriminator, System.nanoTime(), jitter()));
        }

        synchronized void apply(BfdEvent event) {
            if (variables.state() == BfdState.ADMIN_DOWN && !(event instanceof BfdEvent.Stopped)) {
                return; // closed
            }
            enact(StateMachine.on(variables, event, System.nanoTime(), jitter()));
        }

        /** The random draw that jitters the transmit interval (RFC 5880 6.8.7). */
        private static double jitter() {
            return ThreadLocalRandom.current().nextDouble();
        }

        private void enact(Step step) {
            BfdState before = variables == null ? BfdState.DOWN : variables.state();
            variables = step.variables();
            for (BfdPacket packet : step.send()) {
                try {
                    sender.send(destination, BfdCodec.encode(packet));
                } catch (IOException e) {
                    log.debug("BFD packet to {} not sent: {}", peer, e.getMessage());
                }
            }
            if (pending != null) {
                pending.cancel(false);
                pending = null;
            }
            if (step.nextDeadlineNanos() != SessionVariables.NEVER && !timer.isShutdown()) {
                long delay = Math.max(0, step.nextDeadlineNanos() - System.nanoTime());
                pending = timer.schedule(() -> apply(new BfdEvent.TimerFired()), delay, TimeUnit.NANOSECONDS);
            }
            BfdState after = variables.state();
            state = after;
            diagnostic = variables.local().diagnostic();
            if (after != before && after != BfdState.ADMIN_DOWN) {
                log.info(
                        "BFD session with {}: {} -> {} ({})",
                        peer,
                        before,
                        after,
                        variables.local().diagnostic());
                callbacks.execute(() -> onChange.accept(after));
            }
        }

        @Override
        public BfdState state() {
            return state;
        }

        @Override
        public Diagnostic diagnostic() {
            return diagnostic;
        }

        @Override
        public void close() {
            if (!byPeer.remove(peer, this)) {
                return;
            }
            byDiscriminator.remove(discriminator, this);
            apply(new BfdEvent.Stopped());
            sender.close();
        }

        @Override
        public String toString() {
            return "BfdSession[" + peer + " " + state + "]";
        }
    }
}
