package io.lbk8s.address;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a speaker publishes about its node's network on its own Pod, as the annotation {@value #ANNOTATION}: the
 * interfaces it announces on (their MACs, so that no speaker takes another speaker's answer for a foreign host's; their
 * prefixes) and its default gateways (so that the controller keeps them, and the subnets' network and broadcast
 * addresses, out of pools). Pure: the JSON codec and the rules on it.
 *
 * <pre>{"links":[{"name":"eth0","mac":"02:42:ac:12:00:02","prefixes":["172.18.0.2/16","fc00::2/64"]}],"gateways":["172.18.0.1","fc00::1"]}</pre>
 */
public record NodeNetwork(List<Link> links, List<IpAddress> gateways) {
    public static final String ANNOTATION = "lbk8s.io/node-network";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Pattern MAC = Pattern.compile("[0-9a-f]{2}(:[0-9a-f]{2}){5}");

    public NodeNetwork {
        links = List.copyOf(links);
        gateways = List.copyOf(gateways);
    }

    /** @param mac lower case, colon separated, as {@code ip link} shows it */
    public record Link(String name, String mac, List<IpPrefix> prefixes) {
        public Link {
            mac = mac.toLowerCase(Locale.ROOT);
            if (!MAC.matcher(mac).matches()) {
                throw new IllegalArgumentException("not a MAC address: " + mac);
            }
            prefixes = List.copyOf(prefixes);
        }
    }

    /**
     * An address a speaker on this node must never answer for and the controller never hands out, and why: {@code role}
     * reads after the address, as in "gateway", "address on eth0", "network address of 10.0.0.0/24".
     */
    public record Reservation(IpAddress address, Kind kind, String role) {
        public enum Kind {
            GATEWAY,
            ADDRESS,
            SUBNET
        }

        /** The node's own (its address, its gateway), rather than an address of one of its subnets. */
        public boolean ofThisNode() {
            return kind != Kind.SUBNET;
        }
    }

    /**
     * The node's default gateways; its address on each link, unless it is a host route (/32, /128: where Service and
     * virtual addresses sit, such as kube-proxy's IPVS dummy interface, node-local DNS or kube-vip; a node's own
     * address there is its InternalIP or ExternalIP, which the controller excludes on its own); the network and
     * broadcast addresses of each IPv4 subnet up to /30 (a /31 has neither, RFC 3021); the subnet-router anycast
     * address of each IPv6 subnet up to /126 (RFC 4291; RFC 6164 for /127).
     */
    public List<Reservation> reservations() {
        List<Reservation> reserved = new ArrayList<>();
        gateways.forEach(gateway -> reserved.add(new Reservation(gateway, Reservation.Kind.GATEWAY, "gateway")));
        for (Link link : links) {
            for (IpPrefix prefix : link.prefixes()) {
                int hostBits = prefix.family().bits() - prefix.length();
                if (hostBits > 0) {
                    reserved.add(
                            new Reservation(prefix.address(), Reservation.Kind.ADDRESS, "address on " + link.name()));
                }
                if (hostBits >= 2) {
                    String subnet = prefix.canonical().toString();
                    if (prefix.address().isV4()) {
                        reserved.add(new Reservation(
                                prefix.network(), Reservation.Kind.SUBNET, "network address of " + subnet));
                        reserved.add(new Reservation(
                                prefix.last(), Reservation.Kind.SUBNET, "broadcast address of " + subnet));
                    } else {
                        reserved.add(new Reservation(
                                prefix.network(),
                                Reservation.Kind.SUBNET,
                                "subnet-router anycast address of " + subnet));
                    }
                }
            }
        }
        return List.copyOf(reserved);
    }

    /** Why a speaker on this node must never answer for {@code ip}, if it must not (the first of its {@link #reservations()}). */
    public Optional<String> reserved(IpAddress ip) {
        return reservations().stream()
                .filter(r -> r.address().equals(ip))
                .findFirst()
                .map(r -> r.ofThisNode()
                        ? ip + " is this node's " + r.role()
                        : ip + " is the " + r.role() + ", a subnet of this node");
    }

    /** Whether {@code ip} is this node's address on one of its links (as {@link #reservations()} counts them). */
    public boolean holds(IpAddress ip) {
        return reservations().stream()
                .anyMatch(
                        r -> r.kind() == Reservation.Kind.ADDRESS && r.address().equals(ip));
    }

    /** The MACs of the links, as written. */
    public List<String> macs() {
        return links.stream().map(Link::mac).toList();
    }

    public String toAnnotation() {
        List<Map<String, Object>> linkTrees = new ArrayList<>();
        for (Link link : links) {
            Map<String, Object> tree = new LinkedHashMap<>();
            tree.put("name", link.name());
            tree.put("mac", link.mac());
            tree.put(
                    "prefixes", link.prefixes().stream().map(IpPrefix::toString).toList());
            linkTrees.add(tree);
        }
        Map<String, Object> tree = new LinkedHashMap<>();
        tree.put("links", linkTrees);
        tree.put("gateways", gateways.stream().map(IpAddress::toString).toList());
        return JSON.writeValueAsString(tree);
    }

    /** The network an annotation describes; empty when it is not one (not JSON, a bad address, MAC or prefix). */
    public static Optional<NodeNetwork> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        try {
            JsonNode tree = JSON.readTree(text);
            if (tree == null || !tree.isObject()) {
                return Optional.empty();
            }
            List<Link> links = new ArrayList<>();
            for (JsonNode link : array(tree.get("links"))) {
                JsonNode name = link.get("name");
                JsonNode mac = link.get("mac");
                if (name == null
                        || !name.isString()
                        || mac == null
                        || !mac.isString()
                        || !MAC.matcher(mac.asString().toLowerCase(Locale.ROOT)).matches()) {
                    return Optional.empty();
                }
                Optional<List<IpPrefix>> prefixes = parseEach(link.get("prefixes"), IpPrefix::parse);
                if (prefixes.isEmpty()) {
                    return Optional.empty();
                }
                links.add(new Link(name.asString(), mac.asString(), prefixes.get()));
            }
            return parseEach(tree.get("gateways"), IpAddress::parse).map(gateways -> new NodeNetwork(links, gateways));
        } catch (JacksonException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Each string of a JSON array, parsed; empty when one is not a string or does not parse. */
    private static <T> Optional<List<T>> parseEach(JsonNode node, Function<String, Optional<T>> parse) {
        List<T> parsed = new ArrayList<>();
        for (JsonNode item : array(node)) {
            Optional<T> value = item.isString() ? parse.apply(item.asString()) : Optional.empty();
            if (value.isEmpty()) {
                return Optional.empty();
            }
            parsed.add(value.get());
        }
        return Optional.of(parsed);
    }

    private static Iterable<JsonNode> array(JsonNode node) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw new IllegalArgumentException("not an array: " + node);
        }
        return node;
    }
}
