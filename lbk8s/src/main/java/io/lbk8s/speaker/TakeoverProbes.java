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
import java.util.stream.Collectors;
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
     *                  address it is); {@code retryAfter} when to ask again, if any
     */
    record Verdict(Map<IpAddress, MacAddress> contested, Optional<Duration> retryAfter) {}

    private final SpeakerMetrics metrics;
    private final Duration afterFailure;
    private final Map<IpAddress, Deferral> deferred = new HashMap<>();

    /** @param afterFailure how long to listen when the address comes from a node that fell silent; zero: never probe */
    TakeoverProbes(SpeakerMetrics metrics, Duration afterFailure) {
        this.metrics = metrics;
        this.afterFailure = afterFailure;
    }

    /**
     * Probes {@code fresh} on {@code link}: for {@code afterFailure} when every one comes from a node that fell silent
     * (its fence has lapsed), else for {@link SpeakerSettings#HANDOVER_QUIET}, so that a node handing an address over
     * has been silent that long before this one answers. {@code ours} are this node's MACs.
     */
    Verdict probe(LinkInfo link, Set<IpAddress> fresh, Set<IpAddress> fromFailedNodes, Set<MacAddress> ours) {
        if (afterFailure.isZero() || fresh.isEmpty()) {
            return new Verdict(Map.of(), Optional.empty());
        }
        Duration wait =
                fromFailedNodes.containsAll(fresh) ? afterFailure : max(afterFailure, SpeakerSettings.HANDOVER_QUIET);
        Map<IpAddress, MacAddress> inUse = inUse(link, fresh, ours, wait);
        Duration retry = null;
        for (var answered : inUse.entrySet()) {
            Duration pause = defer(answered.getKey(), answered.getValue(), link);
            retry = retry == null || pause.compareTo(retry) < 0 ? pause : retry;
        }
        fresh.stream().filter(ip -> !inUse.containsKey(ip)).forEach(deferred::remove);
        return new Verdict(Map.copyOf(inUse), Optional.ofNullable(retry));
    }

    private static Map<IpAddress, MacAddress> inUse(
            LinkInfo link, Set<IpAddress> fresh, Set<MacAddress> ours, Duration wait) {
        try (AddressProbe probe = AddressProbe.open(link, fresh.stream().anyMatch(ip -> !ip.isV4()))) {
            return probe.inUse(fresh, ours, wait);
        } catch (IOException e) {
            log.warn("cannot probe {} on {} before taking them ({}); trying again", fresh, link.name(), e.getMessage());
            return fresh.stream().collect(Collectors.toMap(ip -> ip, ip -> MacAddress.ZERO));
        }
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
        Duration pause = FIRST_RETRY.multipliedBy(1L << Math.min(attempts - 1, 10));
        pause = pause.compareTo(LAST_RETRY) > 0 ? LAST_RETRY : pause;
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

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
