package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.service.AllocationRequest;
import io.lbk8s.service.FamilyPolicy;
import io.lbk8s.text.Quoted;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/**
 * The addresses a Service names (annotation or loadBalancerIP): whether the request contradicts itself, and whether
 * it gets them: all from one pool (the requested one, if any) that allows the Service, neither forbidden by
 * avoidBuggyIPs nor excluded, nor held by a Service it may not share with.
 */
final class RequestedAddresses {

    private final Pools pools;
    private final Holdings holdings;
    private final ExcludedAddresses excluded;

    RequestedAddresses(Pools pools, Holdings holdings, ExcludedAddresses excluded) {
        this.pools = pools;
        this.holdings = holdings;
        this.excluded = excluded;
    }

    /** Contradictions within the request itself (only requested IPs can contradict), or null. */
    static Outcome.Failed contradiction(AllocationRequest request) {
        if (request.requestedIps().isEmpty()) {
            return null;
        }
        List<IpAddress> ips = new ArrayList<>(new LinkedHashSet<>(request.requestedIps()));
        for (IpFamily family : IpFamily.values()) {
            List<IpAddress> of =
                    ips.stream().filter(ip -> ip.family() == family).toList();
            if (of.size() > 1) {
                return new Outcome.Failed(
                        FailureReason.INVALID_REQUEST,
                        of.size() + " " + family
                                + " addresses are requested (" + FailureMessages.join(of)
                                + "); a Service can have at most one address per family");
            }
        }
        if (!request.families().isEmpty()) {
            for (IpAddress ip : ips) {
                if (!request.families().contains(ip.family())) {
                    return new Outcome.Failed(
                            FailureReason.INVALID_REQUEST,
                            "requested IP " + ip + " is " + ip.family() + ", but the Service's ipFamilies are "
                                    + request.families());
                }
            }
        }
        if (request.familyPolicy() == FamilyPolicy.SingleStack && ips.size() > 1) {
            return new Outcome.Failed(
                    FailureReason.INVALID_REQUEST,
                    "a SingleStack Service cannot have two addresses (" + FailureMessages.join(ips)
                            + " are requested)");
        }
        if (request.familyPolicy() == FamilyPolicy.RequireDualStack && ips.size() < 2) {
            return new Outcome.Failed(
                    FailureReason.INVALID_REQUEST,
                    "a RequireDualStack Service needs an IPv4 and an" + " IPv6 address, but only " + ips.getFirst()
                            + " is requested");
        }
        return null;
    }

    /** The requested addresses and their pool, or why the Service cannot have them; the request has no contradiction. */
    Choice choose(AllocationRequest request) {
        Optional<String> requestedPool = request.pool();
        PoolState pool = null;
        if (requestedPool.isPresent()) {
            pool = pools.named(requestedPool.get());
            if (pool == null) {
                return new Choice.Refused(FailureMessages.poolNotFound(pools, requestedPool.get()));
            }
            if (!PoolSelection.allows(pool.pool, request)) {
                return new Choice.Refused(FailureMessages.poolNotAllowed(pool));
            }
        }
        List<IpAddress> ips = Shape.v4First(new ArrayList<>(new LinkedHashSet<>(request.requestedIps())));
        IpAddress firstIp = null;
        for (IpAddress ip : ips) {
            PoolState holder = pools.containing(ip);
            if (requestedPool.isPresent()) {
                if (!pool.contains(ip)) {
                    String where = holder == null ? "" : " (it is in pool " + Quoted.of(holder.name) + ")";
                    return refused(
                            FailureReason.IP_NOT_IN_POOL,
                            "requested IP " + ip + " is not in the requested pool " + Quoted.of(pool.name) + where);
                }
            } else if (holder == null) {
                return refused(FailureReason.IP_NOT_IN_POOL, "requested IP " + ip + " is not in any address pool");
            } else if (pool == null) {
                pool = holder;
                firstIp = ip;
            } else if (!pool.contains(ip)) {
                return refused(
                        FailureReason.INVALID_REQUEST,
                        "requested IPs " + firstIp + " and " + ip
                                + " are in different pools (" + Quoted.of(pool.name) + " and " + Quoted.of(holder.name)
                                + "); all addresses of a Service must come from one pool");
            }
        }
        for (IpAddress ip : ips) {
            if (pool.pool.forbids(ip)) {
                return refused(
                        FailureReason.IP_FORBIDDEN,
                        "requested IP " + ip + " ends in ." + ip.lastByte() + ", which pool " + Quoted.of(pool.name)
                                + " avoids (avoidBuggyIPs: true)");
            }
        }
        for (IpAddress ip : ips) {
            Optional<String> why = excluded.why(ip);
            if (why.isPresent()) {
                return refused(
                        FailureReason.IP_EXCLUDED,
                        "requested IP " + ip + " is not given to any Service: it is taken (" + why.get() + ")");
            }
        }
        if (!PoolSelection.allows(pool.pool, request)) {
            return refused(
                    FailureReason.POOL_NOT_ALLOWED,
                    "requested IP " + ips.getFirst()
                            + " is in pool " + Quoted.of(pool.name)
                            + ", which its serviceAllocation reserves for other Services ("
                            + FailureMessages.reservedFor(pool) + ")");
        }
        for (IpAddress ip : ips) {
            String conflict = holdings.conflict(request, ip);
            if (conflict != null) {
                return refused(FailureReason.IP_IN_USE, "requested IP " + ip + " is in use by " + conflict);
            }
        }
        return new Choice.Chosen(pool, ips);
    }

    private static Choice refused(FailureReason reason, String message) {
        return new Choice.Refused(new Outcome.Failed(reason, message));
    }
}
