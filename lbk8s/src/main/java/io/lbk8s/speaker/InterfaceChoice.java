package io.lbk8s.speaker;

import io.lbk8s.address.IpAddress;
import io.lbk8s.config.L2Advertisement;
import io.lbk8s.net.link.LinkAddress;
import io.lbk8s.net.link.LinkInfo;
import java.util.ArrayList;
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
        return Usable.of(links, excluded).choose(ip, advertisements);
    }

    /**
     * The links that may answer at all (up, with a carrier, not loopback), each once, and which of them the choice
     * by subnet may take: worked out once per plan, since matching every name against the excluded patterns for
     * every address cost more than the rest of the choice.
     */
    static final class Usable {
        private final List<LinkInfo> links;
        private final boolean[] automatic;

        private Usable(List<LinkInfo> links, boolean[] automatic) {
            this.links = links;
            this.automatic = automatic;
        }

        static Usable of(List<LinkInfo> links, List<Pattern> excluded) {
            Set<LinkInfo> usable = new LinkedHashSet<>();
            for (LinkInfo link : links) {
                if (link.up() && link.running() && !link.loopback()) {
                    usable.add(link);
                }
            }
            List<LinkInfo> list = List.copyOf(usable);
            boolean[] automatic = new boolean[list.size()];
            for (int i = 0; i < automatic.length; i++) {
                automatic[i] = automatic(list.get(i), excluded);
            }
            return new Usable(list, automatic);
        }

        List<LinkInfo> choose(IpAddress ip, List<L2Advertisement> advertisements) {
            boolean bySubnet = advertisements.isEmpty();
            for (L2Advertisement advertisement : advertisements) {
                bySubnet |= advertisement.interfaces().isEmpty();
            }
            List<LinkInfo> chosen = new ArrayList<>(1);
            for (int i = 0; i < links.size(); i++) {
                LinkInfo link = links.get(i);
                if ((bySubnet && automatic[i] && holdsSubnet(link, ip)) || named(link, advertisements)) {
                    chosen.add(link);
                }
            }
            return List.copyOf(chosen);
        }

        private static boolean named(LinkInfo link, List<L2Advertisement> advertisements) {
            for (L2Advertisement advertisement : advertisements) {
                if (advertisement.interfaces().contains(link.name())) {
                    return true;
                }
            }
            return false;
        }
    }

    private static boolean automatic(LinkInfo link, List<Pattern> excluded) {
        if (link.master().isPresent()) {
            return false;
        }
        for (Pattern pattern : excluded) {
            if (pattern.matcher(link.name()).find()) {
                return false;
            }
        }
        return true;
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
