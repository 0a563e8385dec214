package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.ArpPacket;
import io.lbk8s.net.BpfProgram;
import io.lbk8s.net.InterfaceResponder;
import io.lbk8s.net.L2Listener;
import io.lbk8s.net.LinkInfo;
import io.lbk8s.net.Links;
import io.lbk8s.net.PacketSocket;
import io.lbk8s.net.ResponderOptions;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a {@link NodePlan} to the wire: keeps one ARP/NDP responder per interface in use, hands each the addresses
 * it answers for (a responder swaps them in with one volatile write, so leadership lost is answering stopped at
 * once), and sends gratuitous ARP / unsolicited NA when this node takes an address, in a short burst and then
 * periodically.
 */
final class Announcer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Announcer.class);

    record Options(List<Duration> takeoverBurst, Duration refreshInterval, ResponderOptions responder) {
        Options {
            takeoverBurst = List.copyOf(takeoverBurst);
        }
    }

    private final L2Listener listener;
    private final Options options;
    private final ScheduledExecutorService timer;

    /** ifindex to the addresses answered there, as last handed to the responders; replaced whole. */
    private volatile Map<Integer, Set<IpAddress>> table = Map.of();

    // Owned by the caller's (reconcile) thread, and by the timer for refresh reads.
    private final Map<Integer, InterfaceResponder> responders = new HashMap<>();
    private final Map<Integer, LinkInfo> linksInUse = new HashMap<>();
    private volatile String rawSocketFailure;
    private volatile String responderFailure;

    Announcer(L2Listener listener, Options options) {
        this.listener = listener;
        this.options = options;
        this.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("gratuitous").daemon().factory());
        if (!options.refreshInterval().isZero()) {
            long every = options.refreshInterval().toMillis();
            timer.scheduleAtFixedRate(this::refresh, every, every, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Opens and closes a raw socket on loopback, so that a speaker without CAP_NET_RAW says so in /readyz at start
     * rather than when it first leads an address.
     */
    void checkRawSockets() {
        try {
            LinkInfo loopback = Links.list().stream().filter(LinkInfo::loopback).findFirst()
                    .orElseThrow(() -> new IOException("no loopback interface in this network namespace"));
            try (PacketSocket probe = PacketSocket.open(loopback, ArpPacket.ETHERTYPE, BpfProgram.arpRequests(), Duration.ofMillis(10))) {
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

    synchronized void apply(NodePlan plan) {
        Map<Integer, Set<IpAddress>> next = new HashMap<>();
        Map<Integer, LinkInfo> links = new HashMap<>();
        for (NodePlan.Announced announced : plan.announced().values()) {
            for (LinkInfo link : announced.links()) {
                next.computeIfAbsent(link.index(), i -> new HashSet<>()).add(announced.ip());
                links.put(link.index(), link);
            }
        }
        Map<Integer, Set<IpAddress>> before = table;
        String problem = null;
        for (LinkInfo link : links.values()) {
            InterfaceResponder existing = responders.get(link.index());
            if (existing != null && !linksInUse.get(link.index()).mac().equals(link.mac())) {
                closeQuietly(existing); // the interface was replaced (same index, new MAC): answer with the new MAC
                responders.remove(link.index());
            }
            if (!responders.containsKey(link.index())) {
                try {
                    InterfaceResponder responder = InterfaceResponder.start(link, listener, options.responder());
                    responders.put(link.index(), responder);
                    log.info("answering ARP and NDP on interface {} ({}, index {}); ARP {}", link.name(), link.mac(), link.index(),
                            responder.answersArpInKernel() ? "in the kernel (XDP)"
                                    : "from the raw socket (in the kernel: " + responder.arpInKernelProblem() + ")");
                } catch (IOException e) {
                    problem = e.getMessage();
                    log.error("cannot answer on interface {}: {}", link.name(), e.getMessage());
                    next.remove(link.index());
                }
            }
            linksInUse.put(link.index(), link);
        }
        for (var entry : responders.entrySet()) {
            LinkInfo link = linksInUse.get(entry.getKey());
            try {
                entry.getValue().announce(next.getOrDefault(entry.getKey(), Set.of()));
            } catch (IOException e) {
                problem = e.getMessage();
                log.error("cannot set what interface {} answers for: {}", link.name(), e.getMessage());
                next.remove(entry.getKey());
                withdrawQuietly(entry.getValue());
            }
        }
        responderFailure = problem;
        table = freeze(next);

        for (var entry : table.entrySet()) {
            InterfaceResponder responder = responders.get(entry.getKey());
            Set<IpAddress> had = before.getOrDefault(entry.getKey(), Set.of());
            for (IpAddress ip : entry.getValue()) {
                if (!had.contains(ip)) {
                    LinkInfo link = linksInUse.get(entry.getKey());
                    log.info("announcing {} on {} ({})", ip, link.name(), link.mac());
                    if (!ip.isV4()) {
                        try {
                            responder.joinSolicitedNode(ip);
                        } catch (IOException e) {
                            log.warn("cannot join the solicited-node group of {} on {} (switches with MLD snooping may not forward"
                                    + " its solicitations): {}", ip, link.name(), e.getMessage());
                        }
                    }
                    burst(responder, ip);
                }
            }
        }
        for (var entry : before.entrySet()) {
            Set<IpAddress> now = table.getOrDefault(entry.getKey(), Set.of());
            InterfaceResponder responder = responders.get(entry.getKey());
            for (IpAddress ip : entry.getValue()) {
                if (!now.contains(ip)) {
                    log.info("stopped announcing {} on {}", ip, linksInUse.get(entry.getKey()).name());
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
                Thread.ofVirtual().name("close-" + idle.link().name()).start(() -> closeQuietly(idle));
                linksInUse.remove(entry.getKey());
                it.remove();
            }
        }
    }

    private void burst(InterfaceResponder responder, IpAddress ip) {
        for (Duration delay : options.takeoverBurst()) {
            if (delay.isZero()) {
                send(responder, ip);
            } else {
                timer.schedule(() -> {
                    if (responder.announces(ip)) {
                        send(responder, ip);
                    }
                }, delay.toMillis(), TimeUnit.MILLISECONDS);
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
            responder.sendGratuitous(ip);
        } catch (IOException | RuntimeException e) {
            log.warn("gratuitous announcement of {} on {} failed: {}", ip, responder.link().name(), e.getMessage());
        }
    }

    /** Stops answering for everything at once (shutdown): the next node can take over without a duplicate answer. */
    synchronized void withdrawAll() {
        table = Map.of();
        responders.values().forEach(Announcer::withdrawQuietly);
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
