package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.AddressProbe;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.link.LinkInfo;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the LAN about addresses this node is about to take ({@link AddressProbe}): the node that had one may still
 * answer (a frozen node's fence has not lapsed yet, the failure detector is cut between two live nodes, a host uses
 * it), and two MACs must never answer for one address. An address another MAC answers for (or probes for at the same
 * moment) is left alone and tried again after a pause that doubles from 50 ms up to 2 s.
 */
final class TakeoverProbes {
    private static final Logger log = LoggerFactory.getLogger(TakeoverProbes.class);
    private static final Duration FIRST_RETRY = Duration.ofMillis(50);
    private static final Duration LAST_RETRY = Duration.ofSeconds(2);
    private static final long LOG_AGAIN_NANOS = Duration.ofMinutes(1).toNanos();

    /** An address another host answered for when this node wanted to take it. */
    private record Deferral(int attempts, MacAddress answeredBy, long loggedAt) {}

    /**
     * @param contested the addresses another MAC answered for, each with that MAC (a speaker's, or a host's whose
     *                  address it is)
     * @param unprobed  the addresses the probe could not ask about (the interface went down meanwhile): not taken, and
     *                  nobody is blamed for them
     * @param retryAfter when to ask again, if any
     */
    record Verdict(Map<IpAddress, MacAddress> contested, Set<IpAddress> unprobed, Optional<Duration> retryAfter) {}

    /** Asks the LAN who answers for {@code ips} within {@code wait}, each with the MAC that did. */
    interface Asker {
        Map<IpAddress, MacAddress> inUse(LinkInfo link, Set<IpAddress> ips, Set<MacAddress> ours, Duration wait)
                throws IOException;
    }

    private static final Asker ON_THE_WIRE = (link, ips, ours, wait) -> {
        try (AddressProbe probe = AddressProbe.open(link, ips.stream().anyMatch(ip -> !ip.isV4()))) {
            return probe.inUse(ips, ours, wait);
        }
    };

    private final SpeakerMetrics metrics;
    private final Duration afterFailure;
    private final Asker asker;
    private final Map<IpAddress, Deferral> deferred = new HashMap<>();
    private int failedProbes;

    /** @param afterFailure how long to listen when the address comes from a node that fell silent; zero: never probe */
    TakeoverProbes(SpeakerMetrics metrics, Duration afterFailure) {
        this(metrics, afterFailure, ON_THE_WIRE);
    }

    TakeoverProbes(SpeakerMetrics metrics, Duration afterFailure, Asker asker) {
        this.metrics = metrics;
        this.afterFailure = afterFailure;
        this.asker = asker;
    }

    /**
     * Probes {@code fresh} on {@code link}: for {@code afterFailure} when every one comes from a node that fell silent
     * (its fence has lapsed), else for {@link SpeakerSettings#HANDOVER_QUIET}, so that a node handing an address over
     * has been silent that long before this one answers. {@code ours} are this node's MACs.
     */
    Verdict probe(LinkInfo link, Set<IpAddress> fresh, Set<IpAddress> fromFailedNodes, Set<MacAddress> ours) {
        if (afterFailure.isZero() || fresh.isEmpty()) {
            return new Verdict(Map.of(), Set.of(), Optional.empty());
        }
        Duration wait =
                fromFailedNodes.containsAll(fresh) ? afterFailure : max(afterFailure, SpeakerSettings.HANDOVER_QUIET);
        Map<IpAddress, MacAddress> inUse;
        try {
            inUse = asker.inUse(link, fresh, ours, wait);
            failedProbes = 0;
        } catch (IOException e) {
            Duration pause = doubled(++failedProbes);
            log.warn(
                    "cannot probe {} on {} before taking them ({}); trying again in {} ms",
                    fresh,
                    link.name(),
                    e.getMessage(),
                    pause.toMillis());
            return new Verdict(Map.of(), Set.copyOf(fresh), Optional.of(pause));
        }
        Duration retry = null;
        for (var answered : inUse.entrySet()) {
            Duration pause = defer(answered.getKey(), answered.getValue(), link);
            retry = retry == null || pause.compareTo(retry) < 0 ? pause : retry;
        }
        fresh.stream().filter(ip -> !inUse.containsKey(ip)).forEach(deferred::remove);
        return new Verdict(Map.copyOf(inUse), Set.of(), Optional.ofNullable(retry));
    }

    /** Forgets the addresses this node no longer wants. */
    void keepOnly(Set<IpAddress> wanted) {
        deferred.keySet().retainAll(wanted);
    }

    private Duration defer(IpAddress ip, MacAddress answeredBy, LinkInfo link) {
        Deferral last = deferred.get(ip);
        int attempts = last == null ? 1 : last.attempts() + 1;
        long now = System.nanoTime();
        boolean tell = last == null || !last.answeredBy().equals(answeredBy) || now - last.loggedAt() > LOG_AGAIN_NANOS;
        deferred.put(ip, new Deferral(attempts, answeredBy, tell ? now : last.loggedAt()));
        metrics.takeoverDeferred();
        Duration pause = doubled(attempts);
        if (tell) {
            log.info(
                    "not taking {} on {} yet: {} answers for it (the node that had it has not stopped yet, or another host"
                            + " uses it); trying again in {} ms",
                    ip,
                    link.name(),
                    answeredBy,
                    pause.toMillis());
        }
        return pause;
    }

    /** The pause after the {@code attempts}-th time in a row: 50 ms, doubling up to 2 s. */
    private static Duration doubled(int attempts) {
        Duration pause = FIRST_RETRY.multipliedBy(1L << Math.min(attempts - 1, 10));
        return pause.compareTo(LAST_RETRY) > 0 ? LAST_RETRY : pause;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
