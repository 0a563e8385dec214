package io.lbk8s.install;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.lbk8s.address.IpRange;
import io.lbk8s.config.ConfigParser;
import io.lbk8s.config.ConfigProblem;
import io.lbk8s.config.ConfigResult;
import io.lbk8s.kube.ConfigResources;
import java.nio.file.Path;
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
    public record Plan(Distribution distribution, List<NodeFacts> nodes, InstallValues values, String addressesSource,
            List<String> warnings) {

        public List<HasMetadata> objects() {
            return Manifests.render(values);
        }
    }

    private final KubernetesClient client;
    private final Rollout.Sleeper sleeper;

    public Installer(KubernetesClient client, Rollout.Sleeper sleeper) {
        this.client = client;
        this.sleeper = sleeper;
    }

    /** Reads the cluster and decides; writes nothing (so it is also {@code --dry-run=server}). */
    public Plan plan(Request request) {
        List<NodeFacts> nodes = client.nodes().list().getItems().stream().map(NodeFacts::of).toList();
        Distribution distribution = Distribution.detect(nodes);
        String namespace = request.values().namespace();
        List<GenericKubernetesResource> pools = list(ConfigResources.IP_ADDRESS_POOLS, namespace);
        Optional<GenericKubernetesResource> ours = pools.stream()
                .filter(p -> p.getMetadata().getName().equals(request.values().poolName()))
                .filter(Applier.Objects::managedByInstall).findFirst();
        List<GenericKubernetesResource> others = pools.stream().filter(p -> ours.map(o -> o != p).orElse(true)).toList();

        List<String> addresses;
        String source;
        if (!request.addresses().isEmpty()) {
            addresses = request.addresses();
            source = "from --addresses";
        } else if (ours.isPresent() && !addressesOf(ours.get()).isEmpty()) {
            // a re-run keeps the pool it made: moving it would take addresses away from Services
            addresses = addressesOf(ours.get());
            source = "kept from the existing IPAddressPool " + request.values().poolName();
        } else {
            var inputs = new RangeChoice.Inputs(nodes.stream().flatMap(n -> n.internalIps().stream()).toList(),
                    DockerNetworks.read(request.dockerSocket()), rangesOf(others));
            switch (RangeChoice.choose(inputs)) {
                case RangeChoice.Choice.NoRoom(String message) -> throw new InstallProblem(message);
                case RangeChoice.Choice.Chosen chosen -> {
                    addresses = chosen.addresses();
                    source = "chosen in " + String.join(", ", chosen.picks().stream()
                            .map(p -> p.network() + " (" + p.networkSource() + ")").toList());
                }
            }
        }
        InstallValues values = request.values().withAddresses(addresses);
        validate(values, others, namespace);

        List<String> warnings = new ArrayList<>();
        if (!nodes.isEmpty() && nodes.stream().allMatch(NodeFacts::excludedFromLoadBalancers) && !values.ignoreExcludeLb()) {
            warnings.add("every node carries the label " + NodeFacts.EXCLUDE_LB_LABEL + (distribution == Distribution.TALOS
                    ? " (Talos puts it on control-plane nodes; a single-node cluster has no other)" : "")
                    + ", so no node may announce and Services will get an address nobody answers for;"
                    + " run install again with --ignore-exclude-lb to let these nodes announce");
        }
        return new Plan(distribution, nodes, values, source, List.copyOf(warnings));
    }

    /** The rendered pool must be a valid configuration next to the pools already there (overlaps, names). */
    private void validate(InstallValues values, List<GenericKubernetesResource> otherPools, String namespace) {
        List<GenericKubernetesResource> rendered = Manifests.pool(values);
        if (rendered.isEmpty()) {
            return;
        }
        Optional<ConfigMap> configMap = Optional.ofNullable(
                get(() -> client.configMaps().inNamespace(namespace).withName(ConfigResources.CONFIG_MAP_NAME).get()));
        List<GenericKubernetesResource> withOurs = new ArrayList<>(otherPools);
        withOurs.add(rendered.getFirst());
        // only the errors our pool brings count: the user's own configuration problems are the controller's to report
        List<String> before = errors(ConfigParser.parse(ConfigResources.sources(otherPools, List.of(), configMap)));
        List<String> after = new ArrayList<>(errors(ConfigParser.parse(ConfigResources.sources(withOurs, List.of(), configMap))));
        after.removeAll(before);
        if (!after.isEmpty()) {
            throw new InstallProblem("the pool " + String.join(",", values.addresses()) + " would be rejected: "
                    + String.join("; ", after) + " (choose other --addresses)");
        }
    }

    private static List<String> errors(ConfigResult result) {
        return result.problems().stream().filter(p -> p.severity() == ConfigProblem.Severity.ERROR)
                .map(p -> p.origin().kind() + " " + p.origin().name() + ": " + p.message()).toList();
    }

    /** Applies every object in order; custom resources wait until their CRDs are served. */
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
        }
        return results;
    }

    private void awaitCrds(String namespace) throws InterruptedException {
        for (int attempt = 0; ; attempt++) {
            try {
                client.genericKubernetesResources(ConfigResources.IP_ADDRESS_POOLS).inNamespace(namespace).list();
                client.genericKubernetesResources(ConfigResources.L2_ADVERTISEMENTS).inNamespace(namespace).list();
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
        var deployment = client.apps().deployments().inNamespace(namespace).withName(Manifests.CONTROLLER).get();
        var daemonSet = client.apps().daemonSets().inNamespace(namespace).withName(Manifests.SPEAKER).get();
        List<Rollout.Progress> progress = new ArrayList<>();
        progress.add(deployment == null ? new Rollout.Progress("deployment/" + Manifests.CONTROLLER, false, "not found")
                : Rollout.of(deployment));
        progress.add(daemonSet == null ? new Rollout.Progress("daemonset/" + Manifests.SPEAKER, false, "not found")
                : Rollout.of(daemonSet));
        return progress;
    }

    private List<GenericKubernetesResource> list(io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext context,
            String namespace) {
        try {
            return client.genericKubernetesResources(context).inNamespace(namespace).list().getItems();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return List.of(); // the CRDs are not installed yet
            }
            throw e;
        }
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
        if (pool.getAdditionalProperties().get("spec") instanceof Map<?, ?> spec && spec.get("addresses") instanceof List<?> list) {
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
