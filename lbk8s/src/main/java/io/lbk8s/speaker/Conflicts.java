package io.lbk8s.speaker;

import io.fabric8.kubernetes.api.model.Service;
import io.lbk8s.address.IpAddress;
import io.lbk8s.conflict.AddressConflict;
import io.lbk8s.conflict.ConflictWatch;
import io.lbk8s.kube.AddressConflicts;
import io.lbk8s.kube.EventRecorder;
import io.lbk8s.net.AddressProbe;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.net.link.Links;
import io.lbk8s.service.ServiceKey;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The speaker's shell around {@link ConflictWatch}: it feeds it what the takeover probes and the claim listeners
 * heard, probes the addresses in conflict when they are due, and does what it says: an Event on the Service, the
 * AddressConflict object (written in order on a thread of its own, so that the API server never delays the LAN), the
 * metric, a defence, a withdrawal, a new plan. Other speakers' MACs are never a conflict: a node handing an address
 * over (or one whose kernel still answers until its fence lapses) is not another host.
 */
final class Conflicts implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Conflicts.class);
    static final String REASON = "AddressConflict";
    static final String CLEARED = "AddressConflictCleared";
    /** The shortest wait between two rounds of probes, so that an address whose probe keeps failing is no busy loop. */
    private static final Duration MIN_WAIT = Duration.ofMillis(25);

    private static final Duration AFTER_PROBE_FAILURE = Duration.ofSeconds(1);

    /** What the conflicts need of the rest of the speaker. */
    interface Hooks {
        boolean leads(IpAddress ip);

        Optional<Service> serviceOf(IpAddress ip);

        /** Stop answering for {@code ip} now. */
        void withdraw(IpAddress ip);

        /** One gratuitous ARP / unsolicited NA for {@code ip} from this node. */
        void defend(IpAddress ip);

        /** Plan again: an address may be announced again. */
        void replan();
    }

    private final String node;
    private final SpeakerMetrics metrics;
    private final EventRecorder events;
    private final Optional<AddressConflicts> store;
    private final Hooks hooks;
    private final ConflictWatch watch = new ConflictWatch(); // guarded by this
    private final Map<IpAddress, LinkInfo> links = new HashMap<>(); // guarded by this: where each conflict is probed
    private final Map<IpAddress, Instant> probeFailedUntil = new HashMap<>(); // guarded by this
    private ScheduledFuture<?> wakeUp; // guarded by this: the next round of probes, none while nothing is in conflict
    private final ScheduledExecutorService timer;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(
            Thread.ofVirtual().name("conflict-writer").factory());
    private volatile Set<MacAddress> speakerMacs = Set.of();

    Conflicts(
            String node, SpeakerMetrics metrics, EventRecorder events, Optional<AddressConflicts> store, Hooks hooks) {
        this.node = node;
        this.metrics = metrics;
        this.events = events;
        this.store = store;
        this.hooks = hooks;
        this.timer = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("conflict-probes").daemon().factory());
    }

    /** The MACs of every speaker's interfaces (their node-network annotations), this node's included. */
    void speakerMacs(Set<MacAddress> macs) {
        speakerMacs = Set.copyOf(macs);
    }

    Set<MacAddress> speakerMacs() {
        return speakerMacs;
    }

    boolean isSpeaker(MacAddress mac) {
        return speakerMacs.contains(mac);
    }

    synchronized boolean mayAnnounce(IpAddress ip) {
        return watch.mayAnnounce(ip);
    }

    /** Conflicts this node reported before it restarted: probed again, so that they still clear. */
    void adopt(List<AddressConflict> reportedHere, List<LinkInfo> nodeLinks) {
        Instant now = Instant.now();
        for (AddressConflict conflict : reportedHere) {
            Optional<LinkInfo> link = nodeLinks.stream()
                    .filter(l -> !l.loopback()
                            && l.operational()
                            && l.addresses().stream().anyMatch(a -> a.contains(conflict.address())))
                    .findFirst();
            if (link.isEmpty()) {
                continue; // nowhere to probe it from: it turns stale
            }
            synchronized (this) {
                watch.adopt(conflict, now);
                links.put(conflict.address(), link.get());
            }
            metrics.conflict(conflict.address(), true);
            log.info(
                    "probing {} again: this node reported another host ({}) using it before it restarted",
                    conflict.address(),
                    conflict.mac());
        }
        wakeAtNextProbe();
    }

    /**
     * The probe before taking {@code ip} heard {@code mac} answer: a conflict unless it is a speaker's. Returns
     * whether it was one.
     */
    boolean takeoverAnswered(LinkInfo link, IpAddress ip, MacAddress mac) {
        if (isSpeaker(mac)) {
            return false;
        }
        List<ConflictWatch.Action> actions;
        synchronized (this) {
            links.put(ip, link);
            actions = watch.probed(ip, Optional.of(mac.toString()), Instant.now(), hooks.leads(ip));
        }
        perform(actions);
        wakeAtNextProbe();
        return true;
    }

    /** A claim listener heard {@code mac} claim {@code ip}, which this node announces. */
    void heard(LinkInfo link, IpAddress ip, MacAddress mac) {
        if (isSpeaker(mac)) {
            return;
        }
        List<ConflictWatch.Action> actions;
        synchronized (this) {
            links.put(ip, link);
            actions = watch.heard(ip, mac.toString(), Instant.now());
        }
        perform(actions);
        wakeAtNextProbe();
    }

    /** Schedules the next round of probes for when the first address in conflict is due; none while there is none. */
    private synchronized void wakeAtNextProbe() {
        if (wakeUp != null) {
            wakeUp.cancel(false);
            wakeUp = null;
        }
        Optional<Instant> next = watch.entries().values().stream()
                .map(e -> latest(e.nextProbe(), probeFailedUntil.getOrDefault(e.ip(), Instant.MIN)))
                .min(Instant::compareTo);
        if (next.isPresent()) {
            long wait = Math.max(
                    MIN_WAIT.toMillis(),
                    Duration.between(Instant.now(), next.get()).toMillis());
            try {
                wakeUp = timer.schedule(this::probeDue, wait, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                log.debug("closed; not probing the addresses in conflict again");
            }
        }
    }

    private static Instant latest(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    private void probeDue() {
        try {
            Instant now = Instant.now();
            Map<LinkInfo, Set<IpAddress>> due = new HashMap<>();
            synchronized (this) {
                for (IpAddress ip : watch.dueAt(now)) {
                    if (probeFailedUntil.getOrDefault(ip, Instant.MIN).isAfter(now)) {
                        continue;
                    }
                    LinkInfo link = links.get(ip);
                    if (link == null) {
                        watch.forget(ip);
                    } else {
                        due.computeIfAbsent(link, l -> new HashSet<>()).add(ip);
                    }
                }
            }
            due.forEach(this::probe);
        } catch (RuntimeException e) {
            log.warn("probing addresses in conflict failed", e);
        } finally {
            wakeAtNextProbe();
        }
    }

    private void probe(LinkInfo link, Set<IpAddress> ips) {
        Optional<LinkInfo> current =
                Links.byIndex(link.index()).filter(l -> l.mac().equals(link.mac()));
        if (current.isEmpty()) {
            synchronized (this) {
                ips.forEach(watch::forget);
            }
            ips.forEach(ip -> metrics.conflict(ip, false));
            log.warn("interface {} is gone: no longer probing {} (their conflicts turn stale)", link.name(), ips);
            return;
        }
        Set<MacAddress> ours = new HashSet<>(speakerMacs);
        Links.list().forEach(l -> ours.add(l.mac()));
        Map<IpAddress, MacAddress> answered;
        try (AddressProbe probe = AddressProbe.open(link, ips.stream().anyMatch(ip -> !ip.isV4()))) {
            answered = probe.inUse(ips, ours, SpeakerSettings.HANDOVER_QUIET);
        } catch (IOException e) {
            log.warn(
                    "cannot probe {} on {} ({}); trying again in {} s",
                    ips,
                    link.name(),
                    e.getMessage(),
                    AFTER_PROBE_FAILURE.toSeconds());
            Instant until = Instant.now().plus(AFTER_PROBE_FAILURE);
            synchronized (this) {
                ips.forEach(ip -> probeFailedUntil.put(ip, until));
            }
            return;
        }
        synchronized (this) {
            ips.forEach(probeFailedUntil::remove);
        }
        Instant now = Instant.now();
        for (IpAddress ip : ips) {
            List<ConflictWatch.Action> actions;
            synchronized (this) {
                actions = watch.probed(
                        ip, Optional.ofNullable(answered.get(ip)).map(MacAddress::toString), now, hooks.leads(ip));
            }
            perform(actions);
        }
    }

    private void perform(List<ConflictWatch.Action> actions) {
        for (ConflictWatch.Action action : actions) {
            switch (action) {
                case ConflictWatch.Report report -> report(report);
                case ConflictWatch.Defend defend -> {
                    log.warn("defending {}: one gratuitous announcement from this node", defend.ip());
                    hooks.defend(defend.ip());
                }
                case ConflictWatch.Withdraw withdraw -> {
                    hooks.withdraw(withdraw.ip());
                    String message = "another host, MAC " + withdraw.mac() + ", still answers for " + withdraw.ip()
                            + " after node " + node + " defended it: node " + node
                            + " stopped announcing it, and announces it again once it is quiet";
                    log.warn("{}", message);
                    hooks.serviceOf(withdraw.ip())
                            .ifPresent(s -> events.record(s, EventRecorder.Type.Warning, REASON, message));
                    hooks.replan();
                }
                case ConflictWatch.Clear clear -> clear(clear);
            }
        }
    }

    private void report(ConflictWatch.Report report) {
        IpAddress ip = report.ip();
        metrics.conflict(ip, true);
        Optional<Service> service = hooks.serviceOf(ip);
        if (report.first()) {
            String protocol = ip.isV4() ? "ARP" : "neighbor discovery";
            String message = report.phase() == AddressConflict.Phase.Probe
                    ? "another host, MAC " + report.mac() + ", answers " + protocol + " for " + ip
                            + " on the network of node " + node + ": node " + node
                            + " does not announce it while that host uses it, and probes it until it is quiet"
                    : "another host, MAC " + report.mac() + ", claimed " + ip + " while node " + node
                            + " announced it: node " + node
                            + " defended it once, and stops announcing it if that host answers again within "
                            + ConflictWatch.DEFEND_INTERVAL.toSeconds() + " s";
            log.warn("{}", message);
            service.ifPresent(s -> events.record(s, EventRecorder.Type.Warning, REASON, message));
        }
        Optional<ServiceKey> key = service.map(s ->
                new ServiceKey(s.getMetadata().getNamespace(), s.getMetadata().getName()));
        AddressConflict conflict = new AddressConflict(
                ip, report.mac(), node, report.phase(), key, report.firstSeen(), report.lastSeen(), "");
        write("report the conflict on " + ip, api -> api.report(conflict));
    }

    private void clear(ConflictWatch.Clear clear) {
        IpAddress ip = clear.ip();
        metrics.conflict(ip, false);
        boolean leads = hooks.leads(ip);
        String message =
                ip + " is quiet again (" + ConflictWatch.QUIET_PROBES + " probes unanswered): the conflict with MAC "
                        + clear.mac() + " is over" + (leads ? "; node " + node + " announces it" : "");
        log.info("{}", message);
        hooks.serviceOf(ip)
                .ifPresent(s -> events.recordInsteadOf(s, REASON, EventRecorder.Type.Normal, CLEARED, message));
        write("clear the conflict on " + ip, api -> api.clear(ip));
        hooks.replan();
    }

    private interface Write {
        void to(AddressConflicts api);
    }

    private void write(String what, Write write) {
        store.ifPresent(api -> {
            try {
                writer.execute(() -> {
                    try {
                        write.to(api);
                    } catch (RuntimeException e) {
                        log.warn("could not {}: {}", what, e.getMessage());
                    }
                });
            } catch (RejectedExecutionException e) {
                log.debug("closed; could not {}", what);
            }
        });
    }

    synchronized Set<IpAddress> inConflict() {
        return watch.entries().keySet().stream().collect(Collectors.toUnmodifiableSet());
    }

    /** Stops probing; the conflicts stay in the API (they turn stale unless a speaker refreshes them). */
    @Override
    public void close() {
        timer.shutdownNow();
        writer.shutdown();
        try {
            writer.awaitTermination(3, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
