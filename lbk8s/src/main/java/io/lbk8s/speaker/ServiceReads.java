package io.lbk8s.speaker;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.lbk8s.address.IpAddress;
import io.lbk8s.kube.ServiceMapping;
import io.lbk8s.service.ServiceView;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the plan reads of the Services and their EndpointSlices ({@link SpeakerMapping#read}), kept between plans and
 * read again only for the objects a watch event named since: at 10,000 Services, rebuilding every Service from the
 * informer's compact cache and copying its fields out took about 100 ms a plan, whichever of them had changed. The
 * informers' handlers name what changed ({@link #changed}, any thread; the cache holds the new version by then); the
 * reconcile thread then reads those from the cache ({@link #read}), so a change that comes while it reads is read at
 * the next plan, which it asks for anyway.
 */
public final class ServiceReads {
    /** Where objects are read: the informer cache's keys (namespace/name) and its object for a key (null: gone). */
    public record Source<T>(Supplier<? extends Collection<String>> keys, Function<String, T> byKey) {}

    /** A Service the plan announces, as last read, without its endpoints, which come from its EndpointSlices. */
    private record Planned(ServiceState state, boolean publishNotReady) {}

    private final Optional<String> lbClass;
    private final Set<String> changedServices = ConcurrentHashMap.newKeySet();
    private final Set<String> changedSlices = ConcurrentHashMap.newKeySet();
    private boolean readAll = true; // the first read reads everything

    // owned by the reading thread
    private final Map<String, List<IpAddress>> statusIps = new HashMap<>();
    private final Map<String, Planned> planned = new HashMap<>();
    private final Map<String, SpeakerMapping.SliceEndpoints> slices = new HashMap<>();
    private final Map<String, Map<String, List<EndpointState>>> endpoints = new HashMap<>();

    public ServiceReads(Optional<String> lbClass) {
        this.lbClass = lbClass;
    }

    /** A watch event about {@code object} (a Service or an EndpointSlice; anything else is no business of this). */
    public void changed(Object object) {
        switch (object) {
            case Service service -> changedServices.add(key(service));
            case EndpointSlice slice -> changedSlices.add(key(slice));
            case null, default -> {}
        }
    }

    /**
     * The Services the plan announces ({@link PlanFacts#planned}), as {@link SpeakerMapping#read} reads them, in no
     * particular order; only those named since the last read are read from the caches.
     */
    public List<ServiceState> read(Source<Service> services, Source<EndpointSlice> endpointSlices) {
        if (readAll) {
            readAll = false;
            statusIps.clear();
            planned.clear();
            slices.clear();
            endpoints.clear();
            changedServices.addAll(services.keys().get());
            changedSlices.addAll(endpointSlices.keys().get());
        }
        Set<String> affected = new HashSet<>();
        for (String key : drain(changedSlices)) {
            SpeakerMapping.SliceEndpoints before = slices.remove(key);
            if (before != null) {
                affected.add(before.service());
                Map<String, List<EndpointState>> bySlice = endpoints.get(before.service());
                bySlice.remove(key);
                if (bySlice.isEmpty()) {
                    endpoints.remove(before.service());
                }
            }
            EndpointSlice slice = endpointSlices.byKey().apply(key);
            Optional<SpeakerMapping.SliceEndpoints> now =
                    slice == null ? Optional.empty() : SpeakerMapping.sliceEndpoints(slice);
            now.ifPresent(e -> {
                slices.put(key, e);
                endpoints.computeIfAbsent(e.service(), k -> new HashMap<>()).put(key, e.endpoints());
                affected.add(e.service());
            });
        }
        Set<String> endpointsOnly = new HashSet<>(affected);
        for (String key : drain(changedServices)) {
            endpointsOnly.remove(key);
            readService(key, services.byKey().apply(key));
        }
        for (String key : endpointsOnly) {
            Planned before = planned.get(key);
            if (before != null) {
                ServiceEndpoints endpoints = ServiceEndpoints.of(endpointsOf(key), before.publishNotReady());
                planned.put(key, new Planned(before.state().withEndpoints(endpoints), before.publishNotReady()));
            }
        }
        List<ServiceState> result = new ArrayList<>(planned.size());
        planned.values().forEach(p -> result.add(p.state()));
        return List.copyOf(result);
    }

    /** Every address a Service's status shows, whatever its class, as of the last {@link #read}. */
    public Set<IpAddress> taken() {
        Set<IpAddress> taken = new HashSet<>();
        statusIps.values().forEach(taken::addAll);
        return taken;
    }

    private void readService(String key, Service service) {
        statusIps.remove(key);
        planned.remove(key);
        if (service == null) {
            return;
        }
        ServiceView view = ServiceMapping.view(service);
        if (!view.statusIps().isEmpty()) {
            statusIps.put(key, view.statusIps());
        }
        if (PlanFacts.planned(view, lbClass)) {
            boolean publishNotReady = SpeakerMapping.publishNotReady(service);
            planned.put(
                    key,
                    new Planned(SpeakerMapping.serviceState(view, publishNotReady, endpointsOf(key)), publishNotReady));
        }
    }

    private List<EndpointState> endpointsOf(String service) {
        Map<String, List<EndpointState>> bySlice = endpoints.get(service);
        if (bySlice == null) {
            return List.of();
        }
        List<EndpointState> all = new ArrayList<>();
        bySlice.values().forEach(all::addAll);
        return all;
    }

    /** The keys named so far, each taken out of {@code named} before it is read. */
    private static List<String> drain(Set<String> named) {
        List<String> keys = new ArrayList<>();
        for (Iterator<String> it = named.iterator(); it.hasNext(); ) {
            keys.add(it.next());
            it.remove();
        }
        return keys;
    }

    private static String key(HasMetadata object) {
        return object.getMetadata().getNamespace() + "/" + object.getMetadata().getName();
    }
}
