package io.lbk8s.install;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.address.IpRange;
import io.lbk8s.config.ConfigParser;
import io.lbk8s.config.ConfigProblem;
import io.lbk8s.config.ConfigResult;
import io.lbk8s.install.RangeChoice.KnownNetwork;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.kube.CustomResources;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The imperative shell of {@code lbk8s install}: reads the cluster, lets the pure parts decide (distribution, range,
 * manifests), then applies, waits and verifies, telling the user each step through {@code say}.
 */
public final class Installer {

    /**
     * @param addresses     the user's --addresses; empty to detect them
     * @param dockerSocket  where to look for the Docker Engine API (the node containers' network)
     */
    public record Request(InstallValues values, List<String> addresses, Path dockerSocket) {}

    /** What install will do, decided before anything is written. */
    /**
     * @param poolKept  an IPAddressPool or L2Advertisement named like --pool-name exists and install did not make it:
     *                  install makes neither, and {@code values.addresses()} are that pool's, for show
     * @param notes     one-line facts the user should read (printed with the cluster line)
     */
    public record Plan(
            Distribution distribution,
            List<NodeFacts> nodes,
            InstallValues values,
            String addressesSource,
            boolean poolKept,
            List<String> notes,
            List<String> warnings) {

        public List<HasMetadata> objects() {
            List<HasMetadata> objects = Manifests.render(values);
            return poolKept
                    ? objects.stream()
                            .filter(o -> !(o instanceof GenericKubernetesResource))
                            .toList()
                    : objects;
        }
    }

    private final KubernetesClient client;
    private final Rollout.Sleeper sleeper;
    private final SecureRandom random = new SecureRandom();

    public Installer(KubernetesClient client, Rollout.Sleeper sleeper) {
        this.client = client;
        this.sleeper = sleeper;
    }

    /** Reads the cluster and decides; writes nothing (so it is also {@code --dry-run=server}). */
    public Plan plan(Request request) {
        List<NodeFacts> nodes =
                client.nodes().list().getItems().stream().map(NodeFacts::of).toList();
        Distribution distribution = Distribution.detect(nodes);
        String namespace = request.values().namespace();
        String poolName = request.values().poolName();
        List<GenericKubernetesResource> pools = list(ConfigResources.IP_ADDRESS_POOLS, namespace);
        Optional<GenericKubernetesResource> sameName = pools.stream()
                .filter(p -> p.getMetadata().getName().equals(poolName))
                .findFirst();
        Optional<GenericKubernetesResource> ours = sameName.filter(Applier.Objects::managedByInstall);
        Optional<GenericKubernetesResource> usersPool = sameName.filter(p -> !Applier.Objects.managedByInstall(p));
        Optional<GenericKubernetesResource> usersAdvertisement =
                list(ConfigResources.L2_ADVERTISEMENTS, namespace).stream()
                        .filter(a -> a.getMetadata().getName().equals(poolName) && !Applier.Objects.managedByInstall(a))
                        .findFirst();
        List<GenericKubernetesResource> others = pools.stream()
                .filter(p -> sameName.map(o -> o != p).orElse(true))
                .toList();
        List<KnownNetwork> knownNetworks = DockerNetworks.read(request.dockerSocket());
        List<IpAddress> nodeIps =
                nodes.stream().flatMap(n -> n.internalIps().stream()).toList();

        List<String> notes = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        List<String> addresses;
        String source;
        boolean poolKept = usersPool.isPresent() || usersAdvertisement.isPresent();
        Optional<GenericKubernetesResource> kept = Optional.empty(); // the pool whose addresses are kept, if any
        if (poolKept) {
            // the user's (MetalLB's) objects of that name: never changed, never ours; we make no pool next to them
            String ignored = request.addresses().isEmpty()
                    ? ""
                    : "; --addresses is not applied to it (pass another --pool-name to make a pool of lbk8s install's own)";
            if (usersPool.isPresent()) {
                kept = usersPool;
                addresses = addressesOf(usersPool.get());
                source = "those of the existing IPAddressPool " + poolName + ", not made by lbk8s install";
                notes.add("ipaddresspool " + poolName
                        + " exists and was not made by lbk8s install: kept; its addresses are used as they are"
                        + (usersAdvertisement.isEmpty() ? ", and no L2Advertisement is made for it" : "") + ignored);
            } else {
                addresses = List.of();
                source = "none: no pool is made";
            }
            usersAdvertisement.ifPresent(
                    a -> notes.add("l2advertisement " + poolName + " exists and was not made by lbk8s install: kept"
                            + (usersPool.isEmpty()
                                    ? ", so no pool is made either (pass another --pool-name to make one)"
                                    : "")));
        } else if (!request.addresses().isEmpty()) {
            addresses = request.addresses();
            source = "from --addresses";
        } else if (ours.isPresent() && !addressesOf(ours.get()).isEmpty()) {
            // a re-run keeps the pool it made: moving it would take addresses away from Services
            kept = ours;
            addresses = addressesOf(ours.get());
            source = "kept from the existing IPAddressPool " + poolName;
        } else {
            var inputs = new RangeChoice.Inputs(nodeIps, knownNetworks, rangesOf(others));
            switch (RangeChoice.choose(inputs)) {
                case RangeChoice.Choice.NoRoom(String message) -> throw new InstallProblem(message);
                case RangeChoice.Choice.Chosen chosen -> {
                    addresses = chosen.addresses();
                    source = "chosen in "
                            + String.join(
                                    ", ",
                                    chosen.picks().stream()
                                            .map(p -> p.network() + " (" + p.networkSource() + ")")
                                            .toList());
                }
            }
        }
        InstallValues values = request.values().withAddresses(addresses);
        if (!poolKept) {
            validate(values, others, namespace, source);
        }
        kept.ifPresent(pool -> outsideNodeNetworks(pool, nodeIps, knownNetworks, others, ours.isPresent())
                .ifPresent(warnings::add));

        if (!nodes.isEmpty()
                && nodes.stream().allMatch(NodeFacts::excludedFromLoadBalancers)
                && !values.ignoreExcludeLb()) {
            warnings.add("every node carries the label " + NodeFacts.EXCLUDE_LB_LABEL
                    + (distribution == Distribution.TALOS
                            ? " (Talos puts it on control-plane nodes; a single-node cluster has no other)"
                            : "")
                    + ", so no node may announce and Services will get an address nobody answers for;"
                    + " run install again with --ignore-exclude-lb to let these nodes announce");
        }
        return new Plan(distribution, nodes, values, source, poolKept, List.copyOf(notes), List.copyOf(warnings));
    }

    /**
     * A kept pool (from an earlier install, a {@code kubectl apply} of deploy/lbk8s.yaml, or the user's) with ranges
     * outside every node network: no node can answer ARP for them. Says which, where the nodes are, and what to run.
     */
    private static Optional<String> outsideNodeNetworks(
            GenericKubernetesResource pool,
            List<IpAddress> nodeIps,
            List<KnownNetwork> knownNetworks,
            List<GenericKubernetesResource> others,
            boolean ours) {
        List<KnownNetwork> networks = new ArrayList<>();
        for (IpFamily family : IpFamily.values()) {
            List<IpAddress> nodes = nodeIps.stream()
                    .filter(ip -> ip.family() == family)
                    .sorted()
                    .distinct()
                    .toList();
            if (!nodes.isEmpty()) {
                networks.add(RangeChoice.networkOf(nodes, knownNetworks));
            }
        }
        if (networks.isEmpty()) {
            return Optional.empty(); // no node has an InternalIP: nothing to compare with
        }
        List<String> outside = new ArrayList<>();
        for (String text : addressesOf(pool)) {
            if (IpRange.parse(text) instanceof IpRange.Parsed.Valid(IpRange range)
                    && networks.stream()
                            .noneMatch(n -> n.network().contains(range.first())
                                    && n.network().contains(range.last()))) {
                outside.add(text);
            }
        }
        if (outside.isEmpty()) {
            return Optional.empty();
        }
        String name = pool.getMetadata().getName();
        String free = RangeChoice.choose(new RangeChoice.Inputs(nodeIps, knownNetworks, rangesOf(others)))
                        instanceof RangeChoice.Choice.Chosen chosen
                ? String.join(",", chosen.addresses())
                : "RANGE";
        return Optional.of("the IPAddressPool " + name + " keeps " + String.join(",", outside)
                + ", outside the node network"
                + (networks.size() == 1 ? " " : "s ")
                + String.join(
                        ", ",
                        networks.stream()
                                .map(n -> n.network() + " (" + n.source() + ")")
                                .toList())
                + ": no node can answer for those addresses, so Services get an address nobody reaches; "
                + (ours
                        ? "run lbk8s install --addresses " + free + " to move the pool into the node network"
                        : "that pool is not lbk8s install's: edit it, or run lbk8s install --pool-name NAME --addresses "
                                + free + " to make one of lbk8s install's own"));
    }

    /** The rendered pool must be a valid configuration next to the pools already there (overlaps, names). */
    private void validate(
            InstallValues values, List<GenericKubernetesResource> otherPools, String namespace, String source) {
        List<GenericKubernetesResource> rendered = Manifests.pool(values);
        if (rendered.isEmpty()) {
            return;
        }
        Optional<ConfigMap> configMap = Optional.ofNullable(get(() -> client.configMaps()
                .inNamespace(namespace)
                .withName(ConfigResources.CONFIG_MAP_NAME)
                .get()));
        List<GenericKubernetesResource> withOurs = new ArrayList<>(otherPools);
        withOurs.add(rendered.getFirst());
        // only the errors our pool brings count: the user's own configuration problems are the controller's to report
        List<String> before = errors(ConfigParser.parse(ConfigResources.sources(otherPools, List.of(), configMap)));
        List<String> after =
                new ArrayList<>(errors(ConfigParser.parse(ConfigResources.sources(withOurs, List.of(), configMap))));
        after.removeAll(before);
        if (!after.isEmpty()) {
            // a name clash is fixed with --pool-name, anything else (overlaps, bad ranges) with --addresses
            boolean name = after.stream().allMatch(e -> e.contains("pool name "));
            String fix = name
                    ? "pass another --pool-name (or remove that pool)"
                    : "pass other --addresses"
                            + (source.equals("from --addresses") ? "" : " (these were " + source + ")")
                            + ", a range no other pool holds";
            throw new InstallProblem("the pool " + String.join(",", values.addresses()) + " would be rejected: "
                    + String.join("; ", after) + "; " + fix);
        }
    }

    private static List<String> errors(ConfigResult result) {
        return result.problems().stream()
                .filter(p -> p.severity() == ConfigProblem.Severity.ERROR)
                .map(p -> p.origin().kind() + " " + p.origin().name() + ": " + p.message())
                .toList();
    }

    /**
     * Applies every object in order; custom resources wait until their CRDs are served. Right after the namespace,
     * before the speakers, it creates their key Secret if it is missing (with a new random key), and never replaces
     * an existing one: a re-run keeps the key.
     */
    public List<Applier.Result> apply(Plan plan, Consumer<String> say) throws InterruptedException {
        Applier applier = new Applier(client);
        List<Applier.Result> results = new ArrayList<>();
        boolean crdsServed = false;
        for (HasMetadata object : plan.objects()) {
            if (object instanceof GenericKubernetesResource && !crdsServed) {
                awaitCrds(plan.values().namespace());
                crdsServed = true;
            }
            Applier.Result result = applier.apply(object);
            say.accept(result.toString());
            results.add(result);
            if (object instanceof Namespace) {
                Applier.Result keys = applier.createIfAbsent(
                        Manifests.peerSecret(plan.values().namespace(), Manifests.newPeerKeys(random)),
                        "it holds the speakers' keys, which install never replaces");
                say.accept(keys.toString());
                results.add(keys);
            }
        }
        return results;
    }

    private void awaitCrds(String namespace) throws InterruptedException {
        for (int attempt = 0; ; attempt++) {
            try {
                for (var kind : ConfigResources.KINDS) {
                    client.genericKubernetesResources(kind)
                            .inNamespace(namespace)
                            .list();
                }
                return;
            } catch (KubernetesClientException e) {
                if (attempt >= 60) {
                    throw new InstallProblem("the metallb.io CRDs are not served after 30s: " + e.getMessage());
                }
                sleeper.sleep(Duration.ofMillis(500));
            }
        }
    }

    public List<Rollout.Progress> progress(String namespace) {
        var deployment = client.apps()
                .deployments()
                .inNamespace(namespace)
                .withName(Manifests.CONTROLLER)
                .get();
        var daemonSet = client.apps()
                .daemonSets()
                .inNamespace(namespace)
                .withName(Manifests.SPEAKER)
                .get();
        List<Rollout.Progress> progress = new ArrayList<>();
        progress.add(
                deployment == null
                        ? new Rollout.Progress("deployment/" + Manifests.CONTROLLER, false, "not found")
                        : Rollout.of(deployment));
        progress.add(
                daemonSet == null
                        ? new Rollout.Progress("daemonset/" + Manifests.SPEAKER, false, "not found")
                        : Rollout.of(daemonSet));
        return progress;
    }

    private List<GenericKubernetesResource> list(
            io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext context, String namespace) {
        return CustomResources.listIfInstalled(client, context, namespace)
                .orElse(List.of()); // the CRDs are not installed yet
    }

    private static <T> T get(java.util.function.Supplier<T> read) {
        try {
            return read.get();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return null;
            }
            throw e;
        }
    }

    @SuppressWarnings("unchecked")
    static List<String> addressesOf(GenericKubernetesResource pool) {
        if (pool.getAdditionalProperties().get("spec") instanceof Map<?, ?> spec
                && spec.get("addresses") instanceof List<?> list) {
            return list.stream().map(String::valueOf).toList();
        }
        return List.of();
    }

    private static List<IpRange> rangesOf(List<GenericKubernetesResource> pools) {
        List<IpRange> ranges = new ArrayList<>();
        for (GenericKubernetesResource pool : pools) {
            for (String text : addressesOf(pool)) {
                if (IpRange.parse(text) instanceof IpRange.Parsed.Valid(IpRange range)) {
                    ranges.add(range);
                }
            }
        }
        return ranges;
    }
}
