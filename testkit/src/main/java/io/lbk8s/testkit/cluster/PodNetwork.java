package io.lbk8s.testkit.cluster;

import java.util.List;

/**
 * The cluster's Pod and Service ranges, dual-stack. They exist only inside the network's namespaces (the nodes route
 * each other's Pod ranges over the LAN; ClusterIPs are kube-proxy's rules in each node), never on the machine
 * itself, so every cluster uses the same ones. 100.64.0.0/10 (shared address space) and fd00::/8 are never routed
 * on the internet.
 */
final class PodNetwork {

    static final String CLUSTER_CIDRS = "100.64.0.0/16,fd00:64::/48";
    static final String SERVICE_CIDRS = "100.65.0.0/16,fd00:65::/108";
    /** The {@code kubernetes} Service's ClusterIP: the first address of the IPv4 Service range. */
    static final String API_SERVICE_IP = "100.65.0.1";

    private PodNetwork() {}

    static String ipv4Cidr(int node) {
        return "100.64." + node + ".0/24";
    }

    static String ipv6Cidr(int node) {
        return "fd00:64:0:" + node + "::/64";
    }

    static List<String> cidrs(int node) {
        return List.of(ipv4Cidr(node), ipv6Cidr(node));
    }
}
