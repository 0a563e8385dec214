package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.NodeNetwork;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which addresses of the cluster's own network a Service must never get, because a node, its router or the API
 * server already answers for them: a Service there would make two hosts answer ARP/NDP for one address. Exact
 * addresses only, never whole ranges near them (MetalLB reverted such a check for its false positives, #2779):
 * <ul>
 *   <li>every Node's InternalIP and ExternalIP ({@code status.addresses});</li>
 *   <li>from each speaker's view of its node: its {@link NodeNetwork#reservations()}, the rule the speaker itself
 *       follows (the node's addresses, its gateways, its subnets' network, broadcast and subnet-router anycast
 *       addresses);</li>
 *   <li>the API server's endpoints (the EndpointSlices of Service default/kubernetes).</li>
 * </ul>
 * Unreadable values are skipped. Pure.
 */
public final class Exclusions {
    private Exclusions() {}

    /** One of a Node's {@code status.addresses}: type (InternalIP, ExternalIP, Hostname, ...) and address. */
    public record NodeAddress(String node, String type, String address) {}

    /**
     * What the exclusions are computed from.
     *
     * @param networks  each node's network as its speaker wrote it, by node name
     * @param apiServer the addresses of the API server's endpoints
     */
    public record Inputs(List<NodeAddress> nodeAddresses, Map<String, NodeNetwork> networks, List<String> apiServer) {
        public Inputs {
            nodeAddresses = List.copyOf(nodeAddresses);
            networks = Map.copyOf(networks);
            apiServer = List.copyOf(apiServer);
        }
    }

    public static final String API_SERVER = "an endpoint of the Kubernetes API server";
    private static final int NAMED_NODES = 3;

    public static ExcludedAddresses of(Inputs in) {
        // per address, per role ("InternalIP", "gateway", ...): the nodes, so that one gateway of 50 nodes reads once
        Map<IpAddress, Map<String, Set<String>>> byNode = new TreeMap<>();
        ExcludedAddresses.Builder others = ExcludedAddresses.builder();
        for (NodeAddress a : in.nodeAddresses()) {
            if ("InternalIP".equals(a.type()) || "ExternalIP".equals(a.type())) {
                address(a.address()).ifPresent(ip -> add(byNode, ip, a.type(), a.node()));
            }
        }
        in.networks().forEach((node, network) -> {
            for (NodeNetwork.Reservation reserved : network.reservations()) {
                if (reserved.ofThisNode()) {
                    add(byNode, reserved.address(), reserved.role(), node);
                } else {
                    others.add(reserved.address(), reserved.role());
                }
            }
        });
        for (String endpoint : in.apiServer()) {
            address(endpoint).ifPresent(ip -> others.add(ip, API_SERVER));
        }
        ExcludedAddresses.Builder nodes = ExcludedAddresses.builder();
        byNode.forEach((ip, roles) -> roles.forEach((role, names) -> nodes.add(ip, role + " of " + nodesText(names))));
        return nodes.build().plus(others.build());
    }

    private static void add(Map<IpAddress, Map<String, Set<String>>> byNode, IpAddress ip, String role, String node) {
        byNode.computeIfAbsent(ip, _ -> new TreeMap<>())
                .computeIfAbsent(role, _ -> new TreeSet<>())
                .add(node);
    }

    /** "node a", "nodes a, b and c", "nodes a, b, c and 4 more". */
    private static String nodesText(Set<String> names) {
        List<String> list = new ArrayList<>(names);
        if (list.size() == 1) {
            return "node " + list.getFirst();
        }
        if (list.size() <= NAMED_NODES) {
            return "nodes " + String.join(", ", list.subList(0, list.size() - 1)) + " and " + list.getLast();
        }
        return "nodes " + String.join(", ", list.subList(0, NAMED_NODES)) + " and " + (list.size() - NAMED_NODES)
                + " more";
    }

    private static Optional<IpAddress> address(String text) {
        return text == null ? Optional.empty() : IpAddress.parse(text.strip());
    }
}
