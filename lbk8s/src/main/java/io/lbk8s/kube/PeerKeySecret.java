package io.lbk8s.kube;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.lbk8s.peers.PeerKeys;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Secret that holds the speakers' keys ({@code keys}: one a line, the first signs). Watched, so that a rotation
 * reaches the failure detector within a second; created with a random key when it is missing (plain
 * {@code kubectl apply} of the manifests creates none), the first speaker to try winning. A Secret that becomes
 * invalid is reported and the last valid keys are kept.
 */
public final class PeerKeySecret implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PeerKeySecret.class);
    public static final String FIELD = "keys";

    private final SharedIndexInformer<Secret> informer;

    private PeerKeySecret(SharedIndexInformer<Secret> informer) {
        this.informer = informer;
    }

    public static PeerKeySecret watch(
            KubernetesClient client, String namespace, String name, Consumer<PeerKeys> onKeys) {
        String where = "Secret " + namespace + "/" + name;
        SharedIndexInformer<Secret> informer = Watches.resilient(
                where,
                client.secrets().inNamespace(namespace).withName(name),
                Informers.onAnyChange(secret -> read(secret, where, onKeys)));
        if (informer.getStore().list().isEmpty()) {
            create(client, namespace, name, where);
        }
        return new PeerKeySecret(informer);
    }

    private static void read(Secret secret, String where, Consumer<PeerKeys> onKeys) {
        if (secret.getMetadata().getDeletionTimestamp() != null) {
            log.warn("{} is being deleted: the failure detector keeps the keys it has", where);
            return;
        }
        Map<String, String> data = secret.getData() == null ? Map.of() : secret.getData();
        String encoded = data.get(FIELD);
        if (encoded == null) {
            log.error(
                    "{} has no field \"{}\": the failure detector keeps the keys it has (none at the start)",
                    where,
                    FIELD);
            return;
        }
        String text;
        try {
            text = new String(Base64.getMimeDecoder().decode(encoded), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            log.error("{}: field \"{}\" is not base64: the failure detector keeps the keys it has", where, FIELD);
            return;
        }
        switch (PeerKeys.parse(text)) {
            case PeerKeys.Parsed.Valid(PeerKeys keys) -> {
                log.info(
                        "failure detector keys from {}: {} key(s)",
                        where,
                        keys.keys().size());
                onKeys.accept(keys);
            }
            case PeerKeys.Parsed.Invalid(String problem) ->
                log.error("{}, field \"{}\": {}; the failure detector keeps the keys it has", where, FIELD, problem);
        }
    }

    /** The Secret, as install, the chart and a speaker create it: {@code keys} holds {@code keysText}. */
    public static Secret secret(String namespace, String name, String keysText, Map<String, String> labels) {
        return new SecretBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .withLabels(labels)
                .endMetadata()
                .withType("Opaque")
                .addToData(FIELD, Base64.getEncoder().encodeToString(keysText.getBytes(StandardCharsets.UTF_8)))
                .build();
    }

    /** The text of a new Secret's field: one random key and its newline. */
    public static String newKeys(SecureRandom random) {
        return PeerKeys.generate(random) + "\n";
    }

    private static void create(KubernetesClient client, String namespace, String name, String where) {
        // the labels of the speaker's own objects; install adds its managed-by label to the one it creates
        Secret secret = secret(namespace, name, newKeys(new SecureRandom()), ClusterNames.SPEAKER_POD_LABELS);
        try {
            client.secrets().inNamespace(namespace).resource(secret).create();
            log.info("created {} with a random key for the failure detector", where);
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                log.debug("{} was created by another speaker", where);
            } else {
                log.error(
                        "cannot create {} ({}): the failure detector waits for it; create it as docs/configuration.md says",
                        where,
                        e.getMessage());
            }
        }
    }

    @Override
    public void close() {
        informer.close();
    }
}
