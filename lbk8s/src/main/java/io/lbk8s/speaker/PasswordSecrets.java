package io.lbk8s.speaker;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.lbk8s.config.BgpPeer;
import io.lbk8s.config.Config;
import io.lbk8s.kube.Informers;
import io.lbk8s.kube.Watches;
import java.nio.charset.StandardCharsets;
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
    private final Map<String, SharedIndexInformer<Secret>> watched = new HashMap<>();
    /** Secrets the API refused to show (no grant): asked again only when the BGPPeers name other Secrets. */
    private final Set<String> refused = new java.util.HashSet<>();

    private Set<String> lastNamed = Set.of();

    PasswordSecrets(KubernetesClient client, String namespace, Runnable changed) {
        this.client = client;
        this.namespace = namespace;
        this.changed = changed;
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
        if (informer != null || refused.contains(name)) {
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
            refused.add(name);
            log.warn(
                    "cannot read Secret {}/{} (the speaker needs list and watch on it by name): {}",
                    namespace,
                    name,
                    e.getMessage());
            return Optional.empty();
        }
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
