package io.lbk8s.testkit.net;

import java.net.InetAddress;

/**
 * One node of a {@link TestNetwork}: a namespace joined to the bridge by {@code eth0}, with a backend
 * answering {@code node-N} on port 8080 and a kube-proxy stand-in that DNATs port 80 of the pools to it.
 * Act on it through its network: {@link TestNetwork#start}, {@link TestNetwork#run},
 * {@link TestNetwork#linkDown(TestNode)}.
 *
 * @param name          {@code node-1}, as a Kubernetes node name
 * @param namespace     {@code lbk8s-<id>-node-1}
 * @param interfaceName {@code eth0}
 * @param mac           {@code 02:1b:8a:00:00:01}
 * @param ipv4          {@code 198.18.X.11}
 * @param ipv6          {@code fd00:1b8:X::11}
 */
public record TestNode(
        String name, String namespace, String interfaceName, String mac, InetAddress ipv4, InetAddress ipv6) {

    /** 1 for node-1. */
    public int number() {
        return Integer.parseInt(name.substring(name.lastIndexOf('-') + 1));
    }

    /**
     * Its address of a family as Kubernetes wants it written (IPv6 compressed, RFC 5952: the API server refuses
     * {@code fd00:1:0:0:0:0:0:11}, which Java's {@code getHostAddress} gives, in an EndpointSlice).
     */
    public String addressText(boolean ipv6) {
        return Addressing.text(ipv6 ? this.ipv6 : ipv4);
    }

    /** What its backend answers: {@code node-1\n}. */
    public String backendBody() {
        return name + "\n";
    }

    @Override
    public String toString() {
        return name + "[" + namespace + " " + interfaceName + " " + mac + " " + Addressing.text(ipv4) + " "
                + Addressing.text(ipv6) + "]";
    }
}
