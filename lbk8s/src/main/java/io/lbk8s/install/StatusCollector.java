package io.lbk8s.install;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.lbk8s.config.AcceptedConfig;
import io.lbk8s.config.MisplacedConfig;
import io.lbk8s.conflict.AddressConflict;
import io.lbk8s.ipam.Exclusions;
import io.lbk8s.kube.AddressConflicts;
import io.lbk8s.kube.BgpSessionStates;
import io.lbk8s.kube.ClusterAddresses;
import io.lbk8s.kube.ClusterNames;
import io.lbk8s.kube.ConfigResources;
import io.lbk8s.kube.ConfigurationStates;
import io.lbk8s.kube.CustomResources;
import io.lbk8s.kube.IpAddressClaims;
import io.lbk8s.kube.MisplacedResources;
import io.lbk8s.kube.ServiceBgpStatuses;
import io.lbk8s.kube.ServiceL2Statuses;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Reads what {@link StatusReport} needs: lbk8s's configuration and statuses, and the Services and their Events. */
public final class StatusCollector {
    private final KubernetesClient client;

    public StatusCollector(KubernetesClient client) {
        this.client = client;
    }

    /**
     * @param systemNamespace   where lbk8s runs (pools, ServiceL2Statuses)
     * @param serviceNamespace  the Services' namespace, empty for all
     */
    public StatusReport.Inputs read(
            String systemNamespace, Optional<String> serviceNamespace, Optional<String> lbClass) {
        List<GenericKubernetesResource> pools = list(ConfigResources.IP_ADDRESS_POOLS, systemNamespace);
        List<GenericKubernetesResource> l2 = list(ConfigResources.L2_ADVERTISEMENTS, systemNamespace);
        Optional<ConfigMap> configMap = Optional.ofNullable(client.configMaps()
                .inNamespace(systemNamespace)
                .withName(ConfigResources.CONFIG_MAP_NAME)
                .get());
        // every namespace's Services even for one namespace's rows: a pool's use counts all of them
        List<Service> services;
        try {
            services = client.services().inAnyNamespace().list().getItems();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 403 || serviceNamespace.isEmpty()) {
                throw e;
            }
            // may list only this namespace: the pools' counts then cover only the Services the user can see
            services =
                    client.services().inNamespace(serviceNamespace.get()).list().getItems();
        }
        // one list of Events rather than one per Service; field selectors on involvedObject are not universal
        List<Event> events = serviceNamespace
                .map(ns -> client.v1().events().inNamespace(ns).list().getItems())
                .orElseGet(() -> client.v1().events().inAnyNamespace().list().getItems());
        List<Pod> speakers = client.pods()
                .inNamespace(systemNamespace)
                .withLabels(Manifests.podLabels("speaker"))
                .list()
                .getItems();
        return new StatusReport.Inputs(
                controllersView(systemNamespace)
                        .accept(ConfigResources.sources(pools, l2, configMap, bgpObjects(systemNamespace)))
                        .result(),
                services,
                list(ServiceL2Statuses.CONTEXT, systemNamespace),
                list(ServiceBgpStatuses.CONTEXT, systemNamespace),
                list(BgpSessionStates.CONTEXT, systemNamespace),
                events,
                lbClass,
                serviceNamespace,
                speakers,
                notRead(systemNamespace),
                lease(systemNamespace),
                claims(),
                Instant.now(),
                clusterAddresses(speakers),
                conflicts());
    }

    /** What the excluded addresses are computed from; nothing when this user may not list Nodes or EndpointSlices. */
    private Optional<Exclusions.Inputs> clusterAddresses(List<Pod> speakers) {
        try {
            return Optional.of(ClusterAddresses.inputs(
                    client.nodes().list().getItems(),
                    speakers,
                    ClusterAddresses.apiServerSlices(client).list().getItems()));
        } catch (KubernetesClientException e) {
            if (e.getCode() == 403) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private StatusReport.LeaseRead lease(String systemNamespace) {
        try {
            Lease lease = client.leases()
                    .inNamespace(systemNamespace)
                    .withName(ClusterNames.CONTROLLER_LEASE)
                    .get();
            return lease == null ? new StatusReport.LeaseRead.Missing() : new StatusReport.LeaseRead.Found(lease);
        } catch (KubernetesClientException e) {
            return new StatusReport.LeaseRead.Unreadable(
                    e.getCode() == 403
                            ? "no permission to get leases in " + systemNamespace
                            : "the API server answered " + e.getCode());
        }
    }

    /** The speakers' AddressConflicts; none when their CRD is missing or this user may not list them. */
    private List<AddressConflict> conflicts() {
        try {
            return new AddressConflicts(client).list();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 403 || e.getCode() == 404) {
                return List.of();
            }
            throw e;
        }
    }

    /** How many IPAddressClaims there are; none known when their CRD is missing or this user may not list them. */
    private Optional<Integer> claims() {
        try {
            return Optional.of(client.genericKubernetesResources(IpAddressClaims.CONTEXT)
                    .list()
                    .getItems()
                    .size());
        } catch (KubernetesClientException e) {
            if (e.getCode() == 403 || e.getCode() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** What lbk8s does not read, where this user may list it: a user who may not is told nothing rather than stopped. */
    private String notRead(String systemNamespace) {
        try {
            Map<MisplacedConfig.Kind, List<GenericKubernetesResource>> objects = new LinkedHashMap<>();
            MisplacedResources.RESOURCES.forEach((kind, context) -> objects.put(
                    kind,
                    CustomResources.listEverywhereIfInstalled(client, context).orElse(List.of())));
            var found = MisplacedResources.found(
                    objects, MisplacedResources.legacyConfigMaps(client).list().getItems());
            return MisplacedConfig.summary(systemNamespace, MisplacedConfig.misplaced(systemNamespace, found))
                    .orElse("");
        } catch (KubernetesClientException e) {
            if (e.getCode() == 403) {
                return "";
            }
            throw e;
        }
    }

    /** What the controller recorded as in use, so that status judges every object as the controller does. */
    private AcceptedConfig controllersView(String systemNamespace) {
        return new ConfigurationStates(client, systemNamespace, ConfigurationStates.CONTROLLER)
                .accepted()
                .map(AcceptedConfig::of)
                .orElse(AcceptedConfig.NONE);
    }

    /** The BGP objects; none where their CRDs are missing (installed before lbk8s had BGP). */
    private ConfigResources.BgpObjects bgpObjects(String namespace) {
        return new ConfigResources.BgpObjects(
                listIfInstalled(ConfigResources.BGP_PEERS, namespace),
                listIfInstalled(ConfigResources.BGP_ADVERTISEMENTS, namespace),
                listIfInstalled(ConfigResources.COMMUNITIES, namespace),
                listIfInstalled(ConfigResources.BFD_PROFILES, namespace));
    }

    private List<GenericKubernetesResource> listIfInstalled(ResourceDefinitionContext context, String namespace) {
        return CustomResources.listIfInstalled(client, context, namespace).orElse(List.of());
    }

    private List<GenericKubernetesResource> list(ResourceDefinitionContext context, String namespace) {
        return CustomResources.listIfInstalled(client, context, namespace)
                .orElseThrow(() -> new InstallProblem("the metallb.io CRDs are not installed (" + context.getPlural()
                        + " not found): run lbk8s install first"));
    }
}
