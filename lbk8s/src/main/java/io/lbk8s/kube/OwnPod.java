package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.PodResource;

/**
 * The speaker's own Pod, for its patches (its annotations, its Ready condition at shutdown), named by namespace and
 * name: fabric8 GETs a resource known by name alone before it patches it, one round trip and one Pod decoded more for
 * every write.
 */
public final class OwnPod {
    private OwnPod() {}

    public static PodResource resource(KubernetesClient client, String namespace, String name) {
        Pod pod = new Pod();
        pod.setMetadata(new ObjectMeta());
        pod.getMetadata().setNamespace(namespace);
        pod.getMetadata().setName(name);
        return client.pods().resource(pod);
    }
}
