package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import io.lbk8s.config.AddressPool;
import io.lbk8s.ipam.NextFree;
import io.lbk8s.net.AddressProbe;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.net.link.Links;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Probes, ahead of time, the addresses each pool would hand out next ({@link NextFree}), so that one another host uses
 * is reported ({@link Conflicts}, phase Probe, no Service) before the controller gives it to a Service: the controller
 * then skips it, and the Service's status never shows it. One speaker does it (the one on the node whose name sorts
 * first), every {@link #INTERVAL}, {@link #PER_POOL} addresses per pool, on its own thread; the probe before first
 * announcing stays, for the addresses this one did not reach.
 */
final class LookaheadProbes implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LookaheadProbes.class);
    static final Duration INTERVAL = Duration.ofSeconds(10);
    static final int PER_POOL = 2;

    private final Conflicts conflicts;
    private final ExecutorService runner = Executors.newSingleThreadExecutor(
            Thread.ofVirtual().name("lookahead-probes").factory());
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile long lastStart = System.nanoTime() - INTERVAL.toNanos();

    LookaheadProbes(Conflicts conflicts) {
        this.conflicts = conflicts;
    }

    /**
     * Starts a round if the last began {@link #INTERVAL} ago and none runs; never waits. {@code taken} is asked for
     * only then, on the caller's thread: at 10,000 Services gathering it costs milliseconds, and most plans start no
     * round.
     */
    void maybeProbe(List<AddressPool> pools, Supplier<Set<IpAddress>> taken) {
        if (System.nanoTime() - lastStart < INTERVAL.toNanos() || !running.compareAndSet(false, true)) {
            return;
        }
        lastStart = System.nanoTime();
        List<AddressPool> poolsNow = List.copyOf(pools);
        Set<IpAddress> takenNow = Set.copyOf(taken.get());
        try {
            runner.execute(() -> {
                try {
                    probe(poolsNow, takenNow);
                } catch (RuntimeException e) {
                    log.warn("probing the pools' next addresses failed", e);
                } finally {
                    running.set(false);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            running.set(false);
        }
    }

    private void probe(List<AddressPool> pools, Set<IpAddress> taken) {
        Set<IpAddress> skip = new HashSet<>(taken);
        skip.addAll(conflicts.inConflict()); // probed by the conflicts already, until they clear
        Set<IpAddress> next = new LinkedHashSet<>();
        pools.forEach(pool -> next.addAll(NextFree.of(pool, skip, PER_POOL)));
        List<LinkInfo> links = Links.list();
        Map<LinkInfo, Set<IpAddress>> byLink = new HashMap<>();
        for (IpAddress ip : next) {
            linkFor(links, ip)
                    .ifPresent(link -> byLink.computeIfAbsent(link, l -> new LinkedHashSet<>())
                            .add(ip));
        }
        Set<MacAddress> ours = new HashSet<>(conflicts.speakerMacs());
        links.forEach(l -> ours.add(l.mac()));
        byLink.forEach((link, ips) -> {
            try (AddressProbe probe = AddressProbe.open(link, ips.stream().anyMatch(ip -> !ip.isV4()))) {
                Map<IpAddress, MacAddress> answered = probe.inUse(ips, ours, SpeakerSettings.HANDOVER_QUIET);
                answered.forEach((ip, mac) -> conflicts.takeoverAnswered(link, ip, mac));
                log.debug("probed {} ahead on {}: {} in use", new ArrayList<>(ips), link.name(), answered.keySet());
            } catch (IOException e) {
                log.debug("cannot probe {} ahead on {}: {}", ips, link.name(), e.getMessage());
            }
        });
    }

    /** The interface on whose subnet the address lies: where its owner, if any, would answer. */
    private static Optional<LinkInfo> linkFor(List<LinkInfo> links, IpAddress ip) {
        return links.stream()
                .filter(l -> !l.loopback()
                        && l.operational()
                        && l.addresses().stream().anyMatch(a -> a.contains(ip)))
                .findFirst();
    }

    @Override
    public void close() {
        runner.shutdownNow();
    }
}
