package io.lbk8s.speaker;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.lbk8s.config.BgpPeer;
import io.lbk8s.config.Config;
import io.lbk8s.kube.Informers;
import io.lbk8s.kube.Watches;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The BGPPeers' passwords kept in Secrets: one narrow watch per Secret a BGPPeer names (so the speaker reads no other
 * Secret, and a rotated password restarts the session), opened when a peer first names it and closed when none does.
 */
final class PasswordSecrets implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PasswordSecrets.class);
    static final String PASSWORD_KEY = "password";

    private final KubernetesClient client;
    private final String namespace;
    private final Runnable changed;
    private final Duration retry;
    private final Map<String, SharedIndexInformer<Secret>> watched = new HashMap<>();
    /**
     * Secrets the API refused to show (e.g. Forbidden: the Role was narrowed by hand), with why and when: asked again
     * when the BGPPeers name other Secrets, or on a plan {@code retry} later (the grant may have been mended; the
     * speaker plans at least every 5 s).
     */
    private final Map<String, Refusal> refused = new HashMap<>();

    private record Refusal(String reason, long atNanos) {}

    static final Duration RETRY = Duration.ofSeconds(30);

    private Set<String> lastNamed = Set.of();

    PasswordSecrets(KubernetesClient client, String namespace, Runnable changed) {
        this(client, namespace, changed, RETRY);
    }

    /** @param retry how long a refused Secret is not asked for again */
    PasswordSecrets(KubernetesClient client, String namespace, Runnable changed, Duration retry) {
        this.client = client;
        this.namespace = namespace;
        this.changed = changed;
        this.retry = retry;
    }

    /** The password of each Secret the BGPPeers of {@code config} name, by Secret name; called from one thread. */
    Map<String, String> passwords(Config config) {
        Set<String> named = config.bgpPeers().stream()
                .map(BgpPeer::passwordSecret)
                .flatMap(Optional::stream)
                .collect(Collectors.toSet());
        if (!named.equals(lastNamed)) {
            refused.clear();
            lastNamed = named;
        }
        watched.keySet().removeIf(name -> {
            if (!named.contains(name)) {
                watched.get(name).close();
                return true;
            }
            return false;
        });
        Map<String, String> passwords = new HashMap<>();
        for (String name : named) {
            Optional<SharedIndexInformer<Secret>> informer = watch(name);
            informer.flatMap(i -> i.getStore().list().stream().findFirst())
                    .flatMap(PasswordSecrets::password)
                    .ifPresent(password -> passwords.put(name, password));
        }
        return passwords;
    }

    private Optional<SharedIndexInformer<Secret>> watch(String name) {
        SharedIndexInformer<Secret> informer = watched.get(name);
        Refusal refusal = refused.get(name);
        if (refusal != null && System.nanoTime() - refusal.atNanos() >= retry.toNanos()) {
            refused.remove(name);
            refusal = null;
        }
        if (informer != null || refusal != null) {
            return Optional.ofNullable(informer);
        }
        try {
            informer = Watches.resilient(
                    "Secret " + namespace + "/" + name,
                    client.secrets().inNamespace(namespace).withName(name),
                    Informers.onAnyChange(any -> changed.run()));
            watched.put(name, informer);
            return Optional.of(informer);
        } catch (KubernetesClientException e) {
            String reason = reason(e);
            refused.put(name, new Refusal(reason, System.nanoTime()));
            log.warn("cannot read Secret {}/{}: {} ({})", namespace, name, reason, e.getMessage());
            return Optional.empty();
        }
    }

    /** Why each Secret the BGPPeers name could not be read, by Secret name: for the BGPPeerProblem Event. */
    Map<String, String> unreadable() {
        Map<String, String> reasons = new HashMap<>();
        refused.forEach((name, refusal) -> reasons.put(name, refusal.reason()));
        return reasons;
    }

    private String reason(KubernetesClientException e) {
        if (e.getCode() == 403) {
            return "Forbidden: its Role in " + namespace + " must allow list and watch of Secrets, as lbk8s install"
                    + " and the chart grant";
        }
        return e.getCode() == 0
                ? "the API server did not answer: " + e.getMessage()
                : "the API server answered " + e.getCode()
                        + Optional.ofNullable(e.getStatus())
                                .map(Status::getMessage)
                                .map(m -> ": " + m)
                                .orElse("");
    }

    private static Optional<String> password(Secret secret) {
        return Optional.ofNullable(secret.getData())
                .map(data -> data.get(PASSWORD_KEY))
                .map(encoded -> new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        watched.values().forEach(SharedIndexInformer::close);
        watched.clear();
    }
}
