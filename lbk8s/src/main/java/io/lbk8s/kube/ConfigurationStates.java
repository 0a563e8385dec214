package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.config.ConfigSources;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a MetalLB-style ConfigurationState, so that {@code kubectl get configurationstates -n lbk8s-system} shows
 * whether the configuration a component last read was valid and, if not, why; and, in {@code acceptedObjects}, the
 * version of each configuration object it uses, for a restart, the speakers and {@code lbk8s status} to start from.
 */
public final class ConfigurationStates {
    private static final Logger log = LoggerFactory.getLogger(ConfigurationStates.class);

    public static final ResourceDefinitionContext CONTEXT =
            CustomResources.metallb("ConfigurationState", "configurationstates");

    /** The name of the controller's ConfigurationState, which the speakers and {@code lbk8s status} read. */
    public static final String CONTROLLER = "controller";

    private final KubernetesClient client;
    private final String namespace;
    private final String name;
    private String lastWritten;

    public ConfigurationStates(KubernetesClient client, String namespace, String name) {
        this.client = client;
        this.namespace = namespace;
        this.name = name;
    }

    /**
     * Records the result ({@code errorSummary} is empty when valid) and the objects in use, at the version in use.
     * Failures to write are logged, never thrown.
     */
    public void report(boolean valid, String errorSummary, ConfigSources accepted) {
        String fingerprint = valid + "|" + errorSummary + "|" + accepted;
        if (fingerprint.equals(lastWritten)) {
            return;
        }
        try {
            String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
            Map<String, Object> status = Map.of(
                    "result",
                    valid ? "Valid" : "Invalid",
                    "errorSummary",
                    errorSummary,
                    "acceptedObjects",
                    AcceptedObjects.toStatus(accepted),
                    "conditions",
                    List.of(Map.of(
                            "type", "ConfigurationValid",
                            "status", valid ? "True" : "False",
                            "lastTransitionTime", now,
                            "reason", valid ? "ConfigurationValid" : "ConfigurationInvalid",
                            "message", valid ? "the configuration is valid" : errorSummary)));
            CustomResources.writeStatus(client, CONTEXT, namespace, name, Map.of(), status, lastWritten != null);
            lastWritten = fingerprint;
        } catch (KubernetesClientException e) {
            log.warn("could not write ConfigurationState {}/{}: {}", namespace, name, e.getMessage());
        }
    }

    /**
     * The objects this component last recorded as in use; empty when none were recorded, the record cannot be read
     * (a ConfigurationState CRD without the field prunes it), or the API cannot be reached.
     */
    public Optional<ConfigSources> accepted() {
        try {
            GenericKubernetesResource current = client.genericKubernetesResources(CONTEXT)
                    .inNamespace(namespace)
                    .withName(name)
                    .get();
            if (current == null || !(current.getAdditionalProperties().get("status") instanceof Map<?, ?> status)) {
                return Optional.empty();
            }
            return AcceptedObjects.fromStatus(status.get("acceptedObjects"));
        } catch (KubernetesClientException e) {
            log.warn("could not read ConfigurationState {}/{}: {}", namespace, name, e.getMessage());
            return Optional.empty();
        }
    }
}
