package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import io.lbk8s.config.L2Advertisement;
import io.lbk8s.net.link.LinkAddress;
import io.lbk8s.net.link.LinkInfo;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * On which of this node's interfaces an address is answered. An L2Advertisement that names interfaces restricts
 * it to those (if they exist and are up with a carrier); one that names none means "the interfaces whose subnet holds
 * the address", skipping loopback, down links and links without carrier, bridge and bond members (their master carries the address) and, by
 * name, the virtual interfaces of containers and CNIs, which are never the node's LAN.
 */
public final class InterfaceChoice {
    private InterfaceChoice() {}

    /** MetalLB's default exclusions, plus a few CNIs it has met since. */
    public static final List<Pattern> DEFAULT_EXCLUDED = List.of(
                    "^docker.*",
                    "^cbr.*",
                    "^dummy.*",
                    "^virbr.*",
                    "^lxcbr.*",
                    "^veth.*",
                    "^lo$",
                    "^cali.*",
                    "^tunl.*",
                    "^flannel.*",
                    "^kube-ipvs.*",
                    "^cni.*",
                    "^vxlan.*",
                    "^nodelocaldns.*",
                    "^cilium.*",
                    "^lxc.*",
                    "^genev.*",
                    "^br-.*",
                    "^kube-bridge.*",
                    "^weave.*")
            .stream()
            .map(Pattern::compile)
            .toList();

    public static List<LinkInfo> choose(
            IpAddress ip, List<L2Advertisement> advertisements, List<LinkInfo> links, List<Pattern> excluded) {
        Set<LinkInfo> chosen = new LinkedHashSet<>();
        boolean bySubnet = advertisements.isEmpty()
                || advertisements.stream().anyMatch(a -> a.interfaces().isEmpty());
        for (LinkInfo link : links) {
            if (!link.up() || !link.running() || link.loopback()) {
                continue;
            }
            boolean named = advertisements.stream().anyMatch(a -> a.interfaces().contains(link.name()));
            if (named || (bySubnet && automatic(link, excluded) && holdsSubnet(link, ip))) {
                chosen.add(link);
            }
        }
        return List.copyOf(chosen);
    }

    private static boolean automatic(LinkInfo link, List<Pattern> excluded) {
        return link.master().isEmpty()
                && excluded.stream().noneMatch(p -> p.matcher(link.name()).find());
    }

    private static boolean holdsSubnet(LinkInfo link, IpAddress ip) {
        for (LinkAddress address : link.addresses()) {
            if (address.contains(ip)) {
                return true;
            }
        }
        return false;
    }

    /** Why no interface was chosen, for the Warning event. */
    public static String noInterface(
            IpAddress ip, String node, List<L2Advertisement> advertisements, List<LinkInfo> links) {
        List<String> named = advertisements.stream()
                .flatMap(a -> a.interfaces().stream())
                .distinct()
                .toList();
        String seen = links.stream()
                .filter(l -> !l.loopback())
                .map(l -> l.name()
                        + (!l.up() ? " (down)" : l.running() ? "" : " (no carrier)")
                        + (l.master().isPresent() ? " (member of " + l.master().get() + ")" : "")
                        + l.addresses().stream()
                                .map(a -> " " + a.address() + "/" + a.prefixLength())
                                .reduce("", String::concat))
                .reduce((a, b) -> a + ", " + b)
                .orElse("none");
        if (!named.isEmpty()
                && advertisements.stream().noneMatch(a -> a.interfaces().isEmpty())) {
            return "node " + node + " leads " + ip + " but has none of the interfaces " + String.join(", ", named)
                    + " up (it has: " + seen + ")";
        }
        return "node " + node + " leads " + ip + " but no usable interface has a subnet containing it (it has: " + seen
                + ")";
    }
}
