package io.lbk8s.bgp.session;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import io.lbk8s.bfd.BfdSession;
import io.lbk8s.bfd.BfdState;
import io.lbk8s.bgp.AdjRibOut;
import io.lbk8s.bgp.AfiSafiDisable;
import io.lbk8s.bgp.Collision;
import io.lbk8s.bgp.Decoded;
import io.lbk8s.bgp.Family;
import io.lbk8s.bgp.LastError;
import io.lbk8s.bgp.Message;
import io.lbk8s.bgp.MessageDecoder;
import io.lbk8s.bgp.MessageEncoder;
import io.lbk8s.bgp.Negotiated;
import io.lbk8s.bgp.OpenNegotiation;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.Route;
import io.lbk8s.bgp.SessionAction;
import io.lbk8s.bgp.SessionContext;
import io.lbk8s.bgp.SessionEvent;
import io.lbk8s.bgp.SessionEvent.Timer;
import io.lbk8s.bgp.SessionFsm;
import io.lbk8s.bgp.SessionState;
import io.lbk8s.bgp.SessionStatus;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One peer's session: a virtual thread runs {@link SessionFsm} on the events it takes from a queue (messages from the
 * reader thread, timers, the speaker's route changes) and carries out its actions on the connection.
 */
final class PeerSession {
    private static final Logger log = LoggerFactory.getLogger(PeerSession.class);
    /** RFC 4271 8's suggested hold time while waiting for the peer's OPEN. */
    private static final Duration OPEN_HOLD = Duration.ofMinutes(4);
    /**
     * How long after the connector's own time-out (the BGPPeer's connectTime) the ConnectRetry timer gives up on an
     * attempt. The connector says why it failed ("does not answer, or expects another TCP MD5 password"); a timer of
     * the same length fired first (on every attempt in SessionsConnectTimeTest), dropped the connector's answer as
     * stale and said nothing.
     */
    static final Duration CONNECT_BACKSTOP = Duration.ofSeconds(1);

    private sealed interface Input {}

    private record Fsm(SessionEvent event) implements Input {}

    private record Opened(Connection connection, int attempt) implements Input {}

    /** A connection the peer opened to this node's listening socket. */
    private record Incoming(Connection connection) implements Input {}

    private record FromPeer(SessionEvent event, int attempt) implements Input {}

    private record OpenFromPeer(Message.Open open, int attempt) implements Input {}

    private record BfdChanged(BfdState state, int attempt) implements Input {}

    /** An UPDATE whose MP_REACH_NLRI or MP_UNREACH_NLRI of a known family cannot be parsed. */
    private record FamilyUnreadable(Decoded.Invalid invalid, int attempt) implements Input {}

    private volatile PeerSpec spec;
    private final Connector connector;
    private final Clock clock;
    private final Sessions.Listener listener;
    private final NodeBfd bfd;
    private final EstablishedPeers establishedPeers;
    private final LinkedBlockingQueue<Input> inputs = new LinkedBlockingQueue<>();
    private final Map<Timer, Long> deadlines = new EnumMap<>(Timer.class);
    private final Thread loop;

    private volatile Set<Route> wanted = Set.of();
    private volatile SessionStatus status;
    private volatile boolean stopped;
    private volatile boolean revisedLogged;

    // owned by the loop thread
    private SessionState state = SessionState.IDLE;
    private int attempt;
    private int failuresInARow;
    private Connection connection;
    /** Whether this node opened {@link #connection} (else the peer did: {@link #accepted}). */
    private boolean connectionIsOurs;
    /** The peer's connection that arrived in OPEN_SENT, held until the peer's OPEN says who wins the collision. */
    private Connection held;

    private Optional<BfdSession> bfdSession = Optional.empty();
    private Optional<BfdState> bfdState = Optional.empty();
    private Message.Open ourOpen;
    private Negotiated negotiated;
    private SessionContext context;
    private Map<IpPrefix, Route> sent = Map.of();

    /**
     * @param why what the status says until the session has news of its own: why it was restarted, if it was
     */
    PeerSession(
            PeerSpec spec,
            Optional<String> why,
            Connector connector,
            Clock clock,
            Sessions.Listener listener,
            NodeBfd bfd,
            EstablishedPeers establishedPeers) {
        this.spec = spec;
        this.connector = connector;
        this.clock = clock;
        this.listener = listener;
        this.bfd = bfd;
        this.establishedPeers = establishedPeers;
        this.status = new SessionStatus(
                spec.name(), spec.address(), SessionState.IDLE, clock.instant(), why, 0, Optional.empty(), Set.of());
        this.loop = Thread.ofVirtual().name("bgp-" + spec.name()).unstarted(this::run);
    }

    PeerSpec spec() {
        return spec;
    }

    /** A spec that differs only in what the next connection reads ({@link PeerSpec#sameSessionAs}). */
    void respec(PeerSpec same) {
        spec = same;
    }

    SessionStatus status() {
        return status;
    }

    void start() {
        inputs.add(new Fsm(new SessionEvent.Start()));
        loop.start();
    }

    void advertise(Set<Route> routes) {
        wanted = Set.copyOf(routes);
        inputs.add(new Fsm(new SessionEvent.RoutesChanged()));
    }

    /** A connection from the peer's address to this node's listening socket: the session decides what to do with it. */
    void accepted(Connection incoming) {
        inputs.add(new Incoming(incoming));
        if (stopped) {
            closeUnclaimed(); // the loop has ended, or ends without taking it: closeUnclaimed there or here closes it
        }
    }

    /** Ends the session, with {@code farewell} first when established; waits a bounded time for the loop to end. */
    void stop(Optional<Message.Notification> farewell, Duration wait) {
        inputs.add(new Fsm(new SessionEvent.Stop(farewell)));
        try {
            if (!loop.join(wait)) {
                loop.interrupt();
                loop.join(wait);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        try {
            while (!stopped) {
                Input input = inputs.poll(untilNextDeadline(), TimeUnit.NANOSECONDS);
                if (input == null) {
                    expiredTimer().ifPresent(t -> handle(new SessionEvent.TimerExpired(t)));
                } else {
                    take(input);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            stopped = true; // a connect still under way closes what it opens from now on
            disconnect();
            release();
            closeUnclaimed();
        }
    }

    /**
     * A connect that completed while the loop was ending queued its connection after the loop's last take, and looked
     * at {@link #stopped} before it was set: nobody else would close it. Open, it would never send an OPEN, and a router
     * that keeps one incoming connection per neighbour (BIRD) would refuse this node's next ones.
     */
    private void closeUnclaimed() {
        for (Input input = inputs.poll(); input != null; input = inputs.poll()) {
            if (input instanceof Opened(var unclaimed, var _)) {
                unclaimed.close();
            } else if (input instanceof Incoming(var unclaimed)) {
                unclaimed.close();
            }
        }
    }

    private void take(Input input) {
        step(input);
        if (held != null && state != SessionState.OPEN_SENT && !stopped) {
            Connection waiting = held;
            held = null;
            collide(waiting); // the peer's OPEN arrived (OPEN_CONFIRM), or the session's connection ended
        }
    }

    /**
     * A connection the peer opened: taken when the session has none of its own yet, else RFC 4271 6.8's collision
     * decides which of the two goes on; the loser gets a Cease / Connection Collision Resolution.
     */
    private void collide(Connection incoming) {
        Collision.Verdict verdict = Collision.resolve(
                state,
                connectionIsOurs,
                ourOpen == null ? IpAddress.v4(0) : ourOpen.bgpIdentifier(),
                spec.myAsn(),
                Optional.ofNullable(negotiated).map(Negotiated::peerIdentifier),
                negotiated == null ? 0 : negotiated.peerAsn());
        log.debug(
                "BGP peer {}: connected to this node from {} in state {}: {}",
                spec.name(),
                incoming.remote(),
                state,
                verdict);
        switch (verdict) {
            case KEEP_EXISTING -> refuse(incoming);
            case WAIT -> {
                if (held != null) {
                    refuse(held); // the peer gave up on the one held: it opens another only then
                }
                held = incoming;
            }
            case TAKE_INCOMING -> {
                log.info(
                        "BGP peer {} ({}) connected to this node (in state {}): the session goes on over its"
                                + " connection",
                        spec.name(),
                        spec.address(),
                        state);
                handle(new SessionEvent.CollisionLost()); // only in OPEN_SENT or OPEN_CONFIRM: a Cease on ours
                disconnect(); // abandons our attempt under way, if any
                use(incoming, false);
                handle(new SessionEvent.Accepted());
            }
        }
    }

    /** Makes {@code chosen} the session's connection for the current attempt: read, and watched with BFD. */
    private void use(Connection chosen, boolean ours) {
        connection = chosen;
        connectionIsOurs = ours;
        startReader(chosen, attempt);
        watchWithBfd(chosen, attempt);
    }

    private static void refuse(Connection loser) {
        try {
            loser.output().write(MessageEncoder.encode(Collision.RESOLUTION, false));
            loser.output().flush();
        } catch (IOException e) {
            // it is closed below either way
        }
        loser.close();
    }

    /** Closes a held connection of the peer's when the session ends. */
    private void release() {
        if (held != null) {
            held.close();
            held = null;
        }
    }

    private void step(Input input) {
        switch (input) {
            case Fsm(var event) -> {
                handle(event);
                if (event instanceof SessionEvent.Stop) {
                    stopped = true;
                }
            }
            case Incoming(var incoming) -> {
                if (stopped) {
                    incoming.close();
                } else {
                    collide(incoming);
                }
            }
            case Opened(var opened, var from) -> {
                if (from == attempt && state == SessionState.CONNECT) {
                    use(opened, true);
                    handle(new SessionEvent.Connected());
                } else {
                    opened.close();
                }
            }
            case FromPeer(var event, var from) -> {
                if (from == attempt) {
                    handle(event);
                }
            }
            case BfdChanged(var now, var from) -> {
                if (from == attempt) {
                    boolean wasUp = bfdState.equals(Optional.of(BfdState.UP));
                    bfdState = Optional.of(now);
                    if (wasUp && now != BfdState.UP) {
                        // the router drops our routes on its own BFD verdict; we end the session to match it
                        handle(new SessionEvent.ConnectionLost("went silent: BFD says it is down"));
                    } else {
                        handle(new SessionEvent.RoutesChanged()); // reports the BFD state; sends nothing new
                    }
                }
            }
            case FamilyUnreadable(var invalid, var from) -> {
                if (from == attempt) {
                    handle(AfiSafiDisable.event(
                            invalid,
                            negotiated == null ? Set.of() : negotiated.families(),
                            context == null ? Set.of() : context.families()));
                }
            }
            case OpenFromPeer(var open, var from) -> {
                if (from == attempt) {
                    handle(
                            switch (OpenNegotiation.negotiate(spec, ourOpen, open)) {
                                case OpenNegotiation.Outcome.Agreed(var n) -> new SessionEvent.OpenAccepted(n);
                                case OpenNegotiation.Outcome.Refused(var n, var reason) ->
                                    new SessionEvent.Refused(n, reason);
                            });
                }
            }
        }
    }

    private void handle(SessionEvent event) {
        SessionFsm.Transition transition = SessionFsm.next(state, event);
        SessionState before = state;
        state = transition.state();
        if (state == SessionState.ESTABLISHED) {
            failuresInARow = 0;
            establishedPeers.established(spec);
        }
        Optional<String> error = status.lastError();
        for (SessionAction action : transition.actions()) {
            switch (action) {
                case SessionAction.Connect _ -> connect();
                case SessionAction.Disconnect _ -> disconnect();
                case SessionAction.SendOpen _ -> {
                    ourOpen = OpenNegotiation.ours(spec, routerId(), establishedPeers.firstSinceStart(spec));
                    send(ourOpen);
                }
                case SessionAction.Send(var message) -> send(message);
                case SessionAction.Arm(var timer) -> arm(timer);
                case SessionAction.Disarm(var timer) -> deadlines.remove(timer);
                case SessionAction.Adopt(var n) -> adopt(n);
                case SessionAction.DisableFamily(var family, var reason) -> disable(family, reason);
                case SessionAction.SendAllRoutes _ -> sendAll();
                case SessionAction.SendChanges _ -> sendPlan(AdjRibOut.changes(sent, wanted, context));
                case SessionAction.Failed failed ->
                    error = Optional.of(LastError.of(spec.address(), spec.myAsn(), failed));
            }
        }
        if (state != before
                || !error.equals(status.lastError())
                || sent.size() != status.advertised()
                || !bfdState.equals(status.bfd())
                || !disabled().equals(status.disabled())) {
            status = new SessionStatus(
                    spec.name(),
                    spec.address(),
                    state,
                    state != before ? clock.instant() : status.since(),
                    error,
                    sent.size(),
                    bfdState,
                    disabled());
            listener.changed(status);
        }
    }

    private void connect() {
        int from = ++attempt;
        InetSocketAddress remote = new InetSocketAddress(address(spec.address()), spec.port());
        Optional<InetAddress> source = spec.sourceAddress().map(PeerSession::address);
        // a platform thread: the connector waits for the peer in poll(2), which would hold a virtual thread's carrier
        // for up to connectTime, and two such waits hold both carriers of a two-core node (every virtual thread of the
        // speaker stalls: the health server, leader election, the other sessions' keepalives)
        Thread.ofPlatform().daemon().name("bgp-connect-" + spec.name()).start(() -> {
            try {
                Connection opened =
                        connector.connect(remote, source, spec.password(), SessionTtl.of(spec), spec.connectTime());
                inputs.add(new Opened(opened, from));
                if (stopped) {
                    opened.close(); // the loop ended while we connected: nobody will take it
                }
            } catch (IOException e) {
                inputs.add(new FromPeer(new SessionEvent.ConnectionLost(e.getMessage()), from));
            }
        });
    }

    /**
     * With a BFD profile, BFD runs beside the TCP connection, from its local address: a router that stops hearing it
     * drops this node's routes within the profile's detection time instead of the hold time.
     */
    private void watchWithBfd(Connection opened, int from) {
        if (spec.bfd().isEmpty()) {
            return;
        }
        try {
            bfdSession = Optional.of(bfd.sessions()
                    .watch(
                            IpAddress.of(opened.local().getAddress()),
                            spec.address(),
                            spec.bfd().get(),
                            now -> inputs.add(new BfdChanged(now, from))));
            bfdState = Optional.of(BfdState.DOWN);
        } catch (IOException | RuntimeException e) {
            log.warn(
                    "BGP peer {}: cannot run BFD ({}); the hold time alone detects a failure",
                    spec.name(),
                    e.getMessage());
        }
    }

    private void disconnect() {
        bfdSession.ifPresent(BfdSession::close);
        bfdSession = Optional.empty();
        if (connection != null) {
            connection.close();
            connection = null;
        }
        attempt++; // whatever the old reader or connect attempt still reports is stale
        negotiated = null;
        context = null;
        sent = Map.of();
    }

    private void startReader(Connection opened, int from) {
        Thread.ofVirtual().name("bgp-read-" + spec.name()).start(() -> read(opened, from));
    }

    /** Reads messages until the connection ends; the four-octet AS choice follows the peer's OPEN. */
    private void read(Connection opened, int from) {
        InputStream in = opened.input();
        boolean fourOctetAs = false;
        try {
            while (true) {
                byte[] header = in.readNBytes(MessageDecoder.HEADER);
                if (header.length < MessageDecoder.HEADER) {
                    inputs.add(new FromPeer(new SessionEvent.ConnectionLost("closed the connection"), from));
                    return;
                }
                int length = MessageDecoder.length(header);
                byte[] message = header;
                if (length > MessageDecoder.HEADER && length <= MessageDecoder.MAX_LENGTH) {
                    byte[] rest = in.readNBytes(length - MessageDecoder.HEADER);
                    message = new byte[length];
                    System.arraycopy(header, 0, message, 0, header.length);
                    System.arraycopy(rest, 0, message, header.length, rest.length);
                }
                switch (MessageDecoder.decode(message, fourOctetAs)) {
                    case Decoded.Valid(Message.Open open) -> {
                        fourOctetAs = open.capability(io.lbk8s.bgp.Capability.FourOctetAs.class)
                                .isPresent();
                        inputs.add(new OpenFromPeer(open, from));
                    }
                    // routes the peer sends are decoded (checked) and otherwise ignored: we only originate
                    case Decoded.Valid(var other) -> inputs.add(new FromPeer(new SessionEvent.Received(other), from));
                    case Decoded.Revised(var update, var reason) -> {
                        // RFC 7606: we use no route the peer sends, so the session goes on; said once per peer
                        if (!revisedLogged) {
                            revisedLogged = true;
                            log.warn(
                                    "BGP peer {} ({}) sent {}; further such UPDATEs are handled alike without a word",
                                    spec.name(),
                                    spec.address(),
                                    reason);
                        }
                        inputs.add(new FromPeer(new SessionEvent.Received(update), from));
                    }
                    // the loop decides, by the session's families, whether it ends; reading goes on meanwhile
                    case Decoded.Invalid invalid
                    when invalid.family().isPresent() -> inputs.add(new FamilyUnreadable(invalid, from));
                    case Decoded.Invalid(var notification, var reason, var _) -> {
                        inputs.add(new FromPeer(new SessionEvent.Refused(notification, "sent " + reason), from));
                        return;
                    }
                }
            }
        } catch (IOException e) {
            inputs.add(new FromPeer(new SessionEvent.ConnectionLost("broke the connection: " + e.getMessage()), from));
        }
    }

    private void adopt(Negotiated agreed) {
        negotiated = agreed;
        InetSocketAddress local = connection.local();
        NodeAddresses around = NodeAddresses.around(local.getAddress());
        IpAddress localAddress = IpAddress.of(local.getAddress());
        context = new SessionContext(
                spec.myAsn(),
                agreed.internal(),
                agreed.fourOctetAs(),
                agreed.families(),
                localAddress,
                around.otherFamily(),
                localAddress.isV4() ? Optional.empty() : around.ipv6LinkLocal(),
                spec.dualStack());
    }

    /**
     * RFC 7606's AFI/SAFI disable: the session goes on as if {@code family} had not been negotiated, until it restarts.
     * Said once: the peer's later UPDATEs of that family are ignored without a word.
     */
    private void disable(Family family, String reason) {
        if (context == null || !context.families().contains(family)) {
            return;
        }
        context = context.without(family);
        log.warn(
                "BGP peer {} ({}) sent {}; the session goes on without {} (RFC 7606's AFI/SAFI disable): this node"
                        + " withdraws its {} routes from the peer and sends it none until the session restarts, and {}"
                        + " goes on",
                spec.name(),
                spec.address(),
                reason,
                family.describe(),
                family.describe(),
                String.join(
                        " and ",
                        context.families().stream()
                                .sorted()
                                .map(Family::describe)
                                .toList()));
    }

    /** The families negotiated and since disabled (RFC 7606's AFI/SAFI disable). */
    private Set<Family> disabled() {
        if (negotiated == null || context == null) {
            return Set.of();
        }
        Set<Family> disabled = EnumSet.noneOf(Family.class);
        disabled.addAll(negotiated.families());
        disabled.removeAll(context.families());
        return disabled;
    }

    /** The whole table; with its times in the debug log, where a full table's time to a new peer goes (bench). */
    private void sendAll() {
        long start = System.nanoTime();
        AdjRibOut.Plan plan = AdjRibOut.everything(wanted, context);
        long planned = System.nanoTime();
        sendPlan(plan);
        if (log.isDebugEnabled()) {
            log.debug(
                    "BGP peer {}: the full table, {} route(s) in {} UPDATE(s), planned in {} ms, sent in {} ms",
                    spec.name(),
                    plan.sent().size(),
                    plan.updates().size(),
                    (planned - start) / 1_000_000,
                    (System.nanoTime() - planned) / 1_000_000);
        }
    }

    private void sendPlan(AdjRibOut.Plan plan) {
        for (Message.Update update : plan.updates()) {
            send(update);
        }
        sent = plan.sent();
        if (!plan.updates().isEmpty() && deadlines.containsKey(Timer.KEEPALIVE)) {
            arm(Timer.KEEPALIVE); // an UPDATE sent counts as a sign of life (RFC 4271 4.4)
        }
    }

    private void send(Message message) {
        if (connection == null) {
            return;
        }
        try {
            connection.output().write(MessageEncoder.encode(message, negotiated != null && negotiated.fourOctetAs()));
            connection.output().flush();
        } catch (IOException e) {
            inputs.add(
                    new FromPeer(new SessionEvent.ConnectionLost("broke the connection: " + e.getMessage()), attempt));
        }
    }

    private void arm(Timer timer) {
        Duration length = switch (timer) {
            case CONNECT_RETRY ->
                state == SessionState.CONNECT ? spec.connectTime().plus(CONNECT_BACKSTOP) : retryDelay();
            case HOLD -> negotiated == null ? OPEN_HOLD : negotiated.holdTime();
            case KEEPALIVE -> negotiated == null ? Duration.ZERO : negotiated.keepalive();
        };
        if (length.isZero()) {
            deadlines.remove(timer); // a hold time of 0 means no timers at all (RFC 4271 4.2)
        } else {
            deadlines.put(timer, System.nanoTime() + length.toNanos());
        }
    }

    /**
     * After a failure, try again in 1 s, then 2, 4... up to the BGPPeer's connectTime: a router that restarts is
     * found again within seconds even when it does not connect to this node itself (the listening socket may be off or
     * taken), and one that stays away is not asked more often than connectTime says.
     */
    private Duration retryDelay() {
        Duration delay = Duration.ofSeconds(1L << Math.min(failuresInARow, 16));
        failuresInARow++;
        return delay.compareTo(spec.connectTime()) < 0 ? delay : spec.connectTime();
    }

    private long untilNextDeadline() {
        long now = System.nanoTime();
        return deadlines.values().stream()
                .mapToLong(d -> Math.max(0, d - now))
                .min()
                .orElse(TimeUnit.SECONDS.toNanos(60));
    }

    private Optional<Timer> expiredTimer() {
        long now = System.nanoTime();
        for (var entry : deadlines.entrySet()) {
            if (entry.getValue() - now <= 0) {
                deadlines.remove(entry.getKey());
                return Optional.of(entry.getKey());
            }
        }
        return Optional.empty();
    }

    /** The BGPPeer's routerID, else this node's IPv4 address on the session or on its interface. */
    private IpAddress routerId() {
        if (spec.routerId().isPresent()) {
            return spec.routerId().get();
        }
        InetAddress local = connection.local().getAddress();
        IpAddress localAddress = IpAddress.of(local);
        if (localAddress.isV4()) {
            return localAddress;
        }
        // an IPv6-only node without a routerID: the low 32 bits of its address, as FRR does not but is unique enough
        return NodeAddresses.around(local).otherFamily().orElse(IpAddress.v4(localAddress.low() & 0xFFFF_FFFFL));
    }

    private static InetAddress address(IpAddress ip) {
        try {
            return InetAddress.getByAddress(ip.toBytes());
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(e); // cannot happen for 4 or 16 bytes
        }
    }
}
