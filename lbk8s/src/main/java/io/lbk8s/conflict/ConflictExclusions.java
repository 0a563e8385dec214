package io.lbk8s.conflict;

import io.lbk8s.address.IpAddress;
import io.lbk8s.ipam.ExcludedAddresses;
import io.lbk8s.service.ServiceKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Which addresses the speakers' conflicts keep from Services, and which Services keep theirs regardless. Pure.
 *
 * <p>A live conflict's address goes to no new Service: it joins the excluded addresses, with the conflict as its
 * reason, so that the allocator skips it and moves the Services that hold it. Unless {@link ConflictPolicy} says a
 * holder keeps it: then it stays out of the excluded addresses (it is held, so no other Service gets it anyway), and
 * the holders are told why they keep an address another host answers for. Sharers keep it together or move together.
 */
public final class ConflictExclusions {
    private ConflictExclusions() {}

    /** A Service that holds a conflicted address: whether it asked for it, and the policy it chose, if any. */
    public record Holder(ServiceKey service, boolean requested, Optional<ConflictPolicy> chosen) {}

    /** A Service that keeps an address another host answers for, and why. */
    public record Kept(ServiceKey service, AddressConflict conflict, String why) {}

    /**
     * @param excluded   the conflicted addresses no Service may hold, each with the conflict as its reason
     * @param kept       the Services that keep a conflicted address
     * @param live       every conflict that counts now
     * @param nextChange when the soonest of them turns stale, if any: the time to decide again
     */
    public record Result(
            ExcludedAddresses excluded, List<Kept> kept, List<AddressConflict> live, Optional<Instant> nextChange) {}

    public static Result of(
            Collection<AddressConflict> conflicts, Instant now, Function<IpAddress, List<Holder>> holdersOf) {
        ExcludedAddresses.Builder excluded = ExcludedAddresses.builder();
        List<Kept> kept = new ArrayList<>();
        List<AddressConflict> live = new ArrayList<>();
        Instant next = null;
        for (AddressConflict conflict : conflicts) {
            if (!conflict.liveAt(now)) {
                continue;
            }
            live.add(conflict);
            Instant stale = conflict.lastSeen().plus(AddressConflict.STALE_AFTER);
            next = next == null || stale.isBefore(next) ? stale : next;
            List<Holder> holders = holdersOf.apply(conflict.address());
            List<Kept> keeping = new ArrayList<>();
            String moveWhy = null;
            for (Holder holder : holders) {
                switch (ConflictPolicy.decide(conflict, holder.requested(), holder.chosen())) {
                    case ConflictPolicy.Decision.Keep keep ->
                        keeping.add(new Kept(holder.service(), conflict, keep.why()));
                    case ConflictPolicy.Decision.Move move -> moveWhy = move.why();
                }
            }
            if (!keeping.isEmpty()) {
                holders.stream()
                        .filter(h -> keeping.stream().noneMatch(k -> k.service().equals(h.service())))
                        .forEach(h -> keeping.add(new Kept(
                                h.service(),
                                conflict,
                                "it shares the address with "
                                        + keeping.getFirst().service() + ", which keeps it: "
                                        + keeping.getFirst().why())));
                kept.addAll(keeping);
            } else {
                excluded.add(conflict.address(), describe(conflict) + (moveWhy == null ? "" : "; " + moveWhy));
            }
        }
        return new Result(excluded.build(), List.copyOf(kept), List.copyOf(live), Optional.ofNullable(next));
    }

    /** "used by another host, 52:54:00:aa:bb:cc (seen by node a)". */
    public static String describe(AddressConflict conflict) {
        return "used by another host, " + conflict.mac() + " (seen by node " + conflict.node() + ")";
    }
}
