package io.lbk8s.testkit.net;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/** Every name a network creates carries its id, so leftovers can be found and told apart. */
record Names(String id) {

    static final Pattern ID = Pattern.compile("[0-9a-f]{4}");
    static final Pattern NAMESPACE =
            Pattern.compile("lbk8s-([0-9a-f]{4})-(br|client|control|foreign|router|remote|node-[0-9]{1,2})");
    static final Pattern HOST_LEG = Pattern.compile("lbk8s([0-9a-f]{4})h");

    /** Inside node and client namespaces; the bridge namespace names its ports after the peer. */
    static final String INTERFACE = "eth0";

    static final String BRIDGE = "br0";
    static final String HOST_PORT = "host";
    static final String CLIENT_PORT = "client";
    static final String FOREIGN_PORT = "foreign";
    static final String CONTROL_PORT = "control";
    static final String ROUTER_PORT = "router";

    /** The router's second leg, towards the remote client; its first leg is {@link #INTERFACE} on the LAN. */
    static final String ROUTER_UPLINK = "eth1";

    Names {
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException("id must be 4 lower-case hex digits: " + id);
        }
    }

    String bridgeNamespace() {
        return "lbk8s-" + id + "-br";
    }

    String nodeNamespace(int node) {
        return "lbk8s-" + id + "-" + nodeName(node);
    }

    String clientNamespace() {
        return "lbk8s-" + id + "-client";
    }

    String foreignNamespace() {
        return "lbk8s-" + id + "-foreign";
    }

    /** A real cluster's control plane. */
    String controlNamespace() {
        return "lbk8s-" + id + "-control";
    }

    /** The upstream router, with one leg on the LAN and one towards the remote client. */
    String routerNamespace() {
        return "lbk8s-" + id + "-router";
    }

    /** A client on another subnet that reaches the LAN only through the router, as a user on the internet. */
    String remoteNamespace() {
        return "lbk8s-" + id + "-remote";
    }

    /** The host end of the host leg, in the machine's own namespace: 10 characters, under IFNAMSIZ. */
    String hostLeg() {
        return "lbk8s" + id + "h";
    }

    static String nodeName(int node) {
        return "node-" + node;
    }

    /** Bridge namespace last: deleting it is what removes the host leg's peer. */
    List<String> namespaces(int nodeCount) {
        return Stream.concat(
                        IntStream.rangeClosed(1, nodeCount).mapToObj(this::nodeNamespace),
                        Stream.of(clientNamespace(), bridgeNamespace()))
                .toList();
    }

    static Optional<String> idOfNamespace(String namespace) {
        Matcher m = NAMESPACE.matcher(namespace);
        return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
    }

    static Optional<String> idOfHostLeg(String interfaceName) {
        Matcher m = HOST_LEG.matcher(interfaceName);
        return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
    }
}
