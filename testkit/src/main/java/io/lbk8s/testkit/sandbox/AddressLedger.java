package io.lbk8s.testkit.sandbox;

import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Watches every LoadBalancer Service and records the addresses users see in {@code status.loadBalancer.ingress} over time, to
 * check what an address allocator owes them: no address shown by two Services at once (unless both declare the same
 * {@code metallb.io/allow-shared-ip} key), and no Service's addresses changed or dropped once shown (unless the test
 * changed its request: {@link #requestChanged}). One watch delivers the changes of all Services in the server's order,
 * so "at once" means at once on the server.
 */
public final class AddressLedger implements AutoCloseable {
    public static final String SHARING_KEY = "metallb.io/allow-shared-ip";

    private record Shown(String name, List<String> ips, Optional<String> sharingKey) {
        boolean shares(Shown other) {
            return sharingKey.isPresent() && sharingKey.equals(other.sharingKey);
        }
    }

    private final Map<String, Shown> current = new HashMap<>(); // by uid: the Services that exist now
    private final Map<String, Set<String>> holders = new HashMap<>(); // address -> uids showing it now
    private final Set<String> mayChange = new HashSet<>(); // namespace/name of Services whose request the test changed
    private final Set<String> duplicates = new LinkedHashSet<>();
    private final List<String> changes = new ArrayList<>();
    private final SharedIndexInformer<Service> informer;

    private AddressLedger(KubernetesClient client) {
        informer = client.services()
                .inAnyNamespace()
                .inform(
                        new ResourceEventHandler<>() {
                            @Override
                            public void onAdd(Service service) {
                                if (loadBalancer(service)) {
                                    shown(service);
                                }
                            }

                            @Override
                            public void onUpdate(Service before, Service service) {
                                if (loadBalancer(service)) {
                                    shown(service);
                                } else {
                                    gone(service); // no longer a LoadBalancer: nothing to show
                                }
                            }

                            @Override
                            public void onDelete(Service service, boolean finalStateUnknown) {
                                gone(service);
                            }
                        },
                        0);
    }

    /** The Services an address allocator serves: not the API server's own {@code kubernetes} ClusterIP, say. */
    private static boolean loadBalancer(Service service) {
        return service.getSpec() != null
                && "LoadBalancer".equals(service.getSpec().getType());
    }

    /** Starts watching (after a first list) every LoadBalancer Service {@code client} can see. */
    public static AddressLedger watch(KubernetesClient client) {
        return new AddressLedger(client);
    }

    private static String nameOf(Service service) {
        return service.getMetadata().getNamespace() + "/"
                + service.getMetadata().getName();
    }

    private static List<String> ips(Service service) {
        if (service.getStatus() == null
                || service.getStatus().getLoadBalancer() == null
                || service.getStatus().getLoadBalancer().getIngress() == null) {
            return List.of();
        }
        return service.getStatus().getLoadBalancer().getIngress().stream()
                .map(LoadBalancerIngress::getIp)
                .filter(Objects::nonNull)
                .sorted()
                .toList();
    }

    private synchronized void shown(Service service) {
        String uid = service.getMetadata().getUid();
        var now = new Shown(
                nameOf(service),
                ips(service),
                Optional.ofNullable(service.getMetadata().getAnnotations()).map(a -> a.get(SHARING_KEY)));
        Shown before = current.get(uid);
        if (before != null
                && !before.ips().isEmpty()
                && !before.ips().equals(now.ips())
                && !mayChange.contains(now.name())) {
            changes.add(now.name() + ": " + before.ips() + " -> " + (now.ips().isEmpty() ? "none" : now.ips()));
        }
        forget(uid);
        for (String ip : now.ips()) {
            Set<String> others = holders.computeIfAbsent(ip, _ -> new HashSet<>());
            for (String other : others) {
                Shown theirs = current.get(other);
                if (!now.shares(theirs)) {
                    List<String> pair =
                            Stream.of(theirs.name(), now.name()).sorted().toList();
                    duplicates.add(ip + " shown by " + pair.getFirst() + " and " + pair.getLast() + " at once");
                }
            }
            others.add(uid);
        }
        current.put(uid, now);
    }

    private synchronized void gone(Service service) {
        forget(service.getMetadata().getUid());
        current.remove(service.getMetadata().getUid());
    }

    private void forget(String uid) {
        Shown before = current.get(uid);
        if (before != null) {
            before.ips()
                    .forEach(ip -> holders.computeIfPresent(ip, (_, uids) -> {
                        uids.remove(uid);
                        return uids.isEmpty() ? null : uids;
                    }));
        }
    }

    /** From now on, the addresses of {@code namespace/name} may change: the test changed what it asks for. */
    public synchronized void requestChanged(String namespace, String name) {
        mayChange.add(namespace + "/" + name);
    }

    /** Each address seen in two Services' status at once without declared sharing, with the two Services. */
    public synchronized List<String> duplicates() {
        return List.copyOf(duplicates);
    }

    /** Each change of a Service's addresses once it had some (a new set, or none), unless its request changed. */
    public synchronized List<String> changes() {
        return List.copyOf(changes);
    }

    /** The addresses each existing Service shows now, by namespace/name. */
    public synchronized Map<String, List<String>> addresses() {
        Map<String, List<String>> addresses = new TreeMap<>();
        current.values().forEach(s -> addresses.put(s.name(), s.ips()));
        return addresses;
    }

    /** The existing Services that show no address. */
    public synchronized List<String> unassigned() {
        return current.values().stream()
                .filter(s -> s.ips().isEmpty())
                .map(Shown::name)
                .sorted()
                .toList();
    }

    /**
     * Waits (polling, up to {@code timeout}) until {@code services} Services exist and every one shows an address;
     * says whether that happened.
     */
    public boolean awaitAllAssigned(int services, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) { // checked at least once, so that a zero timeout asks "now?"
            synchronized (this) {
                if (current.size() == services && unassigned().isEmpty()) {
                    return true;
                }
            }
            if (System.nanoTime() >= deadline) {
                return false;
            }
            Thread.sleep(50);
        }
    }

    @Override
    public void close() {
        informer.close();
    }
}
