package io.lbk8s.conflict;

import io.lbk8s.address.IpAddress;
import io.lbk8s.conflict.AddressConflict.Phase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * One speaker's address conflicts: another host (a MAC that is no speaker's) answers for a pool address. Pure: the
 * speaker feeds it what its probes and its listener heard, and does what it returns.
 *
 * <p>An address answered at probe time is never announced ({@link Phase#Probe}, {@link Stage#WITHDRAWN}). One claimed
 * by another host while this node announces it is defended once, as RFC 5227 section 2.4 (b) allows: a gratuitous ARP /
 * unsolicited NA from our MAC ({@link Stage#DEFENDED}), and then probed; when the other host answers again within
 * {@link #DEFEND_INTERVAL}, this node stops announcing it ({@link Stage#WITHDRAWN}). Either way the address is probed
 * again and again (every {@link #FIRST_RETRY}, doubling to {@link #LAST_RETRY} while the other host answers; every
 * {@link #NOT_LED_RETRY} once this node no longer leads it), and {@link #QUIET_PROBES} unanswered probes in a row
 * clear the conflict: the other host has left.
 */
public final class ConflictWatch {
    /** RFC 5227's DEFEND_INTERVAL: a second claim this soon after our defence makes us give the address up. */
    public static final Duration DEFEND_INTERVAL = Duration.ofSeconds(10);
    /** Unanswered probes in a row that clear a conflict. */
    public static final int QUIET_PROBES = 3;

    public static final Duration FIRST_RETRY = Duration.ofMillis(50);
    public static final Duration LAST_RETRY = Duration.ofSeconds(2);
    /** After an unanswered probe: the next one soon, so that a host that left is noticed within about a second. */
    public static final Duration AFTER_QUIET = Duration.ofMillis(200);
    /** How often an address this node no longer leads is probed, so that the conflict it reported still clears. */
    public static final Duration NOT_LED_RETRY = Duration.ofSeconds(5);

    public enum Stage {
        /** This node announces it, has defended it once, and probes it to see whether the other host insists. */
        DEFENDED,
        /** This node does not announce it while the conflict lasts. */
        WITHDRAWN
    }

    /**
     * @param answered  probes and claims answered by the other host in a row, for the backoff
     * @param quiet     unanswered probes in a row
     * @param reportedAt when the conflict was last written, for the refresh every {@link AddressConflict#REFRESH}
     */
    public record Entry(
            IpAddress ip,
            Phase phase,
            Stage stage,
            String mac,
            Instant firstSeen,
            Instant lastSeen,
            Instant reportedAt,
            Instant defendedAt,
            int answered,
            int quiet,
            Instant nextProbe) {}

    /** What the speaker must do. */
    public sealed interface Action {
        IpAddress ip();
    }

    /** Write the conflict (create, or refresh lastSeen); {@code first} when it has just begun: say so (Event, log). */
    public record Report(IpAddress ip, Phase phase, String mac, Instant firstSeen, Instant lastSeen, boolean first)
            implements Action {}

    /** Send one gratuitous ARP / unsolicited NA for the address from our MAC. */
    public record Defend(IpAddress ip) implements Action {}

    /** Stop answering for the address. */
    public record Withdraw(IpAddress ip, String mac) implements Action {}

    /** The other host has left: delete the conflict, say so, and announce the address again if this node leads it. */
    public record Clear(IpAddress ip, Phase phase, String mac) implements Action {}

    private final Map<IpAddress, Entry> entries = new HashMap<>();

    /** What a probe of {@code ip} heard: {@code answeredBy} the other host's MAC, or empty when nobody answered. */
    public List<Action> probed(IpAddress ip, Optional<String> answeredBy, Instant now, boolean leads) {
        Entry entry = entries.get(ip);
        if (answeredBy.isEmpty()) {
            if (entry == null) {
                return List.of();
            }
            if (entry.quiet() + 1 >= QUIET_PROBES) {
                entries.remove(ip);
                return List.of(new Clear(ip, entry.phase(), entry.mac()));
            }
            entries.put(
                    ip,
                    new Entry(
                            ip,
                            entry.phase(),
                            entry.stage(),
                            entry.mac(),
                            entry.firstSeen(),
                            entry.lastSeen(),
                            entry.reportedAt(),
                            entry.defendedAt(),
                            0,
                            entry.quiet() + 1,
                            now.plus(leads ? AFTER_QUIET : NOT_LED_RETRY)));
            return List.of();
        }
        String mac = answeredBy.get();
        if (entry == null) {
            entries.put(
                    ip,
                    new Entry(
                            ip,
                            Phase.Probe,
                            Stage.WITHDRAWN,
                            mac,
                            now,
                            now,
                            now,
                            Instant.MIN,
                            1,
                            0,
                            now.plus(retry(1, leads))));
            return List.of(new Report(ip, Phase.Probe, mac, now, now, true));
        }
        return claimedAgain(entry, mac, now, leads);
    }

    /**
     * Another host claimed {@code ip} while this node announces it (a reply, a gratuitous ARP, an advertisement with
     * its MAC): the first time, report and defend.
     */
    public List<Action> heard(IpAddress ip, String mac, Instant now) {
        Entry entry = entries.get(ip);
        if (entry == null) {
            entries.put(
                    ip,
                    new Entry(
                            ip, Phase.Announced, Stage.DEFENDED, mac, now, now, now, now, 1, 0, now.plus(AFTER_QUIET)));
            return List.of(new Report(ip, Phase.Announced, mac, now, now, true), new Defend(ip));
        }
        return claimedAgain(entry, mac, now, true);
    }

    private List<Action> claimedAgain(Entry entry, String mac, Instant now, boolean leads) {
        List<Action> actions = new ArrayList<>();
        Stage stage = entry.stage();
        Instant defendedAt = entry.defendedAt();
        if (stage == Stage.DEFENDED) {
            if (Duration.between(defendedAt, now).compareTo(DEFEND_INTERVAL) <= 0) {
                stage = Stage.WITHDRAWN;
                actions.add(new Withdraw(entry.ip(), mac));
            } else {
                defendedAt = now; // long after the last defence: defend once more (RFC 5227 2.4 (b))
                actions.add(new Defend(entry.ip()));
            }
        }
        boolean refresh = !mac.equals(entry.mac())
                || !now.isBefore(entry.reportedAt().plus(AddressConflict.REFRESH))
                || !actions.isEmpty();
        int answered = entry.answered() + 1;
        entries.put(
                entry.ip(),
                new Entry(
                        entry.ip(),
                        entry.phase(),
                        stage,
                        mac,
                        entry.firstSeen(),
                        now,
                        refresh ? now : entry.reportedAt(),
                        defendedAt,
                        answered,
                        0,
                        now.plus(stage == Stage.DEFENDED ? AFTER_QUIET : retry(answered, leads))));
        if (refresh) {
            actions.addFirst(new Report(entry.ip(), entry.phase(), mac, entry.firstSeen(), now, false));
        }
        return actions;
    }

    private static Duration retry(int answered, boolean leads) {
        if (!leads) {
            return NOT_LED_RETRY;
        }
        Duration pause = FIRST_RETRY.multipliedBy(1L << Math.min(answered - 1, 10));
        return pause.compareTo(LAST_RETRY) > 0 ? LAST_RETRY : pause;
    }

    /** Whether this node may answer for {@code ip}: no conflict, or one it is defending. */
    public boolean mayAnnounce(IpAddress ip) {
        Entry entry = entries.get(ip);
        return entry == null || entry.stage() == Stage.DEFENDED;
    }

    /** The addresses due for a probe at {@code now}. */
    public Set<IpAddress> dueAt(Instant now) {
        Set<IpAddress> due = new TreeSet<>();
        entries.values().stream().filter(e -> !e.nextProbe().isAfter(now)).forEach(e -> due.add(e.ip()));
        return due;
    }

    /** When the next probe is due, if any conflict lasts. */
    public Optional<Instant> nextProbe() {
        return entries.values().stream().map(Entry::nextProbe).min(Instant::compareTo);
    }

    /**
     * Takes up a conflict this node reported before it restarted, so that it still clears once the other host has
     * left: not announced, probed at once.
     */
    public void adopt(AddressConflict conflict, Instant now) {
        entries.putIfAbsent(
                conflict.address(),
                new Entry(
                        conflict.address(),
                        conflict.phase(),
                        Stage.WITHDRAWN,
                        conflict.mac(),
                        conflict.firstSeen(),
                        conflict.lastSeen(),
                        conflict.lastSeen(),
                        Instant.MIN,
                        1,
                        0,
                        now));
    }

    /** Forgets {@code ip} without clearing it (it can no longer be probed here: its report turns stale). */
    public void forget(IpAddress ip) {
        entries.remove(ip);
    }

    public Optional<Entry> entry(IpAddress ip) {
        return Optional.ofNullable(entries.get(ip));
    }

    public Map<IpAddress, Entry> entries() {
        return Map.copyOf(entries);
    }
}
