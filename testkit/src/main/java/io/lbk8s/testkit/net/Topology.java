package io.lbk8s.testkit.net;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Builds the namespaces, the bridge and the veths of one network. Everything on the host side is
 * one veth end (the host leg); the rest lives in namespaces of this network.
 */
record Topology(Names names, Addressing addressing, int nodeCount) {

    /** The kube-proxy stand-in's table in each node namespace. */
    static final String KUBE_PROXY_TABLE = "lbk8s-kube-proxy";

    /**
     * Quiet, deterministic IPv6: no router solicitations or RA processing (there is no router), no DAD
     * (addresses usable at once), and addresses that survive a link flap like on a real server.
     */
    private static final List<String> HOST_LIKE_SYSCTLS = List.of(
            "net.ipv6.conf.all.accept_ra=0", "net.ipv6.conf.default.accept_ra=0",
            "net.ipv6.conf.all.router_solicitations=0", "net.ipv6.conf.default.router_solicitations=0",
            "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0",
            "net.ipv6.conf.all.keep_addr_on_down=1", "net.ipv6.conf.default.keep_addr_on_down=1");

    /**
     * A router forwards; rp_filter off because with ECMP a reply may leave by another path than the request came; the
     * multipath hash includes the ports, so that separate connections to one address spread over its next hops as they
     * do on a real router (the default hashes addresses only, and one client would always reach the same node).
     */
    private static final List<String> ROUTER_SYSCTLS = List.of(
            "net.ipv4.ip_forward=1",
            "net.ipv6.conf.all.forwarding=1",
            "net.ipv4.conf.all.rp_filter=0",
            "net.ipv4.conf.default.rp_filter=0",
            "net.ipv4.fib_multipath_hash_policy=1",
            "net.ipv6.fib_multipath_hash_policy=1");

    /** With {@code standIns}, each node also gets the nftables rule that stands in for kube-proxy. */
    void build(boolean standIns) throws IOException {
        List<String> namespaces = names.namespaces(nodeCount);
        ip(null, namespaces.stream().map(ns -> "netns add " + ns).toList());
        for (String namespace : namespaces) {
            sysctl(namespace, HOST_LIKE_SYSCTLS);
        }
        buildBridge();
        buildVeths();
        buildHostLeg();
        startBridge();
        for (int node = 1; node <= nodeCount; node++) {
            configureEnd(names.nodeNamespace(node), addressing.nodeIpv4(node), addressing.nodeIpv6(node));
            if (!standIns) {
                continue;
            }
            Shell.check(
                    Shell.SETUP_TIMEOUT,
                    Shell.inNamespace(names.nodeNamespace(node), List.of(Tool.NFT.path(), "-f", "-")),
                    kubeProxyRules(node));
        }
        configureEnd(names.clientNamespace(), addressing.clientIpv4(), addressing.clientIpv6());
    }

    /**
     * One more host on the LAN, after the rest was built: its namespace, its veth to a new port of the bridge, its
     * addresses. It runs nothing.
     */
    void addHost(String namespace, String port, String portMac, String mac, InetAddress ipv4, InetAddress ipv6)
            throws IOException {
        ip(null, List.of("netns add " + namespace));
        sysctl(namespace, HOST_LIKE_SYSCTLS);
        ip(null, List.of(vethPair(port, portMac, namespace, mac)));
        ip(names.bridgeNamespace(), List.of("link set " + port + " master " + Names.BRIDGE + " up"));
        configureEnd(namespace, ipv4, ipv6);
    }

    /**
     * The upstream router and the remote client behind it, after the rest was built: the router's eth0 on a new port
     * of the bridge, its eth1 on a veth of its own to the remote client, whose default route is the router. Each node
     * gets a route to the remote subnet through the router, as a server's default gateway would give it, so replies to
     * the remote client find their way back.
     */
    void addRouter() throws IOException {
        String router = names.routerNamespace();
        String remote = names.remoteNamespace();
        ip(null, List.of("netns add " + router, "netns add " + remote));
        sysctl(router, HOST_LIKE_SYSCTLS);
        sysctl(router, ROUTER_SYSCTLS);
        sysctl(remote, HOST_LIKE_SYSCTLS);
        ip(
                null,
                List.of(
                        vethPair(Names.ROUTER_PORT, addressing.routerPortMac(), router, addressing.routerMac()),
                        "link add " + Names.ROUTER_UPLINK + " netns " + router + " address "
                                + addressing.routerUplinkMac() + " type veth peer name " + Names.INTERFACE + " netns "
                                + remote + " address " + addressing.remoteMac()));
        ip(names.bridgeNamespace(), List.of("link set " + Names.ROUTER_PORT + " master " + Names.BRIDGE + " up"));
        configureEnd(router, addressing.routerIpv4(), addressing.routerIpv6());
        ip(
                router,
                List.of(
                        "link set " + Names.ROUTER_UPLINK + " up",
                        "address add " + Addressing.text(addressing.routerUplinkIpv4()) + "/24 dev "
                                + Names.ROUTER_UPLINK,
                        "address add " + Addressing.text(addressing.routerUplinkIpv6()) + "/64 dev "
                                + Names.ROUTER_UPLINK + " nodad"));
        configureEnd(remote, addressing.remoteIpv4(), addressing.remoteIpv6());
        ip(
                remote,
                List.of(
                        "route add default via " + Addressing.text(addressing.routerUplinkIpv4()),
                        "route add default via " + Addressing.text(addressing.routerUplinkIpv6())));
        for (int node = 1; node <= nodeCount; node++) {
            ip(
                    names.nodeNamespace(node),
                    List.of(
                            "route add " + addressing.remoteIpv4Subnet() + " via "
                                    + Addressing.text(addressing.routerIpv4()),
                            "route add " + addressing.remoteIpv6Subnet() + " via "
                                    + Addressing.text(addressing.routerIpv6())));
        }
    }

    /**
     * MLD snooping with the bridge as querier, as on a switch with snooping: once the querier runs,
     * multicast to a group nobody reported (a solicited-node group included) is no longer flooded.
     * Without a querier the Linux bridge floods everything and snooping would be tested in name only.
     * The querier is switched on later, in {@link #startBridge()}.
     */
    private void buildBridge() throws IOException {
        ip(
                names.bridgeNamespace(),
                List.of(
                        "link set lo up",
                        "link add " + Names.BRIDGE + " address " + addressing.bridgeMac()
                                + " type bridge stp_state 0 forward_delay 0"
                                + " mcast_snooping 1 mcast_mld_version 2"
                                // 1 s instead of 10 s: the querier holds off filtering for this long after it starts
                                + " mcast_query_response_interval 100 mcast_startup_query_interval 100"));
        // Only br0 needs IPv6 (the querier's source address); the ports stay silent.
        sysctl(names.bridgeNamespace(), List.of("net.ipv6.conf.default.disable_ipv6=1"));
    }

    /** Each pair is created with its ends straight in their namespaces: nothing appears on the host. */
    private void buildVeths() throws IOException {
        List<String> commands = new ArrayList<>();
        for (int node = 1; node <= nodeCount; node++) {
            commands.add(vethPair(
                    Names.nodeName(node),
                    addressing.nodePortMac(node),
                    names.nodeNamespace(node),
                    addressing.nodeMac(node)));
        }
        commands.add(vethPair(
                Names.CLIENT_PORT, addressing.clientPortMac(), names.clientNamespace(), addressing.clientMac()));
        ip(null, commands);
    }

    private String vethPair(String port, String portMac, String namespace, String mac) {
        return "link add " + port + " netns " + names.bridgeNamespace() + " address " + portMac
                + " type veth peer name " + Names.INTERFACE + " netns " + namespace + " address " + mac;
    }

    /** The one interface on the host: IPv4 only, so the host's IPv6 stack never sees the test LAN. */
    private void buildHostLeg() throws IOException {
        String leg = names.hostLeg();
        ip(
                null,
                List.of("link add " + leg + " address " + addressing.hostMac() + " type veth peer name "
                        + Names.HOST_PORT + " netns " + names.bridgeNamespace() + " address "
                        + addressing.hostPortMac()));
        // Written directly: this JVM is in the host namespace. Done while the link is down, so no
        // link-local address or MLD report ever appears.
        Path disableIpv6 = Path.of("/proc/sys/net/ipv6/conf", leg, "disable_ipv6");
        if (Files.exists(disableIpv6)) { // absent when the host runs without IPv6 at all
            Files.writeString(disableIpv6, "1");
        }
        ip(
                null,
                List.of(
                        "address add " + Addressing.text(addressing.hostIpv4()) + "/24 dev " + leg,
                        "link set " + leg + " up"));
    }

    private void startBridge() throws IOException {
        List<String> commands = new ArrayList<>();
        IntStream.rangeClosed(1, nodeCount)
                .forEach(node -> commands.add("link set " + Names.nodeName(node) + " master " + Names.BRIDGE + " up"));
        commands.add("link set " + Names.CLIENT_PORT + " master " + Names.BRIDGE + " up");
        commands.add("link set " + Names.HOST_PORT + " master " + Names.BRIDGE + " up");
        commands.add("link set " + Names.BRIDGE + " up");
        // After br0 is up with its ports, so it already has the link-local address its queries need;
        // enabled earlier, the querier would count as absent until its next startup query.
        commands.add("link set " + Names.BRIDGE + " type bridge mcast_querier 1");
        ip(names.bridgeNamespace(), commands);
    }

    private void configureEnd(String namespace, InetAddress ipv4, InetAddress ipv6) throws IOException {
        ip(
                namespace,
                List.of(
                        "link set lo up",
                        "link set " + Names.INTERFACE + " up",
                        "address add " + Addressing.text(ipv4) + "/24 dev " + Names.INTERFACE,
                        "address add " + Addressing.text(ipv6) + "/64 dev " + Names.INTERFACE + " nodad"));
    }

    /**
     * Port 80 of every pool address goes to this node's backend, as kube-proxy does for a Service's
     * load-balancer IP; the (empty) input chain is where {@code blockService} adds its rule, the firewall chains where
     * {@code blockUdp} and {@code blockTcp} add theirs.
     */
    String kubeProxyRules(int node) {
        return """
        table inet %1$s {
          chain prerouting {
            type nat hook prerouting priority dstnat; policy accept;
            ip daddr %2$s tcp dport 80 dnat ip to %3$s:8080
            ip6 daddr %4$s tcp dport 80 dnat ip6 to [%5$s]:8080
          }
          chain input {
            type filter hook input priority filter; policy accept;
          }
          chain firewall-in {
            type filter hook input priority filter + 1; policy accept;
          }
          chain firewall-out {
            type filter hook output priority filter; policy accept;
          }
        }
        """.formatted(
                        KUBE_PROXY_TABLE,
                        addressing.ipv4Pool(),
                        Addressing.text(addressing.nodeIpv4(node)),
                        addressing.ipv6Pool(),
                        Addressing.text(addressing.nodeIpv6(node)));
    }

    /** One `ip -batch` per namespace keeps creation at a few dozen processes. */
    private static void ip(String namespace, List<String> commands) throws IOException {
        List<String> command = namespace == null
                ? List.of(Tool.IP.path(), "-batch", "-")
                : List.of(Tool.IP.path(), "-n", namespace, "-batch", "-");
        Shell.check(Shell.SETUP_TIMEOUT, command, String.join("\n", commands) + "\n");
    }

    private static void sysctl(String namespace, List<String> settings) throws IOException {
        List<String> command = new ArrayList<>(List.of(Tool.SYSCTL.path(), "-q", "-w"));
        command.addAll(settings);
        Shell.check(Shell.SETUP_TIMEOUT, Shell.inNamespace(namespace, command));
    }
}
