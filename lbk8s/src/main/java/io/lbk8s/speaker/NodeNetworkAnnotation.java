package io.lbk8s.speaker;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import io.lbk8s.address.NodeNetwork;
import io.lbk8s.kube.OwnPod;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.link.LinkInfo;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This speaker's {@link NodeNetwork} on its own Pod ({@value NodeNetwork#ANNOTATION}): the other speakers read its MACs
 * (never a conflict), the controller its prefixes and gateways (never assigned). Written when it changes, in the
 * background; a failed write is tried again at the next change or plan.
 */
final class NodeNetworkAnnotation implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeNetworkAnnotation.class);

    private final KubernetesClient client;
    private final String namespace;
    private final Optional<String> pod;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(
            Thread.ofVirtual().name("node-network-annotation").factory());
    private NodeNetwork asked;

    NodeNetworkAnnotation(KubernetesClient client, String namespace, Optional<String> pod) {
        this.client = client;
        this.namespace = namespace;
        this.pod = pod;
    }

    /**
     * The interfaces a speaker may announce on (up or not, not loopback, not a bridge or bond member, not excluded by
     * name, with a MAC), with their addresses, and the default gateways.
     */
    static NodeNetwork of(List<LinkInfo> links, List<IpAddress> gateways, List<Pattern> excluded) {
        List<NodeNetwork.Link> described = links.stream()
                .filter(l -> !l.loopback() && l.master().isEmpty() && !l.mac().equals(MacAddress.ZERO))
                .filter(l ->
                        excluded.stream().noneMatch(p -> p.matcher(l.name()).find()))
                .map(l -> new NodeNetwork.Link(
                        l.name(),
                        l.mac().toString(),
                        l.addresses().stream()
                                .map(a -> new IpPrefix(a.address(), a.prefixLength()))
                                .toList()))
                .toList();
        return new NodeNetwork(described, gateways);
    }

    /** Writes {@code network} unless it is what was written (or is being written) last. */
    synchronized void publish(NodeNetwork network) {
        if (pod.isEmpty() || network.equals(asked)) {
            return;
        }
        asked = network;
        try {
            writer.execute(() -> write(network));
        } catch (RejectedExecutionException e) {
            log.debug("closed; not writing the node-network annotation");
        }
    }

    private void write(NodeNetwork network) {
        try {
            OwnPod.resource(client, namespace, pod.get())
                    .patch(
                            PatchContext.of(PatchType.JSON_MERGE),
                            client.getKubernetesSerialization()
                                    .asJson(Map.of(
                                            "metadata",
                                            Map.of(
                                                    "annotations",
                                                    Map.of(NodeNetwork.ANNOTATION, network.toAnnotation())))));
            log.info("published this node's network on pod {}/{}: {}", namespace, pod.get(), network.toAnnotation());
        } catch (KubernetesClientException e) {
            log.warn(
                    "could not publish this node's network on pod {}/{} (other speakers may take this node's answers for"
                            + " another host's): {}",
                    namespace,
                    pod.get(),
                    e.getMessage());
            synchronized (this) {
                asked = null;
            }
        }
    }

    @Override
    public void close() {
        writer.shutdownNow();
    }
}
