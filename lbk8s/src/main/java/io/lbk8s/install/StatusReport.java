package io.lbk8s.install;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpRange;
import io.lbk8s.config.AddressPool;
import io.lbk8s.config.ConfigProblem;
import io.lbk8s.config.ConfigResult;
import io.lbk8s.conflict.AddressConflict;
import io.lbk8s.conflict.ConflictExclusions;
import io.lbk8s.ipam.ExcludedAddresses;
import io.lbk8s.ipam.Exclusions;
import io.lbk8s.ipam.UsableAddresses;
import io.lbk8s.kube.ClusterNames;
import io.lbk8s.kube.ObjectFacts;
import io.lbk8s.kube.PeerViewAnnotation;
import io.lbk8s.kube.ServiceL2Statuses;
import io.lbk8s.kube.ServiceMapping;
import io.lbk8s.service.Annotations;
import io.lbk8s.service.ServiceRequests;
import io.lbk8s.service.ServiceView;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code lbk8s status}, computed: which controller leads (its Lease), pools with their use, every LoadBalancer Service
 * with its address, pool and announcing node, and for each one that is not fully served the reason lbk8s gave (its
 * latest Warning event).
 * Pure: the API objects in, rows out. Counts come from the Services' status, since the controller's metrics are not
 * reachable from the CLI.
 */
public record StatusReport(
        ControllerRow controller,
        List<PoolRow> pools,
        List<ServiceRow> services,
        List<String> configProblems,
        List<SpeakerRow> speakers,
        String configurationNotRead,
        List<String> conflicts,
        List<String> bgpPeers,
        List<BgpSessionRow> bgpSessions) {

    /**
     * Which controller replica leads, and the address claims against the addresses Services show.
     *
     * @param leader    the holder of a Lease renewed within its duration, or "" when no replica leads
     * @param lease     what the Lease says, in words: why there is no leader, or when the leader last renewed it
     * @param claims    the IPAddressClaims, or empty when they could not be listed (no CRD, no permission)
     * @param addresses the distinct addresses in the status of the Services lbk8s serves
     */
    public record ControllerRow(String leader, String lease, Optional<Integer> claims, long addresses) {}

    /** The controllers' Lease, as the status command could read it. */
    public sealed interface LeaseRead {
        record Found(Lease lease) implements LeaseRead {}

        record Missing() implements LeaseRead {}

        /** @param why the API server's refusal, e.g. no permission */
        record Unreadable(String why) implements LeaseRead {}
    }

    /** @param excluded the pool's addresses not given to any Service (as text), with why, in address order */
    public record PoolRow(
            String name,
            List<String> addresses,
            boolean autoAssign,
            String size,
            long used,
            String free,
            Map<String, String> excluded) {}

    public enum State {
        /** has an address and a node answers for it */
        Announced,
        /** has an address, no node announces it */
        Assigned,
        /** no address */
        Pending,
        /** of another loadBalancerClass */
        NotServed
    }

    public record ServiceRow(
            String namespace,
            String name,
            List<String> ips,
            String pool,
            List<String> nodes,
            State state,
            String reason) {}

    public record EventLine(String time, String type, String reason, String message, String source) {}

    /**
     * A speaker as its Pod and its failure detector (the Pod's annotation) describe it.
     *
     * @param detector "may announce", "announces nothing: REASON", or "-" when the speaker publishes no view
     * @param peers    each peer and what this speaker's detector says of it ("alive", "dead", "held", "not-heard")
     */
    public record SpeakerRow(String node, boolean podReady, String detector, Map<String, String> peers) {}

    public record Announcement(String node, List<String> interfaces, String object) {}

    /**
     * One node's BGP session with one BGPPeer, as its BGPSessionState says; {@code disabled} lists the families
     * RFC 7606's AFI/SAFI disable took off it, usually none.
     */
    public record BgpSessionRow(String node, String peer, String bgp, String bfd, List<String> disabled) {}

    /** One node advertising a Service over BGP, as its ServiceBGPStatus says: to which BGPPeers. */
    public record BgpAdvertised(String node, List<String> peers, String object) {}

    /** {@code lbk8s status svc/NAME}: the row, and everything behind it. */
    public record ServiceDetail(
            ServiceRow service,
            String type,
            String loadBalancerClass,
            Optional<PoolRow> pool,
            List<Announcement> announcements,
            List<BgpAdvertised> advertised,
            List<EventLine> events) {}

    /**
     * @param services   every Service the reader could list, in all namespaces when allowed: a pool's use counts the
     *                   addresses of all of them, wherever they are
     * @param namespace  the namespace whose Services to list as rows; empty for all
     * @param configurationNotRead what was found where lbk8s does not read it ({@code MisplacedConfig.summary}), or ""
     * @param clusterAddresses     what the excluded addresses are computed from, as the controller does; empty when
     *                             this user may not list Nodes or EndpointSlices
     * @param conflicts            the speakers' AddressConflicts, live or stale; none when they cannot be listed
     */
    public record Inputs(
            ConfigResult config,
            List<Service> services,
            List<GenericKubernetesResource> l2Statuses,
            List<GenericKubernetesResource> bgpStatuses,
            List<GenericKubernetesResource> bgpSessionStates,
            List<Event> events,
            Optional<String> lbClass,
            Optional<String> namespace,
            List<Pod> speakerPods,
            String configurationNotRead,
            LeaseRead lease,
            Optional<Integer> claims,
            Instant now,
            Optional<Exclusions.Inputs> clusterAddresses,
            List<AddressConflict> conflicts) {}

    public static StatusReport of(Inputs in) {
        List<Service> lbServices = in.services().stream()
                .filter(s -> ServiceMapping.view(s).isLoadBalancer())
                .sorted(Comparator.comparing((Service s) -> s.getMetadata().getNamespace())
                        .thenComparing(s -> s.getMetadata().getName()))
                .toList();
        ExcludedAddresses excluded = excluded(in);
        List<PoolRow> pools = in.config().config().pools().stream()
                .map(p -> poolRow(p, lbServices, excluded))
                .toList();
        List<ServiceRow> rows = lbServices.stream()
                .filter(s -> in.namespace()
                        .map(ns -> ns.equals(s.getMetadata().getNamespace()))
                        .orElse(true))
                .map(s -> row(s, in))
                .toList();
        List<String> problems = in.config().problems().stream()
                .filter(p -> p.severity() == ConfigProblem.Severity.ERROR)
                .map(ConfigProblem::toString)
                .toList();
        List<SpeakerRow> speakers = in.speakerPods().stream()
                .filter(p -> p.getSpec() != null && p.getSpec().getNodeName() != null)
                .sorted(Comparator.comparing((Pod p) -> p.getSpec().getNodeName()))
                .map(StatusReport::speakerRow)
                .toList();
        long addresses = lbServices.stream()
                .filter(s -> ServiceRequests.served(ServiceMapping.view(s), in.lbClass()))
                .flatMap(s -> ServiceMapping.statusIps(s).stream())
                .distinct()
                .count();
        Leadership leadership = leader(in.lease(), in.now());
        ControllerRow controller = new ControllerRow(leadership.leader(), leadership.lease(), in.claims(), addresses);
        List<String> conflicts = in.conflicts().stream()
                .filter(c -> c.liveAt(in.now()))
                .sorted(Comparator.comparing(AddressConflict::address))
                .map(c -> c.address() + " " + ConflictExclusions.describe(c).replace(")", ", phase " + c.phase() + ")")
                        + c.service().map(s -> ", held by " + s).orElse(""))
                .toList();
        List<String> bgpPeers = in.config().config().bgpPeers().stream()
                .map(p -> p.name() + " (" + p.peerAddress() + ", AS "
                        + (p.peerAsn().isPresent()
                                ? String.valueOf(p.peerAsn().getAsLong())
                                : p.dynamicAsn()
                                        .map(d -> d.name().toLowerCase())
                                        .orElse("?"))
                        + ")")
                .sorted()
                .toList();
        List<BgpSessionRow> sessions = in.bgpSessionStates().stream()
                .map(StatusReport::body)
                .map(b -> new BgpSessionRow(
                        text(b, "node"),
                        text(b, "peer"),
                        text(b, "bgpStatus"),
                        text(b, "bfdStatus"),
                        texts(b, "disabledFamilies")))
                .sorted(Comparator.comparing(BgpSessionRow::node).thenComparing(BgpSessionRow::peer))
                .toList();
        return new StatusReport(
                controller, pools, rows, problems, speakers, in.configurationNotRead(), conflicts, bgpPeers, sessions);
    }

    /** Who leads, judged here: the holder of a Lease renewed no longer ago than its duration, by this machine's clock. */
    record Leadership(String leader, String lease) {}

    static Leadership leader(LeaseRead read, Instant now) {
        return switch (read) {
            case LeaseRead.Missing() ->
                new Leadership(
                        "",
                        "no Lease " + ClusterNames.CONTROLLER_LEASE
                                + ": leader election is off (--leader-elect=false), or no controller has started");
            case LeaseRead.Unreadable(String why) ->
                new Leadership("", "the Lease " + ClusterNames.CONTROLLER_LEASE + " could not be read: " + why);
            case LeaseRead.Found(Lease lease) -> {
                LeaseSpec spec = Optional.ofNullable(lease.getSpec()).orElseGet(LeaseSpec::new);
                String holder = Objects.toString(spec.getHolderIdentity(), "");
                Optional<Instant> renewed = Optional.ofNullable(spec.getRenewTime())
                        .or(() -> Optional.ofNullable(spec.getAcquireTime()))
                        .map(ZonedDateTime::toInstant);
                if (holder.isBlank()) {
                    yield new Leadership("", "the Lease has no holder: the last leader stepped down");
                }
                if (renewed.isEmpty() || spec.getLeaseDurationSeconds() == null) {
                    yield new Leadership(
                            "",
                            holder
                                    + " holds the Lease, but it has no renewTime or leaseDurationSeconds to judge it by");
                }
                Duration age = Duration.between(renewed.get(), now);
                String ago = age.isNegative() ? "just now" : seconds(age) + " ago";
                Duration valid = Duration.ofSeconds(spec.getLeaseDurationSeconds());
                if (age.compareTo(valid) <= 0) {
                    yield new Leadership(holder, "renewed " + ago);
                }
                yield new Leadership(
                        "",
                        holder + " last renewed the Lease " + ago + ", longer than its " + seconds(valid)
                                + ": it stopped or cannot reach the API server, and no standby took over");
            }
        };
    }

    /** Whole seconds below a minute, then minutes: "1s", "42s", "3m". */
    private static String seconds(Duration d) {
        return d.toSeconds() < 120 ? d.toSeconds() + "s" : d.toMinutes() + "m";
    }

    private static SpeakerRow speakerRow(Pod pod) {
        Optional<PeerViewAnnotation.View> view = PeerViewAnnotation.View.of(pod);
        return new SpeakerRow(
                pod.getSpec().getNodeName(),
                ObjectFacts.isReady(pod),
                view.map(v -> v.ready() ? "may announce" : "announces nothing: " + v.reason())
                        .orElse("-"),
                view.map(PeerViewAnnotation.View::peers).orElse(Map.of()));
    }

    public static Optional<ServiceDetail> detail(Inputs in, String namespace, String name) {
        Optional<Service> found = in.services().stream()
                .filter(s -> namespace.equals(s.getMetadata().getNamespace())
                        && name.equals(s.getMetadata().getName()))
                .findFirst();
        return found.map(service -> {
            ServiceRow row = row(service, in);
            List<Service> lbServices = in.services().stream()
                    .filter(s -> ServiceMapping.view(s).isLoadBalancer())
                    .toList();
            Optional<PoolRow> pool =
                    in.config().config().pool(row.pool()).map(p -> poolRow(p, lbServices, excluded(in)));
            List<Announcement> announcements = statusesOf(service, in.l2Statuses()).stream()
                    .map(StatusReport::announcement)
                    .toList();
            List<BgpAdvertised> advertised = statusesOf(service, in.bgpStatuses()).stream()
                    .map(StatusReport::advertised)
                    .sorted(Comparator.comparing(BgpAdvertised::node))
                    .toList();
            List<EventLine> events = eventsOf(service, in.events()).stream()
                    .map(e -> new EventLine(
                            time(e),
                            e.getType(),
                            e.getReason(),
                            e.getMessage(),
                            e.getSource() == null
                                    ? ""
                                    : Objects.toString(e.getSource().getComponent(), "")))
                    .toList();
            var spec = service.getSpec();
            return new ServiceDetail(
                    row,
                    spec == null ? "" : Objects.toString(spec.getType(), "ClusterIP"),
                    spec == null || spec.getLoadBalancerClass() == null ? "" : spec.getLoadBalancerClass(),
                    pool,
                    announcements,
                    advertised,
                    events);
        });
    }

    /** The addresses no Service gets, computed as the controller computes them; none known without the objects. */
    private static ExcludedAddresses excluded(Inputs in) {
        return in.clusterAddresses().map(Exclusions::of).orElse(ExcludedAddresses.NONE);
    }

    /**
     * A pool's size is what the allocator can hand out from it (avoidBuggyIPs' .0 and .255 and the excluded addresses
     * left out), counted as the allocator counts it; an address a Service shows that the pool would not hand out is
     * used but takes no room.
     */
    private static PoolRow poolRow(AddressPool pool, List<Service> services, ExcludedAddresses excluded) {
        BigInteger size = BigInteger.valueOf(UsableAddresses.of(pool, excluded));
        Map<IpAddress, String> excludedHere = UsableAddresses.excludedIn(pool, excluded);
        Set<IpAddress> used = new TreeSet<>();
        services.forEach(
                s -> ServiceMapping.statusIps(s).stream().filter(pool::contains).forEach(used::add));
        long takingRoom = used.stream()
                .filter(ip -> !pool.forbids(ip) && !excludedHere.containsKey(ip))
                .count();
        return new PoolRow(
                pool.name(),
                pool.ranges().stream().map(IpRange::text).toList(),
                pool.autoAssign(),
                count(size),
                used.size(),
                count(size.subtract(BigInteger.valueOf(takingRoom))),
                asText(excludedHere));
    }

    private static Map<String, String> asText(Map<IpAddress, String> excluded) {
        Map<String, String> text = new LinkedHashMap<>();
        excluded.forEach((ip, why) -> text.put(ip.toString(), why));
        return text;
    }

    /** IPv6 pools can be astronomically large; beyond a trillion, a power of two says enough. */
    private static String count(BigInteger n) {
        return n.bitLength() > 40 ? "~2^" + (n.bitLength() - 1) : n.toString();
    }

    private static ServiceRow row(Service service, Inputs in) {
        ServiceView view = ServiceMapping.view(service);
        List<String> ips = view.statusIps().stream().map(IpAddress::toString).toList();
        String pool = Optional.ofNullable(view.annotations().get(Annotations.ALLOCATED_FROM_POOL))
                .or(() -> view.statusIps().stream()
                        .findFirst()
                        .flatMap(ip -> in.config().config().pools().stream()
                                .filter(p -> p.contains(ip))
                                .findFirst())
                        .map(AddressPool::name))
                .orElse("");
        // layer 2's one node, and every node that advertises the Service over BGP
        List<String> nodes = java.util.stream.Stream.concat(
                        statusesOf(service, in.l2Statuses()).stream()
                                .map(StatusReport::announcement)
                                .map(Announcement::node),
                        statusesOf(service, in.bgpStatuses()).stream()
                                .map(StatusReport::advertised)
                                .map(BgpAdvertised::node))
                .distinct()
                .sorted()
                .toList();
        State state;
        String reason;
        if (!view.isLoadBalancer()) {
            state = State.NotServed;
            reason = "type is "
                    + Objects.toString(
                            service.getSpec() == null ? null : service.getSpec().getType(), "ClusterIP")
                    + ", not LoadBalancer";
        } else if (!ServiceRequests.served(view, in.lbClass())) {
            state = State.NotServed;
            reason = "loadBalancerClass " + view.loadBalancerClass().orElse("(none)") + " is not served by lbk8s"
                    + in.lbClass().map(c -> " (it serves " + c + ")").orElse("");
        } else if (ips.isEmpty()) {
            state = State.Pending;
            reason = latestWarning(service, in.events(), "AllocationFailed")
                    .map(Event::getMessage)
                    .orElse("no address yet, and no AllocationFailed event: is the controller running?");
        } else if (nodes.isEmpty()) {
            state = State.Assigned;
            reason = latestWarning(service, in.events(), "NotAnnounced")
                    .map(Event::getMessage)
                    .orElse("no node announces it yet (no ServiceL2Status or ServiceBGPStatus): are the speakers"
                            + " running and ready?");
        } else {
            state = State.Announced;
            reason = "";
        }
        return new ServiceRow(
                service.getMetadata().getNamespace(), service.getMetadata().getName(), ips, pool, nodes, state, reason);
    }

    private static List<GenericKubernetesResource> statusesOf(
            Service service, List<GenericKubernetesResource> statuses) {
        return statuses.stream()
                .filter(s -> {
                    Map<String, String> labels =
                            Optional.ofNullable(s.getMetadata().getLabels()).orElse(Map.of());
                    return service.getMetadata().getName().equals(labels.get(ServiceL2Statuses.SERVICE_NAME_LABEL))
                            && service.getMetadata()
                                    .getNamespace()
                                    .equals(labels.get(ServiceL2Statuses.SERVICE_NAMESPACE_LABEL));
                })
                .toList();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> body(GenericKubernetesResource status) {
        return status.getAdditionalProperties().get("status") instanceof Map<?, ?> m
                ? (Map<String, Object>) m
                : Map.of();
    }

    private static String text(Map<String, Object> body, String field) {
        return Objects.toString(body.get(field), "");
    }

    private static List<String> texts(Map<String, Object> body, String field) {
        return body.get(field) instanceof List<?> list
                ? list.stream().map(String::valueOf).toList()
                : List.of();
    }

    private static BgpAdvertised advertised(GenericKubernetesResource status) {
        Map<String, Object> body = body(status);
        List<String> peers = new ArrayList<>();
        if (body.get("peers") instanceof List<?> list) {
            list.forEach(p -> peers.add(String.valueOf(p)));
        }
        String node = Objects.toString(body.getOrDefault(
                "node",
                Optional.ofNullable(status.getMetadata().getLabels())
                        .map(l -> l.get(ServiceL2Statuses.NODE_LABEL))
                        .orElse("")));
        return new BgpAdvertised(node, peers, status.getMetadata().getName());
    }

    private static Announcement announcement(GenericKubernetesResource status) {
        Map<String, Object> body = body(status);
        String node = Objects.toString(body.getOrDefault(
                "node",
                Optional.ofNullable(status.getMetadata().getLabels())
                        .map(l -> l.get(ServiceL2Statuses.NODE_LABEL))
                        .orElse("")));
        List<String> interfaces = new ArrayList<>();
        if (body.get("interfaces") instanceof List<?> list) {
            list.forEach(i -> {
                if (i instanceof Map<?, ?> entry && entry.get("name") != null) {
                    interfaces.add(entry.get("name").toString());
                }
            });
        }
        return new Announcement(node, interfaces, status.getMetadata().getName());
    }

    /** The Service's events, oldest first; an event of an earlier Service of the same name (another uid) is not its. */
    static List<Event> eventsOf(Service service, List<Event> events) {
        String uid = service.getMetadata().getUid();
        List<Event> mine = new ArrayList<>();
        for (Event e : events) {
            var ref = e.getInvolvedObject();
            if (ref != null
                    && "Service".equals(ref.getKind())
                    && service.getMetadata().getName().equals(ref.getName())
                    && service.getMetadata().getNamespace().equals(ref.getNamespace())
                    && (uid == null || ref.getUid() == null || uid.equals(ref.getUid()))) {
                mine.add(e);
            }
        }
        // stable: events of the same second keep the API's (creation) order
        mine.sort(Comparator.comparing(StatusReport::time));
        return mine;
    }

    /**
     * The Service's latest Warning of this reason. Of this reason only, not the latest of any: the controller writes
     * AllocationFailed and the speakers NotAnnounced, each stamped by its own node's clock, so a NotAnnounced of when
     * the Service still had an address may sort after the AllocationFailed that explains why it has none now.
     */
    private static Optional<Event> latestWarning(Service service, List<Event> events, String reason) {
        List<Event> warnings = eventsOf(service, events).stream()
                .filter(e -> "Warning".equals(e.getType()) && reason.equals(e.getReason()))
                .toList();
        return warnings.isEmpty() ? Optional.empty() : Optional.of(warnings.getLast());
    }

    private static String time(Event e) {
        return Optional.ofNullable(e.getLastTimestamp())
                .or(() -> Optional.ofNullable(e.getEventTime()).map(t -> t.getTime()))
                .or(() -> Optional.ofNullable(e.getFirstTimestamp()))
                .or(() -> Optional.ofNullable(e.getMetadata().getCreationTimestamp()))
                .orElse("");
    }
}
