package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.config.Config;
import io.lbk8s.service.AllocationRequest;
import io.lbk8s.service.ServiceKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * IP address management for LoadBalancer Services: pure, in-memory, single-threaded (the controller calls it from
 * its one reconcile thread). It follows MetalLB's allocator:
 *
 * <h2>Which pools a Service may use</h2>
 * A pool <em>allows</em> a Service when it has no {@code serviceAllocation}, or its serviceAllocation
 * <em>selects</em> the Service. As in MetalLB, {@code namespaces} and {@code namespaceSelectors} together form one
 * namespace condition (the Service's namespace is listed, or its labels match one of the selectors), and
 * {@code serviceSelectors} form a second condition (one of them matches the Service's labels); a serviceAllocation
 * selects a Service when every condition it states holds, so a pool with both namespaces and serviceSelectors
 * wants a matching Service in a matching namespace. A serviceAllocation stating neither (priority only) selects
 * every Service. (MetalLB itself turns namespaceSelectors into a list of namespaces when it reads the config, so a
 * pool whose selectors match no namespace at that moment lets any Service request it; here the selectors are
 * evaluated against the namespace labels in each request, so they always restrict.)
 *
 * <p>Without a requested pool or IP, the candidates are: first the auto-assign pools whose serviceAllocation
 * selects the Service, by priority (given priorities ascending, unset (0) after them), then by name; then the
 * auto-assign pools without serviceAllocation, by name. Pools with {@code autoAssign: false} are used only when
 * requested (by pool or by IP). A requested pool ignores autoAssign but must allow the Service.
 *
 * <h2>Which address</h2>
 * Lowest free address first, across the pool's ranges in configured order, skipping IPv4 .0/.255 when the pool
 * has avoidBuggyIPs. A Service with a sharing key first looks, in candidate order, for a pool holding an address
 * already used under the same key by Services it may share with, and takes the lowest such address.
 *
 * <h2>Families</h2>
 * SingleStack: one address of {@code families[0]} (no families: IPv4 if the pool has a free one, else IPv6).
 * RequireDualStack: one IPv4 and one IPv6 address from one pool. PreferDualStack with two families (or none): both
 * from the first candidate pool that has both free, else one of the first family (in families order) that some
 * candidate pool has free, else the other; PreferDualStack with one family listed (a single-stack cluster) gets one
 * address of that family, as in MetalLB. A PreferDualStack Service holding one address gets the other family added
 * when its pool later offers it; it does not move to another pool for it.
 *
 * <h2>Sharing</h2>
 * Two Services may hold one address only when both have the same non-empty sharing key, the same backend key
 * (Cluster traffic policy: empty; Local: the selector) and no common port (protocol and number).
 *
 * <h2>Keeping what a Service has</h2>
 * {@link #assign} keeps an assignment while it fits the request: its pool still exists, contains the addresses and
 * allows the Service; the requested pool and IPs, if any, are the ones held; the family policy is met; and every
 * other holder of a shared address is still compatible. Otherwise the Service loses it and gets a new one (or
 * nothing). An assignment in an autoAssign: false pool, or in a pool no longer requested, is kept (MetalLB too).
 *
 * <h2>Reconfiguration</h2>
 * {@link #reconfigure} keeps every assignment whose addresses are still usable in its pool and the pool still
 * allows the Service. If not, but all its addresses are usable in one other pool that allows the Service (a pool
 * renamed, or addresses moved between pools), the assignment moves to that pool, keeping its addresses. Otherwise
 * it is released and its Service returned, so that the controller assigns it again. A Service whose request names
 * the old pool of a moved assignment no longer fits on its next {@link #assign} (the requested pool is gone).
 *
 * <h2>Excluded addresses</h2>
 * Addresses given to {@link #exclude} (a node's own address, its gateway, the API server; see {@link Exclusions}) are
 * never handed out: new assignments skip them, a request for one fails ({@link FailureReason#IP_EXCLUDED}), and an
 * assignment holding one when it becomes excluded is released. They do not count in a pool's total.
 *
 * <h2>Cost</h2>
 * Per range a paged bitset (4096 addresses a page, created on first use) with a lowest-possibly-free hint: taking
 * the lowest free address is amortised O(1), a /64 costs nothing until used. Assignments and address holders live
 * in plain HashMaps: about 210 bytes of heap per assignment in all (10,000 assignments: about 2 MB; bench's
 * AllocatorMemory), not counting the requests, which the caller owns. Hand-rolled open-addressing maps took about
 * 150 bytes: 0.6 MB less at 10,000 Services, not worth their code next to the controller's 160 MB RSS target.
 */
public final class Allocator {

    private ExcludedAddresses excluded = ExcludedAddresses.NONE;
    private Pools pools;
    private Holdings holdings;
    private AddressPicker picker;
    private RequestedAddresses requested;

    public Allocator(Config config) {
        install(Objects.requireNonNull(config));
    }

    public Config config() {
        return pools.config;
    }

    /** Starts anew, holding nothing, with the pools of this configuration and the current excluded addresses. */
    private void install(Config config) {
        pools = new Pools(config, excluded);
        holdings = new Holdings(pools);
        picker = new AddressPicker(holdings);
        requested = new RequestedAddresses(pools, holdings, excluded);
    }

    /** Replaces the configuration; assignments that no longer fit are released and their Services returned. */
    public Set<ServiceKey> reconfigure(Config newConfig) {
        List<Held> before = new ArrayList<>(holdings.all());
        before.sort(Comparator.comparing(h -> h.assignment().service()));
        install(Objects.requireNonNull(newConfig));
        Set<ServiceKey> released = new TreeSet<>();
        for (Held h : before) {
            Assignment a = h.assignment();
            PoolState same = pools.named(a.pool());
            PoolState target = same != null && keeps(same, h.request(), a.ips()) ? same : null;
            if (target == null) {
                for (PoolState other : pools.all) {
                    if (other != same && keeps(other, h.request(), a.ips())) {
                        target = other;
                        break;
                    }
                }
            }
            if (target == null) {
                released.add(a.service());
                continue;
            }
            Assignment kept = target == same ? a : new Assignment(a.service(), target.name, a.ips());
            holdings.take(h.request(), target, kept);
        }
        return released;
    }

    /**
     * Replaces the addresses never handed out. Assignments holding a newly excluded address are released and their
     * Services returned (whether they asked for it or not: their next {@link #assign} says so, or gives another);
     * every other assignment stays as it is. Nothing happens when the set is unchanged.
     */
    public Set<ServiceKey> exclude(ExcludedAddresses next) {
        if (next.equals(excluded)) {
            return Set.of();
        }
        excluded = Objects.requireNonNull(next);
        return reconfigure(pools.config);
    }

    /** Why the address is never handed out, if it is excluded. */
    public Optional<String> whyExcluded(IpAddress ip) {
        return excluded.why(ip);
    }

    /** The excluded addresses of a pool (those it would otherwise hand out), with why; empty for an unknown pool. */
    public Map<IpAddress, String> excludedIn(String pool) {
        PoolState state = pools.named(pool);
        return state == null ? Map.of() : state.excluded;
    }

    private static boolean keeps(PoolState pool, AllocationRequest request, List<IpAddress> ips) {
        for (IpAddress ip : ips) {
            if (!pool.usable(ip)) {
                return false;
            }
        }
        return PoolSelection.allows(pool.pool, request);
    }

    /**
     * Claims addresses a Service already has in its status (after a restart), if they still fit; never allocates
     * new ones. Returns empty, with the Service holding nothing, when they do not.
     */
    public Optional<Assignment> restore(AllocationRequest request, List<IpAddress> current) {
        ServiceKey key = request.service();
        List<IpAddress> ips = Shape.v4First(new ArrayList<>(new LinkedHashSet<>(current)));
        Held existing = holdings.of(key);
        if (existing != null) {
            if (existing.assignment().ips().equals(ips) && fits(request, existing) == null) {
                return Optional.of(refresh(existing, request).assignment());
            }
            holdings.drop(key);
        }
        if (ips.isEmpty()
                || ips.size() > 2
                || (ips.size() == 2 && ips.get(0).family() == ips.get(1).family())) {
            return Optional.empty();
        }
        if (RequestedAddresses.contradiction(request) != null) {
            return Optional.empty();
        }
        for (PoolState pool : pools.all) {
            boolean all = true;
            for (IpAddress ip : ips) {
                all &= pool.usable(ip);
            }
            if (!all) {
                continue;
            }
            Held candidate = new Held(request, new Assignment(key, pool.name, ips));
            if (fits(request, candidate) == null) {
                holdings.take(request, pool, candidate.assignment());
                return Optional.of(candidate.assignment());
            }
        }
        return Optional.empty();
    }

    /**
     * Keeps the Service's assignment if it still fits the request, otherwise allocates anew; says whether what it
     * holds changed. A failure leaves it holding nothing.
     */
    public Outcome assign(AllocationRequest request) {
        ServiceKey key = request.service();
        Outcome.Failed contradiction = RequestedAddresses.contradiction(request);
        Held existing = holdings.of(key);
        Assignment before = existing == null ? null : existing.assignment();
        if (existing != null) {
            if (contradiction == null && fits(request, existing) == null) {
                Assignment kept = update(existing, request).assignment();
                return new Outcome.Assigned(kept, !kept.equals(before));
            }
            holdings.drop(key);
        }
        if (contradiction != null) {
            return contradiction;
        }
        return switch (choose(request)) {
            case Choice.Chosen(PoolState pool, List<IpAddress> ips) -> {
                Assignment taken = new Assignment(key, pool.name, Shape.v4First(ips));
                holdings.take(request, pool, taken);
                yield new Outcome.Assigned(taken, !taken.equals(before));
            }
            case Choice.Refused(Outcome.Failed failure) -> failure;
        };
    }

    /** New addresses for a Service holding none: the requested ones, or from the requested pool, or from candidates. */
    private Choice choose(AllocationRequest request) {
        if (pools.isEmpty()) {
            return new Choice.Refused(new Outcome.Failed(FailureReason.NO_POOLS, "no address pool is configured"));
        }
        if (!request.requestedIps().isEmpty()) {
            return requested.choose(request);
        }
        if (request.pool().isPresent()) {
            String name = request.pool().get();
            PoolState pool = pools.named(name);
            if (pool == null) {
                return new Choice.Refused(FailureMessages.poolNotFound(pools, name));
            }
            if (!PoolSelection.allows(pool.pool, request)) {
                return new Choice.Refused(FailureMessages.poolNotAllowed(pool));
            }
            return picker.choose(request, List.of(pool));
        }
        List<PoolState> candidates = pools.candidates(request);
        if (candidates.isEmpty()) {
            return new Choice.Refused(FailureMessages.noMatchingPool(pools, request));
        }
        return picker.choose(request, candidates);
    }

    /** Lets go of what the Service holds; returns what that was. */
    public Optional<Assignment> release(ServiceKey service) {
        return Optional.ofNullable(holdings.drop(service));
    }

    public Optional<Assignment> assignmentOf(ServiceKey service) {
        return Optional.ofNullable(holdings.assignment(service));
    }

    /** How many Services hold addresses. */
    public int assignedCount() {
        return holdings.size();
    }

    /** Every Service holding addresses, with what it holds. */
    public Map<ServiceKey, Assignment> assignments() {
        Map<ServiceKey, Assignment> all = new HashMap<>();
        for (Held h : holdings.all()) {
            all.put(h.assignment().service(), h.assignment());
        }
        return all;
    }

    /** The Services holding an address (more than one when shared). */
    public List<ServiceKey> holdersOf(IpAddress ip) {
        return holdings.holdersOf(ip);
    }

    /** Per pool, by name: usable addresses and distinct addresses in use. */
    public List<PoolUsage> usage() {
        List<PoolUsage> result = new ArrayList<>(pools.all.size());
        for (PoolState p : pools.all) {
            result.add(p.usage());
        }
        return result;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Keeping

    /** Why a held (or candidate) assignment no longer fits the request, or null if it fits. */
    private String fits(AllocationRequest request, Held h) {
        Assignment a = h.assignment();
        PoolState pool = pools.named(a.pool());
        if (pool == null) {
            return "pool gone";
        }
        for (IpAddress ip : a.ips()) {
            if (excluded.contains(ip)) {
                return "address excluded";
            }
            if (!pool.usable(ip)) {
                return "address left its pool";
            }
        }
        if (request.pool().isPresent() && !request.pool().get().equals(a.pool())) {
            return "another pool requested";
        }
        if (!PoolSelection.allows(pool.pool, request)) {
            return "pool no longer allows the Service";
        }
        if (!request.requestedIps().isEmpty()
                && !new HashSet<>(request.requestedIps()).equals(new HashSet<>(a.ips()))) {
            return "other addresses requested";
        }
        if (!Shape.met(request, a.ips())) {
            return "family policy changed";
        }
        for (IpAddress ip : a.ips()) {
            if (holdings.conflict(request, ip) != null) {
                return "sharing no longer possible";
            }
        }
        return null;
    }

    /** Records the latest request for a kept assignment; adds the missing family for PreferDualStack if possible. */
    private Held update(Held h, AllocationRequest request) {
        Assignment a = h.assignment();
        if (Shape.of(request).dual()
                && a.ips().size() == 1
                && request.requestedIps().isEmpty()) {
            PoolState pool = pools.named(a.pool());
            IpFamily missing = a.ips().getFirst().isV4() ? IpFamily.IPv6 : IpFamily.IPv4;
            IpAddress extra = picker.pick(pool, missing, request);
            if (extra != null) {
                holdings.drop(a.service());
                return holdings.take(
                        request,
                        pool,
                        new Assignment(
                                a.service(),
                                a.pool(),
                                Shape.v4First(List.of(a.ips().getFirst(), extra))));
            }
        }
        return refresh(h, request);
    }

    /** Records the latest request for a kept assignment, re-indexing its sharing key if that changed. */
    private Held refresh(Held h, AllocationRequest request) {
        Assignment a = h.assignment();
        if (h.request().equals(request)) {
            return h;
        }
        if (!h.request().sharingKey().equals(request.sharingKey())) {
            PoolState pool = pools.named(a.pool());
            holdings.drop(a.service());
            return holdings.take(request, pool, a);
        }
        return holdings.rerequest(request, a);
    }
}
