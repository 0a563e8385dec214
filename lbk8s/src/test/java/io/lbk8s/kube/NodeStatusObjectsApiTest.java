package io.lbk8s.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.service.ServiceKey;
import io.lbk8s.testkit.cluster.FreshApiServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The status objects a speaker keeps per node, as {@code kubectl get} shows them: ServiceL2Statuses (and, written the
 * same way, ServiceBGPStatuses) and BGPSessionStates.
 */
class NodeStatusObjectsApiTest {
    static final String NS = "lbk8s-system";
    static final ServiceKey WEB = new ServiceKey("default", "web");
    static final ServiceKey OLD = new ServiceKey("default", "old");

    FreshApiServer server;
    KubernetesClient client;

    @BeforeEach
    void start() throws Exception {
        server = FreshApiServer.startWithCrds(Path.of("..", "deploy", "crds"));
        client = server.client();
        server.ensureNamespace(NS);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void aServiceStatusReplacesWhatAFailedNodeAndAnEarlierRunLeftAndLeavesALiveNodesOwn() {
        // node-2 failed while announcing web; node-3 still announces it (ECMP-like overlap during a handover); an
        // earlier run of node-1 announced a Service that is gone
        leftBehind(ServiceL2Statuses.CONTEXT, "l2-node-2-x", "node-2", WEB);
        leftBehind(ServiceL2Statuses.CONTEXT, "l2-node-3-x", "node-3", WEB);
        leftBehind(ServiceL2Statuses.CONTEXT, "l2-node-1-x", "node-1", OLD);

        try (var statuses = new ServiceL2Statuses(client, NS, "node-1", node -> true)) {
            statuses.publish(Map.of(WEB, Set.of("eth1", "eth0")), Set.of("node-2"));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> nodesOf(ServiceL2Statuses.CONTEXT).equals(Map.of("node-1", 1, "node-3", 1)));
            GenericKubernetesResource own = only(ServiceL2Statuses.CONTEXT, "node-1");
            assertThat(own.getMetadata().getName())
                    .isEqualTo(statuses.nameOf(WEB))
                    .startsWith("l2-node-1-");
            assertThat(own.getMetadata().getLabels())
                    .containsEntry(ServiceStatuses.NODE_LABEL, "node-1")
                    .containsEntry(ServiceStatuses.SERVICE_NAME_LABEL, "web")
                    .containsEntry(ServiceStatuses.SERVICE_NAMESPACE_LABEL, "default");
            assertThat(own.getAdditionalProperties().get("status"))
                    .isEqualTo(Map.of(
                            "node",
                            "node-1",
                            "serviceName",
                            "web",
                            "serviceNamespace",
                            "default",
                            "interfaces",
                            List.of(Map.of("name", "eth0"), Map.of("name", "eth1"))));

            statuses.withdraw(5000);
        }
        assertThat(nodesOf(ServiceL2Statuses.CONTEXT)).isEqualTo(Map.of("node-3", 1));
    }

    /**
     * At 10,000 Services a speaker writes thousands of these objects: a new one takes a create and a status patch, a
     * changed one its status patch alone, with no read before either.
     */
    @Test
    void aNewObjectIsTwoRequestsAndAChangedStatusOne() {
        try (var statuses = new ServiceL2Statuses(client, NS, "node-1", node -> true)) {
            statuses.publish(Map.of(), Set.of()); // the first publish lists what an earlier run left
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> !requestsFor("servicel2statuses").isEmpty());
            int before = requestsFor("servicel2statuses").size();
            String name = statuses.nameOf(WEB);

            String patch =
                    "PATCH /apis/metallb.io/v1beta1/namespaces/lbk8s-system/servicel2statuses/" + name + "/status";
            statuses.publish(Map.of(WEB, Set.of("eth0", "eth1")), Set.of());
            int afterNew = awaitRequest(patch, before);
            assertThat(requestsFor("servicel2statuses").subList(before, afterNew))
                    .as("a new object")
                    .containsExactly("POST /apis/metallb.io/v1beta1/namespaces/lbk8s-system/servicel2statuses", patch);
            assertThat(interfacesOf(name)).isEqualTo(List.of("eth0", "eth1"));
            before = requestsFor("servicel2statuses").size(); // the test's own read included

            statuses.publish(Map.of(WEB, Set.of("eth1")), Set.of());
            int afterChange = awaitRequest(patch, before);
            assertThat(requestsFor("servicel2statuses").subList(before, afterChange))
                    .as("a changed status")
                    .containsExactly(patch);
            assertThat(interfacesOf(name)).isEqualTo(List.of("eth1"));
        }
    }

    /** Waits for {@code request} after the first {@code from} requests; the count up to and including it. */
    private int awaitRequest(String request, int from) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() ->
                        requestsFor("servicel2statuses").stream().skip(from).anyMatch(request::equals));
        List<String> requests = requestsFor("servicel2statuses");
        return from + requests.subList(from, requests.size()).indexOf(request) + 1;
    }

    /**
     * Those the server served, as {@code METHOD path} without the query. Not those it turned away: a write retried
     * after a refusal is the same write (a fresh CRD is at times refused with 429 at first).
     */
    private List<String> requestsFor(String plural) {
        return server.requests().stream()
                .filter(r -> r.code() < 400)
                .filter(r -> r.path().matches(".*/namespaces/" + NS + "/" + plural + "([/?].*)?"))
                .map(r -> r.method() + " " + r.path().replaceAll("\\?.*", ""))
                .toList();
    }

    @SuppressWarnings("unchecked")
    private List<String> interfacesOf(String name) {
        GenericKubernetesResource object = client.genericKubernetesResources(ServiceL2Statuses.CONTEXT)
                .inNamespace(NS)
                .withName(name)
                .get();
        if (object == null || !(object.getAdditionalProperties().get("status") instanceof Map<?, ?> status)) {
            return List.of();
        }
        return ((List<Map<String, String>>) status.get("interfaces"))
                .stream().map(i -> i.get("name")).toList();
    }

    /**
     * The plan named node-2 failed, but by the time the write runs node-2 is back (its peers hear it again) and has
     * written its object anew: it keeps it. Removing it would leave the Service with no ServiceL2Status once node-2
     * leads again, since node-2 writes only when what it announces changes.
     */
    @Test
    void aNodeThatCameBackSinceThePlanKeepsItsObject() {
        leftBehind(ServiceL2Statuses.CONTEXT, "l2-node-2-x", "node-2", WEB);
        Set<String> failedNow = Set.of(); // the live view: node-2 is back
        try (var statuses = new ServiceL2Statuses(client, NS, "node-1", failedNow::contains)) {
            statuses.publish(Map.of(WEB, Set.of("eth0")), Set.of("node-2"));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> nodesOf(ServiceL2Statuses.CONTEXT).containsKey("node-1"));
            statuses.withdraw(5000);
        }
        assertThat(nodesOf(ServiceL2Statuses.CONTEXT)).isEqualTo(Map.of("node-2", 1));
    }

    /**
     * After a stall the speaker forgets what it wrote ({@code rewriteAll}); if it then announces nothing, the object it
     * wrote before the stall still goes, since no other node removes a live node's objects.
     */
    @Test
    void afterRewriteAllAnObjectNoLongerWantedGoesThoughNothingSeemsToChange() {
        try (var statuses = new ServiceL2Statuses(client, NS, "node-1", node -> true)) {
            statuses.publish(Map.of(WEB, Set.of("eth0")), Set.of());
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> nodesOf(ServiceL2Statuses.CONTEXT).equals(Map.of("node-1", 1)));

            statuses.rewriteAll();
            statuses.publish(Map.of(), Set.of());
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> nodesOf(ServiceL2Statuses.CONTEXT).isEmpty());
        }
    }

    @Test
    void aSessionStateForEachPeerOfThisNodeOnly() {
        leftBehind(BgpSessionStates.CONTEXT, "session-node-2-x", "node-2", null);

        try (var sessions = new BgpSessionStates(client, NS, "node-1")) {
            sessions.publish(Map.of(
                    "tor-a", new BgpSessionStates.State("tor-a", "Established", "Up", List.of()),
                    "tor-b", new BgpSessionStates.State("tor-b", "Active", "N/A", List.of())));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> nodesOf(BgpSessionStates.CONTEXT).equals(Map.of("node-1", 2, "node-2", 1)));
            GenericKubernetesResource torA = client.genericKubernetesResources(BgpSessionStates.CONTEXT)
                    .inNamespace(NS)
                    .withName(sessions.nameOf("tor-a"))
                    .get();
            assertThat(torA.getMetadata().getName()).startsWith("session-node-1-");
            assertThat(torA.getMetadata().getLabels())
                    .containsEntry(BgpSessionStates.NODE_LABEL, "node-1")
                    .containsEntry(BgpSessionStates.PEER_LABEL, "tor-a");
            assertThat(torA.getAdditionalProperties().get("status"))
                    .isEqualTo(Map.of(
                            "node",
                            "node-1",
                            "peer",
                            "tor-a",
                            "vrf",
                            "",
                            "bgpStatus",
                            "Established",
                            "bfdStatus",
                            "Up"));

            // tor-b is no longer configured
            sessions.publish(Map.of("tor-a", new BgpSessionStates.State("tor-a", "Established", "Up", List.of())));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> nodesOf(BgpSessionStates.CONTEXT).equals(Map.of("node-1", 1, "node-2", 1)));

            sessions.withdraw(5000);
        }
        assertThat(nodesOf(BgpSessionStates.CONTEXT)).isEqualTo(Map.of("node-2", 1));
    }

    /** An object another node, or an earlier run of this one, wrote: {@code service} null for a session state. */
    private void leftBehind(ResourceDefinitionContext context, String name, String node, ServiceKey service) {
        Map<String, String> labels = new HashMap<>(Map.of(ServiceStatuses.NODE_LABEL, node));
        if (service != null) {
            labels.put(ServiceStatuses.SERVICE_NAME_LABEL, service.name());
            labels.put(ServiceStatuses.SERVICE_NAMESPACE_LABEL, service.namespace());
        } else {
            labels.put(BgpSessionStates.PEER_LABEL, "tor-a");
        }
        client.genericKubernetesResources(context)
                .inNamespace(NS)
                .resource(new GenericKubernetesResourceBuilder()
                        .withApiVersion(context.getGroup() + "/" + context.getVersion())
                        .withKind(context.getKind())
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NS)
                        .withLabels(labels)
                        .endMetadata()
                        .withAdditionalProperties(new HashMap<>(Map.of("spec", Map.of())))
                        .build())
                .create();
    }

    /** How many objects of the kind each node has. */
    private Map<String, Integer> nodesOf(ResourceDefinitionContext context) {
        Map<String, Integer> count = new TreeMap<>();
        for (GenericKubernetesResource r : client.genericKubernetesResources(context)
                .inNamespace(NS)
                .list()
                .getItems()) {
            count.merge(r.getMetadata().getLabels().get(ServiceStatuses.NODE_LABEL), 1, Integer::sum);
        }
        return count;
    }

    private GenericKubernetesResource only(ResourceDefinitionContext context, String node) {
        List<GenericKubernetesResource> items = client.genericKubernetesResources(context)
                .inNamespace(NS)
                .withLabel(ServiceStatuses.NODE_LABEL, node)
                .list()
                .getItems();
        assertThat(items).hasSize(1);
        return items.getFirst();
    }
}
