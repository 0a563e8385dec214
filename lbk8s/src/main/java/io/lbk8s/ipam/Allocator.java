package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.address.IpRange;
import io.lbk8s.config.AddressPool;
import io.lbk8s.config.Config;
import io.lbk8s.config.LabelSelector;
import io.lbk8s.config.ServiceAllocation;
import io.lbk8s.service.AllocationRequest;
import io.lbk8s.service.FamilyPolicy;
import io.lbk8s.service.ServiceKey;
import io.lbk8s.service.ServicePort;
import io.lbk8s.text.Quoted;
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
import java.util.stream.Collectors;

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
 * in open-addressing maps (no node per entry): about 150 bytes per assignment in all (10,000 assignments: about
 * 1.5 MB), not counting the requests, which the caller owns.
 */
public final class Allocator {

    /** What a Service holds, and the request it was last checked against. */
    private record Held(AllocationRequest request, Assignment assignment) {}

    private Config config;
    private ExcludedAddresses excluded = ExcludedAddresses.NONE;
    private List<PoolState> pools = List.of();
    private Map<String, PoolState> byName = Map.of();
    /** Auto-assign pools with a serviceAllocation, in priority order. */
    private List<PoolState> allocationPools = List.of();
    /** Auto-assign pools without serviceAllocation, by name. */
    private List<PoolState> generalPools = List.of();
    /** Other pools sharing addresses with a pool (normally none: the config parser rejects overlaps). */
    private Map<PoolState, List<PoolState>> overlaps = Map.of();

    private final HeldMap held = new HeldMap();
    /** Who holds an address: a ServiceKey, or a List of them when shared. */
    private final IpMap<Object> holders = new IpMap<>();
    /** Addresses held under each sharing key. */
    private final Map<String, Set<IpAddress>> sharedByKey = new HashMap<>();

    public Allocator(Config config) {
        install(Objects.requireNonNull(config));
    }

    public Config config() {
        return config;
    }

    private void install(Config newConfig) {
        this.config = newConfig;
        List<PoolState> states = new ArrayList<>();
        Map<String, PoolState> names = new HashMap<>();
        for (AddressPool pool : newConfig.pools()) {
            PoolState state = new PoolState(pool, excluded);
            states.add(state);
            names.put(pool.name(), state);
        }
        states.sort(Comparator.comparing(s -> s.name));
        List<PoolState> withAllocation = new ArrayList<>();
        List<PoolState> general = new ArrayList<>();
        for (PoolState s : states) {
            if (!s.pool.autoAssign()) {
                continue;
            }
            (s.pool.serviceAllocation().isPresent() ? withAllocation : general).add(s);
        }
        withAllocation.sort(Comparator.<PoolState>comparingLong(s -> {
            int priority = s.pool.serviceAllocation().orElseThrow().priority();
            return priority > 0 ? priority : Long.MAX_VALUE;
        }).thenComparing(s -> s.name));
        Map<PoolState, List<PoolState>> overlapping = new HashMap<>();
        for (PoolState a : states) {
            for (PoolState b : states) {
                if (a != b && overlap(a.pool, b.pool)) {
                    overlapping.computeIfAbsent(a, _ -> new ArrayList<>()).add(b);
                }
            }
        }
        this.pools = List.copyOf(states);
        this.byName = names;
        this.allocationPools = List.copyOf(withAllocation);
        this.generalPools = List.copyOf(general);
        this.overlaps = overlapping;
    }

    private static boolean overlap(AddressPool a, AddressPool b) {
        for (IpRange x : a.ranges()) {
            for (IpRange y : b.ranges()) {
                if (x.overlaps(y)) {
                    return true;
                }
            }
        }
        return false;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Public API

    /** Replaces the configuration; assignments that no longer fit are released and their Services returned. */
    public Set<ServiceKey> reconfigure(Config newConfig) {
        List<Held> before = new ArrayList<>(held.size());
        List<AllocationRequest> requests = held.requests();
        List<Assignment> assignments = held.assignments();
        for (int i = 0; i < requests.size(); i++) {
            before.add(new Held(requests.get(i), assignments.get(i)));
        }
        before.sort(Comparator.comparing(h -> h.assignment().service()));
        held.clear();
        holders.clear();
        sharedByKey.clear();
        install(Objects.requireNonNull(newConfig));
        Set<ServiceKey> released = new TreeSet<>();
        for (Held h : before) {
            Assignment a = h.assignment();
            PoolState same = byName.get(a.pool());
            PoolState target = same != null && keeps(same, h.request(), a.ips()) ? same : null;
            if (target == null) {
                for (PoolState other : pools) {
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
            take(h.request(), target, kept);
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
        return reconfigure(config);
    }

    public ExcludedAddresses excluded() {
        return excluded;
    }

    /** Why the address is never handed out, if it is excluded. */
    public Optional<String> whyExcluded(IpAddress ip) {
        return excluded.why(ip);
    }

    /** The excluded addresses of a pool (those it would otherwise hand out), with why; empty for an unknown pool. */
    public Map<IpAddress, String> excludedIn(String pool) {
        PoolState state = byName.get(pool);
        return state == null ? Map.of() : state.excluded;
    }

    private static boolean keeps(PoolState pool, AllocationRequest request, List<IpAddress> ips) {
        for (IpAddress ip : ips) {
            if (!pool.usable(ip)) {
                return false;
            }
        }
        return allows(pool.pool, request);
    }

    /**
     * Claims addresses a Service already has in its status (after a restart), if they still fit; never allocates
     * new ones. Returns empty, with the Service holding nothing, when they do not.
     */
    public Optional<Assignment> restore(AllocationRequest request, List<IpAddress> current) {
        ServiceKey key = request.service();
        List<IpAddress> ips = v4First(new ArrayList<>(new LinkedHashSet<>(current)));
        Held existing = heldOf(key);
        if (existing != null) {
            if (existing.assignment().ips().equals(ips) && fits(request, existing) == null) {
                return Optional.of(refresh(existing, request).assignment());
            }
            drop(key);
        }
        if (ips.isEmpty() || ips.size() > 2 || (ips.size() == 2 && ips.get(0).family() == ips.get(1).family())) {
            return Optional.empty();
        }
        if (invalid(request) != null) {
            return Optional.empty();
        }
        for (PoolState pool : pools) {
            boolean all = true;
            for (IpAddress ip : ips) {
                all &= pool.usable(ip);
            }
            if (!all) {
                continue;
            }
            Held candidate = new Held(request, new Assignment(key, pool.name, ips));
            if (fits(request, candidate) == null) {
                take(request, pool, candidate.assignment());
                return Optional.of(candidate.assignment());
            }
        }
        return Optional.empty();
    }

    /** Keeps the Service's assignment if it still fits the request, otherwise allocates anew. */
    public Outcome assign(AllocationRequest request) {
        ServiceKey key = request.service();
        Outcome.Failed invalid = invalid(request);
        Held existing = heldOf(key);
        if (existing != null) {
            if (invalid == null && fits(request, existing) == null) {
                return new Outcome.Assigned(update(existing, request).assignment());
            }
            drop(key);
        }
        if (invalid != null) {
            return invalid;
        }
        if (pools.isEmpty()) {
            return new Outcome.Failed(FailureReason.NO_POOLS, "no address pool is configured");
        }
        if (!request.requestedIps().isEmpty()) {
            return assignRequested(request);
        }
        List<PoolState> candidates;
        if (request.pool().isPresent()) {
            String name = request.pool().get();
            PoolState pool = byName.get(name);
            if (pool == null) {
                return poolNotFound(name);
            }
            if (!allows(pool.pool, request)) {
                return poolNotAllowed(pool);
            }
            candidates = List.of(pool);
        } else {
            candidates = candidates(request);
            if (candidates.isEmpty()) {
                return noMatchingPool(request);
            }
        }
        return allocate(request, candidates);
    }

    public void release(ServiceKey service) {
        drop(service);
    }

    public Optional<Assignment> assignmentOf(ServiceKey service) {
        return Optional.ofNullable(held.assignment(service));
    }

    /** How many Services hold addresses. */
    public int assignedCount() {
        return held.size();
    }

    /** Every Service holding addresses, with what it holds. */
    public Map<ServiceKey, Assignment> assignments() {
        Map<ServiceKey, Assignment> all = new HashMap<>();
        for (Assignment a : held.assignments()) {
            all.put(a.service(), a);
        }
        return all;
    }

    /** The Services holding an address (more than one when shared). */
    public List<ServiceKey> holdersOf(IpAddress ip) {
        return holderList(ip);
    }

    /** Per pool, by name: usable addresses and distinct addresses in use. */
    public List<PoolUsage> usage() {
        List<PoolUsage> result = new ArrayList<>(pools.size());
        for (PoolState p : pools) {
            result.add(p.usage());
        }
        return result;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Pool selection

    /** Whether a pool may give addresses to the Service: no serviceAllocation, or one that selects it. */
    static boolean allows(AddressPool pool, AllocationRequest request) {
        return pool.serviceAllocation().map(sa -> selects(sa, request)).orElse(true);
    }

    /** MetalLB's serviceAllocation match: the namespace condition AND the service-label condition, each if stated. */
    static boolean selects(ServiceAllocation sa, AllocationRequest request) {
        boolean namespaceStated = !sa.namespaces().isEmpty() || !sa.namespaceSelectors().isEmpty();
        if (namespaceStated && !sa.namespaces().contains(request.service().namespace())
                && !anyMatches(sa.namespaceSelectors(), request.namespaceLabels())) {
            return false;
        }
        return sa.serviceSelectors().isEmpty() || anyMatches(sa.serviceSelectors(), request.serviceLabels());
    }

    private static boolean anyMatches(List<LabelSelector> selectors, Map<String, String> labels) {
        for (LabelSelector s : selectors) {
            if (s.matches(labels)) {
                return true;
            }
        }
        return false;
    }

    private List<PoolState> candidates(AllocationRequest request) {
        if (allocationPools.isEmpty()) {
            return generalPools;
        }
        List<PoolState> result = new ArrayList<>(allocationPools.size() + generalPools.size());
        for (PoolState p : allocationPools) {
            if (selects(p.pool.serviceAllocation().orElseThrow(), request)) {
                result.add(p);
            }
        }
        result.addAll(generalPools);
        return result;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Allocation

    /** The address families a request wants, primary first, and whether both are required. */
    private record Shape(List<IpFamily> families, boolean dual, boolean required) {}

    private static final List<IpFamily> V4_V6 = List.of(IpFamily.IPv4, IpFamily.IPv6);
    private static final List<IpFamily> V6_V4 = List.of(IpFamily.IPv6, IpFamily.IPv4);
    private static final Shape ANY_SINGLE = new Shape(V4_V6, false, false);
    private static final Shape V4_SINGLE = new Shape(List.of(IpFamily.IPv4), false, false);
    private static final Shape V6_SINGLE = new Shape(List.of(IpFamily.IPv6), false, false);

    private static Shape shape(AllocationRequest request) {
        List<IpFamily> families = request.families();
        IpFamily first = families.isEmpty() ? IpFamily.IPv4 : families.getFirst();
        List<IpFamily> both = first == IpFamily.IPv4 ? V4_V6 : V6_V4;
        return switch (request.familyPolicy()) {
            case SingleStack -> families.isEmpty() ? ANY_SINGLE : first == IpFamily.IPv4 ? V4_SINGLE : V6_SINGLE;
            case PreferDualStack -> families.size() == 1
                    ? (first == IpFamily.IPv4 ? V4_SINGLE : V6_SINGLE)
                    : new Shape(both, true, false);
            case RequireDualStack -> new Shape(both, true, true);
        };
    }

    private Outcome allocate(AllocationRequest request, List<PoolState> candidates) {
        Shape shape = shape(request);
        if (request.sharingKey().isPresent() && sharedByKey.containsKey(request.sharingKey().get())) {
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
                    return assigned(request, pool, List.of(a, b));
                }
            }
            if (shape.required()) {
                if (!anyDual) {
                    return new Outcome.Failed(FailureReason.FAMILY_UNAVAILABLE,
                            "RequireDualStack needs an IPv4 and an IPv6 address from one pool, but no pool for this"
                                    + " Service has both families (" + describeCandidates(candidates) + ")");
                }
                List<String> each = new ArrayList<>();
                for (PoolState pool : candidates) {
                    if (pool.hasBothFamilies()) {
                        IpFamily full = pick(pool, primary, request) == null ? primary : secondary;
                        each.add("pool " + Quoted.of(pool.name) + " has no free " + full + " address " + fullness(pool));
                    }
                }
                return new Outcome.Failed(FailureReason.POOL_EXHAUSTED, each.size() == 1 ? each.getFirst()
                        : "no pool for this Service has both an IPv4 and an IPv6 address free: "
                                + String.join(", ", each));
            }
        }
        boolean familySeen = false;
        if (shape == ANY_SINGLE) {
            for (PoolState pool : candidates) {
                familySeen = true;
                for (IpFamily family : V4_V6) {
                    IpAddress ip = pick(pool, family, request);
                    if (ip != null) {
                        return assigned(request, pool, List.of(ip));
                    }
                }
            }
        }
        for (IpFamily family : shape == ANY_SINGLE ? List.<IpFamily>of() : shape.families()) {
            for (PoolState pool : candidates) {
                if (!pool.hasFamily(family)) {
                    continue;
                }
                familySeen = true;
                IpAddress ip = pick(pool, family, request);
                if (ip != null) {
                    return assigned(request, pool, List.of(ip));
                }
            }
        }
        if (!familySeen) {
            String wanted = shape.families().size() == 1 ? shape.families().getFirst() + " addresses" : "addresses";
            return new Outcome.Failed(FailureReason.FAMILY_UNAVAILABLE,
                    "no pool for this Service has " + wanted + " (" + describeCandidates(candidates) + ")");
        }
        IpFamily only = shape.families().size() == 1 ? shape.families().getFirst() : null;
        List<PoolState> relevant = candidates.stream()
                .filter(p -> only == null ? true : p.hasFamily(only)).toList();
        return exhausted(relevant, only, "no pool for this Service has a free address");
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

    /** The address of this family to give from this pool: a compatible shared one, else the lowest free one. */
    private IpAddress pick(PoolState pool, IpFamily family, AllocationRequest request) {
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
        Set<IpAddress> ips = sharedByKey.get(request.sharingKey().get());
        if (ips == null) {
            return null;
        }
        IpAddress best = null;
        for (IpAddress ip : ips) {
            if (ip.family() == family && (best == null || ip.compareTo(best) < 0) && pool.usable(ip)
                    && conflict(request, ip) == null) {
                best = ip;
            }
        }
        return best;
    }

    private Outcome assignRequested(AllocationRequest request) {
        Optional<String> requestedPool = request.pool();
        PoolState pool = null;
        if (requestedPool.isPresent()) {
            pool = byName.get(requestedPool.get());
            if (pool == null) {
                return poolNotFound(requestedPool.get());
            }
            if (!allows(pool.pool, request)) {
                return poolNotAllowed(pool);
            }
        }
        List<IpAddress> ips = v4First(new ArrayList<>(new LinkedHashSet<>(request.requestedIps())));
        IpAddress firstIp = null;
        for (IpAddress ip : ips) {
            PoolState holder = firstPoolContaining(ip);
            if (requestedPool.isPresent()) {
                if (!pool.contains(ip)) {
                    String where = holder == null ? "" : " (it is in pool " + Quoted.of(holder.name) + ")";
                    return new Outcome.Failed(FailureReason.IP_NOT_IN_POOL, "requested IP " + ip
                            + " is not in the requested pool " + Quoted.of(pool.name) + where);
                }
            } else if (holder == null) {
                return new Outcome.Failed(FailureReason.IP_NOT_IN_POOL,
                        "requested IP " + ip + " is not in any address pool");
            } else if (pool == null) {
                pool = holder;
                firstIp = ip;
            } else if (!pool.contains(ip)) {
                return new Outcome.Failed(FailureReason.INVALID_REQUEST, "requested IPs " + firstIp + " and " + ip
                        + " are in different pools (" + Quoted.of(pool.name) + " and " + Quoted.of(holder.name)
                        + "); all addresses of a Service must come from one pool");
            }
        }
        for (IpAddress ip : ips) {
            if (pool.pool.forbids(ip)) {
                return new Outcome.Failed(FailureReason.IP_FORBIDDEN, "requested IP " + ip + " ends in ."
                        + ip.lastByte() + ", which pool " + Quoted.of(pool.name) + " avoids (avoidBuggyIPs: true)");
            }
        }
        for (IpAddress ip : ips) {
            Optional<String> why = excluded.why(ip);
            if (why.isPresent()) {
                return new Outcome.Failed(FailureReason.IP_EXCLUDED, "requested IP " + ip
                        + " is not given to any Service: it is taken (" + why.get() + ")");
            }
        }
        if (!allows(pool.pool, request)) {
            return new Outcome.Failed(FailureReason.POOL_NOT_ALLOWED, "requested IP " + ips.getFirst()
                    + " is in pool " + Quoted.of(pool.name) + ", which its serviceAllocation reserves for other Services ("
                    + reservedFor(pool) + ")");
        }
        for (IpAddress ip : ips) {
            String conflict = conflict(request, ip);
            if (conflict != null) {
                return new Outcome.Failed(FailureReason.IP_IN_USE, "requested IP " + ip + " is in use by " + conflict);
            }
        }
        return assigned(request, pool, ips);
    }

    private PoolState firstPoolContaining(IpAddress ip) {
        for (PoolState p : pools) {
            if (p.contains(ip)) {
                return p;
            }
        }
        return null;
    }

    /** Contradictions within the request itself (only requested IPs can contradict). */
    private static Outcome.Failed invalid(AllocationRequest request) {
        if (request.requestedIps().isEmpty()) {
            return null;
        }
        List<IpAddress> ips = new ArrayList<>(new LinkedHashSet<>(request.requestedIps()));
        for (IpFamily family : IpFamily.values()) {
            List<IpAddress> of = ips.stream().filter(ip -> ip.family() == family).toList();
            if (of.size() > 1) {
                return new Outcome.Failed(FailureReason.INVALID_REQUEST, of.size() + " " + family
                        + " addresses are requested (" + join(of)
                        + "); a Service can have at most one address per family");
            }
        }
        if (!request.families().isEmpty()) {
            for (IpAddress ip : ips) {
                if (!request.families().contains(ip.family())) {
                    return new Outcome.Failed(FailureReason.INVALID_REQUEST, "requested IP " + ip + " is "
                            + ip.family() + ", but the Service's ipFamilies are " + request.families());
                }
            }
        }
        if (request.familyPolicy() == FamilyPolicy.SingleStack && ips.size() > 1) {
            return new Outcome.Failed(FailureReason.INVALID_REQUEST, "a SingleStack Service cannot have two addresses ("
                    + join(ips) + " are requested)");
        }
        if (request.familyPolicy() == FamilyPolicy.RequireDualStack && ips.size() < 2) {
            return new Outcome.Failed(FailureReason.INVALID_REQUEST, "a RequireDualStack Service needs an IPv4 and an"
                    + " IPv6 address, but only " + ips.getFirst() + " is requested");
        }
        return null;
    }

    private Outcome assigned(AllocationRequest request, PoolState pool, List<IpAddress> ips) {
        Assignment assignment = new Assignment(request.service(), pool.name, ips.size() == 1 ? ips : v4First(ips));
        take(request, pool, assignment);
        return new Outcome.Assigned(assignment);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Keeping

    /** Why a held (or candidate) assignment no longer fits the request, or null if it fits. */
    private String fits(AllocationRequest request, Held h) {
        Assignment a = h.assignment();
        PoolState pool = byName.get(a.pool());
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
        if (!allows(pool.pool, request)) {
            return "pool no longer allows the Service";
        }
        if (!request.requestedIps().isEmpty()
                && !new HashSet<>(request.requestedIps()).equals(new HashSet<>(a.ips()))) {
            return "other addresses requested";
        }
        if (!shapeMet(request, a.ips())) {
            return "family policy changed";
        }
        for (IpAddress ip : a.ips()) {
            if (conflict(request, ip) != null) {
                return "sharing no longer possible";
            }
        }
        return null;
    }

    private static boolean shapeMet(AllocationRequest request, List<IpAddress> ips) {
        if (!request.requestedIps().isEmpty()) {
            return true; // exactly the requested addresses, already validated
        }
        Shape shape = shape(request);
        if (shape.required()) {
            return ips.size() == 2;
        }
        if (shape.dual()) {
            return ips.size() == 1 || ips.size() == 2;
        }
        return ips.size() == 1 && shape.families().contains(ips.getFirst().family());
    }

    /** Records the latest request for a kept assignment; adds the missing family for PreferDualStack if possible. */
    private Held update(Held h, AllocationRequest request) {
        Assignment a = h.assignment();
        Shape shape = shape(request);
        if (shape.dual() && a.ips().size() == 1 && request.requestedIps().isEmpty()) {
            PoolState pool = byName.get(a.pool());
            IpFamily missing = a.ips().getFirst().isV4() ? IpFamily.IPv6 : IpFamily.IPv4;
            IpAddress extra = pick(pool, missing, request);
            if (extra != null) {
                drop(a.service());
                return take(request, pool,
                        new Assignment(a.service(), a.pool(), v4First(List.of(a.ips().getFirst(), extra))));
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
            PoolState pool = byName.get(a.pool());
            drop(a.service());
            return take(request, pool, a);
        }
        Held updated = new Held(request, a);
        held.put(a.service(), request, a);
        return updated;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Bookkeeping

    private Held take(AllocationRequest request, PoolState pool, Assignment assignment) {
        ServiceKey key = assignment.service();
        Held h = new Held(request, assignment);
        held.put(key, request, assignment);
        String sharingKey = request.sharingKey().orElse(null);
        for (IpAddress ip : assignment.ips()) {
            Object before = holders.get(ip);
            if (before == null) {
                holders.put(ip, key);
                pool.mark(ip);
                List<PoolState> others = overlaps.get(pool);
                if (others != null) {
                    for (PoolState other : others) {
                        other.mark(ip);
                    }
                }
            } else if (before instanceof ServiceKey single) {
                List<ServiceKey> list = new ArrayList<>(2);
                list.add(single);
                list.add(key);
                holders.put(ip, list);
            } else {
                @SuppressWarnings("unchecked")
                List<ServiceKey> list = (List<ServiceKey>) before;
                list.add(key);
            }
            if (sharingKey != null) {
                sharedByKey.computeIfAbsent(sharingKey, _ -> new HashSet<>()).add(ip);
            }
        }
        return h;
    }

    private void drop(ServiceKey key) {
        Assignment assignment = held.assignment(key);
        if (assignment == null) {
            return;
        }
        AllocationRequest request = held.remove(key);
        String sharingKey = request.sharingKey().orElse(null);
        for (IpAddress ip : assignment.ips()) {
            Object before = holders.get(ip);
            boolean stillHeld;
            if (before instanceof ServiceKey) {
                holders.remove(ip);
                stillHeld = false;
            } else {
                @SuppressWarnings("unchecked")
                List<ServiceKey> list = (List<ServiceKey>) before;
                list.remove(key);
                if (list.size() == 1) {
                    holders.put(ip, list.getFirst());
                }
                stillHeld = true;
            }
            if (!stillHeld) {
                PoolState pool = byName.get(assignment.pool());
                pool.clear(ip);
                List<PoolState> others = overlaps.get(pool);
                if (others != null) {
                    for (PoolState other : others) {
                        other.clear(ip);
                    }
                }
            }
            if (sharingKey != null) {
                boolean keyRemains = false;
                for (ServiceKey other : holderList(ip)) {
                    keyRemains |= held.request(other).sharingKey().map(sharingKey::equals).orElse(false);
                }
                if (!keyRemains) {
                    Set<IpAddress> set = sharedByKey.get(sharingKey);
                    if (set != null) {
                        set.remove(ip);
                        if (set.isEmpty()) {
                            sharedByKey.remove(sharingKey);
                        }
                    }
                }
            }
        }
    }

    private Held heldOf(ServiceKey key) {
        Assignment a = held.assignment(key);
        return a == null ? null : new Held(held.request(key), a);
    }

    private List<ServiceKey> holderList(IpAddress ip) {
        Object h = holders.get(ip);
        if (h == null) {
            return List.of();
        }
        if (h instanceof ServiceKey single) {
            return List.of(single);
        }
        @SuppressWarnings("unchecked")
        List<ServiceKey> list = (List<ServiceKey>) h;
        return List.copyOf(list);
    }

    /**
     * Why the requesting Service may not hold this address next to its other holders, as "ns/name, which does not
     * allow sharing with this Service (reason)", or null if it may.
     */
    private String conflict(AllocationRequest request, IpAddress ip) {
        Object h = holders.get(ip);
        if (h == null) {
            return null;
        }
        if (h instanceof ServiceKey single) {
            return single.equals(request.service()) ? null : conflictWith(request, single);
        }
        @SuppressWarnings("unchecked")
        List<ServiceKey> list = (List<ServiceKey>) h;
        for (ServiceKey other : list) {
            if (!other.equals(request.service())) {
                String why = conflictWith(request, other);
                if (why != null) {
                    return why;
                }
            }
        }
        return null;
    }

    private String conflictWith(AllocationRequest request, ServiceKey otherKey) {
        AllocationRequest other = held.request(otherKey);
        String why = sharingProblem(request, other);
        return why == null ? null
                : otherKey + ", which does not allow sharing with this Service (" + why + ")";
    }

    /** MetalLB's sharing rule, as a reason, or null when the two Services may share an address. */
    static String sharingProblem(AllocationRequest mine, AllocationRequest theirs) {
        if (theirs.sharingKey().isEmpty()) {
            return "it has no allow-shared-ip key";
        }
        if (mine.sharingKey().isEmpty()) {
            return "this Service has no allow-shared-ip key";
        }
        if (!mine.sharingKey().get().equals(theirs.sharingKey().get())) {
            return "sharing keys " + Quoted.of(theirs.sharingKey().get()) + " and " + Quoted.of(mine.sharingKey().get()) + " differ";
        }
        if (!backendKey(mine).equals(backendKey(theirs))) {
            return mine.localTraffic() != theirs.localTraffic()
                    ? "one has externalTrafficPolicy Local, the other Cluster"
                    : "both have externalTrafficPolicy Local but different selectors";
        }
        List<ServicePort> overlap = new ArrayList<>();
        for (ServicePort p : mine.ports()) {
            if (theirs.ports().contains(p) && !overlap.contains(p)) {
                overlap.add(p);
            }
        }
        if (!overlap.isEmpty()) {
            return "ports " + join(overlap) + " overlap";
        }
        return null;
    }

    private static Map<String, String> backendKey(AllocationRequest r) {
        return r.localTraffic() ? r.selector() : Map.of();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Messages

    private Outcome.Failed poolNotFound(String name) {
        return new Outcome.Failed(FailureReason.POOL_NOT_FOUND, "requested pool " + Quoted.of(name) + " does not exist"
                + " (pools: " + pools.stream().map(p -> Quoted.of(p.name)).collect(Collectors.joining(", ")) + ")");
    }

    private static Outcome.Failed poolNotAllowed(PoolState pool) {
        return new Outcome.Failed(FailureReason.POOL_NOT_ALLOWED, "requested pool \"" + pool.name
                + "\" is reserved by its serviceAllocation for other Services (" + reservedFor(pool) + ")");
    }

    private static String reservedFor(PoolState pool) {
        ServiceAllocation sa = pool.pool.serviceAllocation().orElseThrow();
        List<String> parts = new ArrayList<>();
        if (!sa.namespaces().isEmpty()) {
            parts.add("namespaces " + new TreeSet<>(sa.namespaces()));
        }
        if (!sa.namespaceSelectors().isEmpty()) {
            parts.add("namespaces matching " + sa.namespaceSelectors().size() + " selector(s)");
        }
        if (!sa.serviceSelectors().isEmpty()) {
            parts.add("Services matching " + sa.serviceSelectors().size() + " selector(s)");
        }
        return String.join("; ", parts);
    }

    private Outcome.Failed noMatchingPool(AllocationRequest request) {
        List<String> limited = new ArrayList<>();
        List<String> manual = new ArrayList<>();
        for (PoolState p : pools) {
            if (!p.pool.autoAssign()) {
                manual.add("pool " + Quoted.of(p.name) + " has autoAssign: false");
            } else if (!allows(p.pool, request)) {
                limited.add("pool " + Quoted.of(p.name) + " is limited by serviceAllocation");
            }
        }
        limited.addAll(manual);
        return new Outcome.Failed(FailureReason.NO_MATCHING_POOL,
                "no pool selects this Service: " + String.join(", ", limited));
    }

    private static String describeCandidates(List<PoolState> candidates) {
        return (candidates.size() == 1 ? "pool " : "pools ")
                + candidates.stream().map(p -> Quoted.of(p.name) + " has " + familiesOf(p))
                        .collect(Collectors.joining(", "));
    }

    private static String familiesOf(PoolState p) {
        return p.hasBothFamilies() ? "IPv4 and IPv6" : p.hasFamily(IpFamily.IPv4) ? "only IPv4" : "only IPv6";
    }

    private static Outcome.Failed exhausted(List<PoolState> pools, IpFamily family, String summary) {
        String what = family != null && pools.stream().anyMatch(PoolState::hasBothFamilies)
                ? "no free " + family + " address" : "no free address";
        List<String> each = pools.stream()
                .map(p -> "pool " + Quoted.of(p.name) + " has " + what + " " + fullness(p))
                .toList();
        String message = each.size() == 1 ? each.getFirst() : summary + ": " + String.join(", ", each);
        return new Outcome.Failed(FailureReason.POOL_EXHAUSTED, message);
    }

    /** At most this many excluded addresses are named in an allocation failure; the pool's Event lists more. */
    private static final int EXCLUDED_NAMED = 3;

    /** "(3 of 4 in use)", and the excluded addresses when the pool has any: they may be why it is full. */
    private static String fullness(PoolState pool) {
        String inUse = pool.inUse() + " of " + pool.total() + " in use";
        if (pool.excluded.isEmpty()) {
            return "(" + inUse + ")";
        }
        Map<IpAddress, String> named = new java.util.LinkedHashMap<>();
        for (Map.Entry<IpAddress, String> e : pool.excluded.entrySet()) {
            if (named.size() == EXCLUDED_NAMED) {
                break;
            }
            named.put(e.getKey(), e.getValue());
        }
        int more = pool.excluded.size() - named.size();
        return "(" + inUse + "; " + pool.excluded.size() + " more not given to any Service: "
                + ExcludedAddresses.describe(named) + (more > 0 ? " and " + more + " more" : "") + ")";
    }

    private static String join(List<?> items) {
        return items.stream().map(Object::toString).collect(Collectors.joining(", "));
    }

    private static List<IpAddress> v4First(List<IpAddress> ips) {
        if (ips.size() == 2 && !ips.get(0).isV4() && ips.get(1).isV4()) {
            return List.of(ips.get(1), ips.get(0));
        }
        return List.copyOf(ips);
    }
}
