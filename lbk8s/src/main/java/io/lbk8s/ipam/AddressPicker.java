package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.service.AllocationRequest;
import io.lbk8s.text.Quoted;
import java.util.ArrayList;
import java.util.List;

/**
 * Chooses new addresses for a Service that names none: from the first candidate pool that has them, the lowest free
 * address of each family wanted, skipping IPv4 .0/.255 when the pool has avoidBuggyIPs. A Service with a sharing key
 * first looks, in candidate order, for a pool holding an address already used under the same key by Services it may
 * share with, and takes the lowest such address. Families as {@link Shape} says: dual-stack from the first candidate
 * pool that has both free; PreferDualStack falls back to one address of the first family some candidate has free.
 */
final class AddressPicker {

    private final Holdings holdings;

    AddressPicker(Holdings holdings) {
        this.holdings = holdings;
    }

    Choice choose(AllocationRequest request, List<PoolState> candidates) {
        Shape shape = Shape.of(request);
        if (request.sharingKey().isPresent()
                && !holdings.sharedUnder(request.sharingKey().get()).isEmpty()) {
            candidates = shareableFirst(request, candidates, shape);
        }
        if (shape.dual()) {
            IpFamily primary = shape.families().get(0);
            IpFamily secondary = shape.families().get(1);
            boolean anyDual = false;
            for (PoolState pool : candidates) {
                if (!pool.hasBothFamilies()) {
                    continue;
                }
                anyDual = true;
                IpAddress a = pick(pool, primary, request);
                IpAddress b = a == null ? null : pick(pool, secondary, request);
                if (b != null) {
                    return new Choice.Chosen(pool, List.of(a, b));
                }
            }
            if (shape.required()) {
                return new Choice.Refused(noDualPool(request, candidates, anyDual, primary, secondary));
            }
        }
        boolean familySeen = false;
        if (shape == Shape.ANY_SINGLE) {
            for (PoolState pool : candidates) {
                familySeen = true;
                for (IpFamily family : shape.families()) {
                    IpAddress ip = pick(pool, family, request);
                    if (ip != null) {
                        return new Choice.Chosen(pool, List.of(ip));
                    }
                }
            }
        }
        for (IpFamily family : shape == Shape.ANY_SINGLE ? List.<IpFamily>of() : shape.families()) {
            for (PoolState pool : candidates) {
                if (!pool.hasFamily(family)) {
                    continue;
                }
                familySeen = true;
                IpAddress ip = pick(pool, family, request);
                if (ip != null) {
                    return new Choice.Chosen(pool, List.of(ip));
                }
            }
        }
        if (!familySeen) {
            String wanted = shape.families().size() == 1 ? shape.families().getFirst() + " addresses" : "addresses";
            return new Choice.Refused(new Outcome.Failed(
                    FailureReason.FAMILY_UNAVAILABLE,
                    "no pool for this Service has " + wanted + " (" + FailureMessages.describeCandidates(candidates)
                            + ")"));
        }
        IpFamily only = shape.families().size() == 1 ? shape.families().getFirst() : null;
        List<PoolState> relevant = candidates.stream()
                .filter(p -> only == null || p.hasFamily(only))
                .toList();
        return new Choice.Refused(
                FailureMessages.exhausted(relevant, only, "no pool for this Service has a free address"));
    }

    /** Why a RequireDualStack Service gets nothing: no candidate has both families, or none has both free. */
    private Outcome.Failed noDualPool(
            AllocationRequest request,
            List<PoolState> candidates,
            boolean anyDual,
            IpFamily primary,
            IpFamily secondary) {
        if (!anyDual) {
            return new Outcome.Failed(
                    FailureReason.FAMILY_UNAVAILABLE,
                    "RequireDualStack needs an IPv4 and an IPv6 address from one pool, but no pool for this"
                            + " Service has both families (" + FailureMessages.describeCandidates(candidates) + ")");
        }
        List<String> each = new ArrayList<>();
        for (PoolState pool : candidates) {
            if (pool.hasBothFamilies()) {
                IpFamily full = pick(pool, primary, request) == null ? primary : secondary;
                each.add("pool " + Quoted.of(pool.name) + " has no free " + full + " address "
                        + FailureMessages.fullness(pool));
            }
        }
        return new Outcome.Failed(
                FailureReason.POOL_EXHAUSTED,
                each.size() == 1
                        ? each.getFirst()
                        : "no pool for this Service has both an IPv4 and an IPv6 address free: "
                                + String.join(", ", each));
    }

    private List<PoolState> shareableFirst(AllocationRequest request, List<PoolState> candidates, Shape shape) {
        List<PoolState> first = new ArrayList<>();
        List<PoolState> rest = new ArrayList<>();
        for (PoolState pool : candidates) {
            boolean found = false;
            for (IpFamily f : shape.families()) {
                found |= shareable(pool, f, request) != null;
            }
            (found ? first : rest).add(pool);
        }
        first.addAll(rest);
        return first;
    }

    /** The address of this family to give from this pool: a compatible shared one, else the lowest free one; or null. */
    IpAddress pick(PoolState pool, IpFamily family, AllocationRequest request) {
        if (!pool.hasFamily(family)) {
            return null;
        }
        IpAddress shared = shareable(pool, family, request);
        return shared != null ? shared : pool.lowestFree(family);
    }

    private IpAddress shareable(PoolState pool, IpFamily family, AllocationRequest request) {
        if (request.sharingKey().isEmpty()) {
            return null;
        }
        IpAddress best = null;
        for (IpAddress ip : holdings.sharedUnder(request.sharingKey().get())) {
            if (ip.family() == family
                    && (best == null || ip.compareTo(best) < 0)
                    && pool.usable(ip)
                    && holdings.conflict(request, ip) == null) {
                best = ip;
            }
        }
        return best;
    }
}
