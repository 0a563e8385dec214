package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.ClaimListener;
import io.lbk8s.net.InterfaceResponder;
import io.lbk8s.net.ResponderOptions;
import io.lbk8s.net.bpf.BpfProgram;
import io.lbk8s.net.frame.ArpPacket;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.net.link.Links;
import io.lbk8s.net.link.PacketSocket;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a {@link NodePlan} to the wire: keeps one ARP/NDP responder per interface in use, hands each the addresses
 * it answers for (a responder swaps them in with one volatile write, so leadership lost is answering stopped at
 * once), and sends gratuitous ARP / unsolicited NA when this node takes an address, in a short burst and then
 * periodically.
 *
 * <p>Before it answers for an address it did not answer for, it asks the LAN ({@link TakeoverProbes}), and leaves an
 * address alone while another MAC answers for it; when that MAC is no speaker's, that is an address conflict
 * ({@link Conflicts}), and so is another host claiming an address this node announces, which a {@link ClaimListener}
 * per interface hears. It also watches the links it answers on: one that goes down or loses its carrier stops
 * answering at once, and the plan is made again.
 */
final class Announcer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Announcer.class);
    private static final Duration LINK_CHECK = Duration.ofMillis(20);

    /**
     * @param takeoverProbe how long to listen for another host answering for an address before taking it; zero
     *                      takes it at once
     * @param returnHold    how long an interface that came back up answers nothing ({@link ReturnedLinks})
     */
    record Options(
            List<Duration> takeoverBurst,
            Duration refreshInterval,
            ResponderOptions responder,
            Duration takeoverProbe,
            Duration returnHold) {
        Options {
            takeoverBurst = List.copyOf(takeoverBurst);
        }
    }

    private final SpeakerMetrics metrics;
    private final Options options;
    private final Runnable replan;
    private final ScheduledExecutorService timer;
    private final TakeoverProbes probes;
    private final Conflicts conflicts;

    /** ifindex to the addresses answered there, as last handed to the responders; replaced whole. */
    private volatile Map<Integer, Set<IpAddress>> table = Map.of();

    // Owned by the caller's (reconcile) thread, and by the timer for refresh reads.
    private final Map<Integer, InterfaceResponder> responders = new HashMap<>();
    private final Map<Integer, LinkInfo> linksInUse = new HashMap<>();
    private final Map<Integer, ClaimListener> listeners = new HashMap<>();
    /** Every interface answered on since the start, watched for going down and coming back. */
    private final Map<Integer, LinkInfo> watched = new HashMap<>();

    private final ReturnedLinks returned;
    private volatile String rawSocketFailure;
    private volatile String responderFailure;

    /** {@code replan} asks for the plan to be made again (after a deferral's pause, or when a link went down). */
    Announcer(SpeakerMetrics metrics, Options options, Conflicts conflicts, Runnable replan) {
        this.metrics = metrics;
        this.conflicts = conflicts;
        this.options = options;
        this.probes = new TakeoverProbes(metrics, options.takeoverProbe());
        this.returned = new ReturnedLinks(options.returnHold());
        this.replan = replan;
        this.timer = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("announcer-timer").daemon().factory());
        if (!options.refreshInterval().isZero()) {
            long every = options.refreshInterval().toMillis();
            timer.scheduleAtFixedRate(this::refresh, every, every, TimeUnit.MILLISECONDS);
        }
        timer.scheduleWithFixedDelay(
                this::checkLinks, LINK_CHECK.toMillis(), LINK_CHECK.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Opens and closes a raw socket on loopback, so that a speaker without CAP_NET_RAW says so in /readyz at start
     * rather than when it first leads an address.
     */
    void checkRawSockets() {
        try {
            LinkInfo loopback = Links.list().stream()
                    .filter(LinkInfo::loopback)
                    .findFirst()
                    .orElseThrow(() -> new IOException("no loopback interface in this network namespace"));
            try (PacketSocket probe =
                    PacketSocket.open(loopback, ArpPacket.ETHERTYPE, BpfProgram.arpRequests(), Duration.ofMillis(10))) {
                log.debug("raw sockets available (probe on {})", loopback.name());
            }
            rawSocketFailure = null;
        } catch (IOException e) {
            rawSocketFailure = e.getMessage();
            log.error("cannot open raw sockets: {}", e.getMessage());
        }
    }

    /** The error that keeps this node from answering, if any (for /readyz). */
    Optional<String> failure() {
        return Optional.ofNullable(rawSocketFailure).or(() -> Optional.ofNullable(responderFailure));
    }

    /**
     * Answers for what {@code plan} gives this node. Addresses in {@code fromFailedNodes} are taken from a node that
     * fell silent (its fence lapsed before its peers noticed): they are probed for {@code takeoverProbe}. Any other
     * new address is probed for {@link SpeakerSettings#HANDOVER_QUIET}, so that the node handing it over has been
     * silent that long before this one answers.
     */
    synchronized void apply(NodePlan plan, Set<IpAddress> fromFailedNodes) {
        long applying = System.nanoTime();
        Map<Integer, Set<IpAddress>> next = new HashMap<>();
        Map<Integer, LinkInfo> links = new HashMap<>();
        for (NodePlan.Announced announced : plan.announced().values()) {
            for (LinkInfo link : announced.links()) {
                next.computeIfAbsent(link.index(), i -> new HashSet<>()).add(announced.ip());
                links.put(link.index(), link);
            }
        }
        // an address another host uses is not announced until the conflict clears
        next.values().forEach(ips -> ips.removeIf(ip -> !conflicts.mayAnnounce(ip)));
        for (var it = links.values().iterator(); it.hasNext(); ) {
            LinkInfo link = it.next();
            watched.put(link.index(), link);
            returned.seen(link.index(), true, applying).ifPresent(until -> holdReturned(link, until, applying));
            if (returned.held(link.index(), applying)) {
                next.remove(link.index());
                it.remove();
            }
        }
        Map<Integer, Set<IpAddress>> before = table;
        String problem = null;
        for (LinkInfo link : links.values()) {
            InterfaceResponder existing = responders.get(link.index());
            if (existing != null && !linksInUse.get(link.index()).mac().equals(link.mac())) {
                closeQuietly(existing); // the interface was replaced (same index, new MAC): answer with the new MAC
                responders.remove(link.index());
                Optional.ofNullable(listeners.remove(link.index())).ifPresent(ClaimListener::close);
            }
            if (!responders.containsKey(link.index())) {
                try {
                    InterfaceResponder responder = InterfaceResponder.start(link, metrics, options.responder());
                    responders.put(link.index(), responder);
                    listen(link);
                    log.info(
                            "answering ARP and NDP on interface {} ({}, index {}); ARP {}",
                            link.name(),
                            link.mac(),
                            link.index(),
                            responder.answersArpInKernel()
                                    ? "in the kernel (XDP)"
                                    : "from the raw socket (in the kernel: " + responder.arpInKernelProblem() + ")");
                } catch (IOException e) {
                    problem = e.getMessage();
                    log.error("cannot answer on interface {}: {}", link.name(), e.getMessage());
                    next.remove(link.index());
                }
            }
            linksInUse.put(link.index(), link);
        }
        // Losses first, so that the node taking an address from us finds it silent; then what the LAN lets us take.
        Map<Integer, Set<IpAddress>> kept = new HashMap<>();
        next.forEach((index, ips) -> kept.put(
                index,
                ips.stream()
                        .filter(ip -> before.getOrDefault(index, Set.of()).contains(ip))
                        .collect(Collectors.toSet())));
        problem = answer(kept, next, problem);
        probeBeforeTaking(next, before, fromFailedNodes);
        responderFailure = answer(next, next, problem);
        table = freeze(next);
        listenForClaims();

        for (var entry : table.entrySet()) {
            InterfaceResponder responder = responders.get(entry.getKey());
            Set<IpAddress> had = before.getOrDefault(entry.getKey(), Set.of());
            for (IpAddress ip : entry.getValue()) {
                if (!had.contains(ip)) {
                    LinkInfo link = linksInUse.get(entry.getKey());
                    log.info("announcing {} on {} ({})", ip, link.name(), link.mac());
                    metrics.takeover();
                    if (!ip.isV4()) {
                        try {
                            responder.joinSolicitedNode(ip);
                        } catch (IOException e) {
                            log.warn(
                                    "cannot join the solicited-node group of {} on {} (switches with MLD snooping may not forward"
                                            + " its solicitations): {}",
                                    ip,
                                    link.name(),
                                    e.getMessage());
                        }
                    }
                    burst(responder, ip);
                    if (fromFailedNodes.contains(ip)) {
                        metrics.failoverTakeover(System.nanoTime() - applying);
                    }
                }
            }
        }
        for (var entry : before.entrySet()) {
            Set<IpAddress> now = table.getOrDefault(entry.getKey(), Set.of());
            InterfaceResponder responder = responders.get(entry.getKey());
            for (IpAddress ip : entry.getValue()) {
                if (!now.contains(ip)) {
                    log.info(
                            "stopped announcing {} on {}",
                            ip,
                            linksInUse.get(entry.getKey()).name());
                    if (!ip.isV4() && responder != null) {
                        responder.leaveSolicitedNode(ip);
                    }
                }
            }
        }
        // Responders of interfaces that announce nothing now are closed, so an idle speaker holds no sockets; in the
        // background, since their threads take up to a receive timeout to stop (their empty sets silence them now).
        for (var it = responders.entrySet().iterator(); it.hasNext(); ) {
            var entry = it.next();
            if (!table.containsKey(entry.getKey())) {
                InterfaceResponder idle = entry.getValue();
                ClaimListener listener = listeners.remove(entry.getKey());
                Thread.ofVirtual().name("close-" + idle.link().name()).start(() -> {
                    closeQuietly(idle);
                    if (listener != null) {
                        listener.close();
                    }
                });
                linksInUse.remove(entry.getKey());
                it.remove();
            }
        }
    }

    /** Hands each responder its addresses; an interface that refuses them answers nothing and leaves {@code next}. */
    private String answer(Map<Integer, Set<IpAddress>> sets, Map<Integer, Set<IpAddress>> next, String problem) {
        for (var entry : responders.entrySet()) {
            LinkInfo link = linksInUse.get(entry.getKey());
            try {
                entry.getValue().announce(sets.getOrDefault(entry.getKey(), Set.of()));
            } catch (IOException e) {
                problem = e.getMessage();
                log.error("cannot set what interface {} answers for: {}", link.name(), e.getMessage());
                next.remove(entry.getKey());
                withdrawQuietly(entry.getValue());
            }
        }
        return problem;
    }

    /** Drops from {@code next} the new addresses another MAC answers for, and asks for a new plan when to try again. */
    private void probeBeforeTaking(
            Map<Integer, Set<IpAddress>> next, Map<Integer, Set<IpAddress>> before, Set<IpAddress> fromFailedNodes) {
        probes.keepOnly(next.values().stream().flatMap(Set::stream).collect(Collectors.toSet()));
        Set<MacAddress> ours = null;
        Duration retry = null;
        for (var entry : next.entrySet()) {
            Set<IpAddress> fresh = new HashSet<>(entry.getValue());
            fresh.removeAll(before.getOrDefault(entry.getKey(), Set.of()));
            if (fresh.isEmpty()) {
                continue;
            }
            if (ours == null) {
                ours = Links.list().stream().map(LinkInfo::mac).collect(Collectors.toSet());
            }
            LinkInfo link = linksInUse.get(entry.getKey());
            TakeoverProbes.Verdict verdict = probes.probe(link, fresh, fromFailedNodes, ours);
            entry.getValue().removeAll(verdict.contested().keySet());
            entry.getValue().removeAll(verdict.unprobed());
            verdict.contested().forEach((ip, mac) -> conflicts.takeoverAnswered(link, ip, mac));
            if (verdict.retryAfter().isPresent()
                    && (retry == null || verdict.retryAfter().get().compareTo(retry) < 0)) {
                retry = verdict.retryAfter().get();
            }
        }
        if (retry != null) {
            timer.schedule(replan, retry.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Every {@link #LINK_CHECK}: an interface in use that went down or lost its carrier stops answering at once (its
     * neighbours cannot hear it, and whatever it answers after it comes back must be decided afresh).
     */
    private void checkLinks() {
        Map<Integer, LinkInfo> links;
        synchronized (this) {
            links = Map.copyOf(watched);
        }
        for (LinkInfo link : links.values()) {
            Optional<Links.LinkState> state = Links.state(link.name());
            boolean operational = state.map(Links.LinkState::operational).orElse(false);
            if (!operational) {
                withdrawLink(link);
            }
            synchronized (this) {
                long now = System.nanoTime();
                returned.seen(link.index(), operational, now).ifPresent(until -> holdReturned(link, until, now));
                if (state.isEmpty() && !linksInUse.containsKey(link.index())) {
                    watched.remove(link.index());
                    returned.forget(link.index());
                }
            }
        }
    }

    /** Logs that {@code link} came back and answers nothing until {@code until}, and plans again then. */
    private void holdReturned(LinkInfo link, long until, long now) {
        long millis = Math.max(0, (until - now + 999_999) / 1_000_000);
        log.info(
                "interface {} is up again: answering nothing there for {} ms, until this node has heard whether its"
                        + " peers took its addresses",
                link.name(),
                millis);
        timer.schedule(replan, millis + 1, TimeUnit.MILLISECONDS);
    }

    private synchronized void withdrawLink(LinkInfo link) {
        Set<IpAddress> had = table.getOrDefault(link.index(), Set.of());
        InterfaceResponder responder = responders.get(link.index());
        if (had.isEmpty() || responder == null) {
            return;
        }
        withdrawQuietly(responder);
        Map<Integer, Set<IpAddress>> without = new HashMap<>(table);
        without.remove(link.index());
        table = Map.copyOf(without);
        listenForClaims();
        log.warn("interface {} is down or lost its carrier: stopped answering for {} there", link.name(), had);
        replan.run();
    }

    /** The addresses this node leaves alone because another host uses them. */
    Set<IpAddress> inConflict() {
        return conflicts.inConflict().stream()
                .filter(ip -> !conflicts.mayAnnounce(ip))
                .collect(Collectors.toUnmodifiableSet());
    }

    /** Hears other hosts claim what this node announces on {@code link}; without it, conflicts are seen at probe time only. */
    private void listen(LinkInfo link) {
        try {
            listeners.put(link.index(), ClaimListener.start(link, (on, ip, mac) -> conflicts.heard(on, ip, mac)));
        } catch (IOException e) {
            log.warn(
                    "cannot listen for other hosts using the addresses announced on {}: {}",
                    link.name(),
                    e.getMessage());
        }
    }

    private void listenForClaims() {
        listeners.forEach((index, listener) -> {
            try {
                listener.listenFor(table.getOrDefault(index, Set.of()));
            } catch (IOException e) {
                log.warn(
                        "cannot listen for other hosts using the addresses announced on {}: {}",
                        listener.link().name(),
                        e.getMessage());
            }
        });
    }

    /** Stops answering for {@code ip} on every interface now: another host insists on it. */
    synchronized void withdraw(IpAddress ip) {
        Map<Integer, Set<IpAddress>> without = new HashMap<>();
        table.forEach((index, ips) -> {
            Set<IpAddress> rest = new HashSet<>(ips);
            if (rest.remove(ip)) {
                InterfaceResponder responder = responders.get(index);
                if (responder != null) {
                    try {
                        responder.announce(rest);
                        if (!ip.isV4()) {
                            responder.leaveSolicitedNode(ip);
                        }
                    } catch (IOException e) {
                        withdrawQuietly(responder);
                        log.error(
                                "cannot set what interface {} answers for: {}",
                                responder.link().name(),
                                e.getMessage());
                        return;
                    }
                    log.info("stopped announcing {} on {}", ip, responder.link().name());
                }
            }
            without.put(index, rest);
        });
        table = freeze(without);
        listenForClaims();
    }

    /** One gratuitous ARP / unsolicited NA for {@code ip} from every interface that announces it. */
    void defend(IpAddress ip) {
        Map<Integer, InterfaceResponder> current;
        synchronized (this) {
            current = Map.copyOf(responders);
        }
        table.forEach((index, ips) -> {
            InterfaceResponder responder = current.get(index);
            if (responder != null && ips.contains(ip)) {
                send(responder, ip);
            }
        });
    }

    private void burst(InterfaceResponder responder, IpAddress ip) {
        for (Duration delay : options.takeoverBurst()) {
            if (delay.isZero()) {
                send(responder, ip);
            } else {
                timer.schedule(
                        () -> {
                            if (responder.announces(ip)) {
                                send(responder, ip);
                            }
                        },
                        delay.toMillis(),
                        TimeUnit.MILLISECONDS);
            }
        }
    }

    private void refresh() {
        Map<Integer, Set<IpAddress>> now = table;
        Map<Integer, InterfaceResponder> current;
        synchronized (this) {
            current = Map.copyOf(responders);
        }
        now.forEach((index, ips) -> {
            InterfaceResponder responder = current.get(index);
            if (responder != null) {
                ips.forEach(ip -> send(responder, ip));
            }
        });
    }

    private void send(InterfaceResponder responder, IpAddress ip) {
        try {
            responder.sendGratuitous(ip); // sends nothing while the fence has lapsed
        } catch (IOException | RuntimeException e) {
            log.warn(
                    "gratuitous announcement of {} on {} failed: {}",
                    ip,
                    responder.link().name(),
                    e.getMessage());
        }
    }

    /** Stops answering for everything at once (shutdown): the next node can take over without a duplicate answer. */
    synchronized void withdrawAll() {
        table = Map.of();
        responders.values().forEach(Announcer::withdrawQuietly);
        listenForClaims();
    }

    private static void withdrawQuietly(InterfaceResponder responder) {
        try {
            responder.announce(Set.of());
        } catch (IOException e) {
            // its address set is already empty, so it answers nothing; only its kernel filter is stale
            log.warn("withdrawing from {}: {}", responder.link().name(), e.getMessage());
        }
    }

    @Override
    public synchronized void close() {
        table = Map.of();
        timer.shutdownNow();
        responders.values().forEach(Announcer::closeQuietly);
        responders.clear();
        listeners.values().forEach(ClaimListener::close);
        listeners.clear();
    }

    private static void closeQuietly(InterfaceResponder responder) {
        try {
            responder.close();
        } catch (IOException e) {
            log.warn("closing the responder on {}: {}", responder.link().name(), e.getMessage());
        }
    }

    private static Map<Integer, Set<IpAddress>> freeze(Map<Integer, Set<IpAddress>> map) {
        Map<Integer, Set<IpAddress>> frozen = new HashMap<>();
        map.forEach((k, v) -> frozen.put(k, Set.copyOf(v)));
        return Map.copyOf(frozen);
    }
}
