package io.lbk8s.address;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * A node's network as its speaker sees it, written by the speaker on its own Pod as the annotation {@value #ANNOTATION}:
 * {@code {"links":[{"name":"eth0","mac":"02:42:ac:12:00:02","prefixes":["172.18.0.2/16","fc00::2/64"]}],
 * "gateways":["172.18.0.1","fc00::1"]}}. The controller reads it to keep the subnets' network and broadcast
 * addresses and the gateways out of Services. Pure codec: text in, record out.
 *
 * @param links    each interface, with its addresses as {@code address/prefix-length}
 * @param gateways the default gateways, one per family at most
 */
public record NodeNetwork(List<Link> links, List<String> gateways) {
    public static final String ANNOTATION = "lbk8s.io/node-network";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    public NodeNetwork {
        links = List.copyOf(links);
        gateways = List.copyOf(gateways);
    }

    public record Link(String name, String mac, List<String> prefixes) {
        public Link {
            prefixes = List.copyOf(prefixes);
        }
    }

    public String toAnnotation() {
        List<Map<String, Object>> linkTrees = new ArrayList<>();
        for (Link link : links) {
            Map<String, Object> tree = new LinkedHashMap<>();
            tree.put("name", link.name());
            tree.put("mac", link.mac());
            tree.put("prefixes", link.prefixes());
            linkTrees.add(tree);
        }
        Map<String, Object> tree = new LinkedHashMap<>();
        tree.put("links", linkTrees);
        tree.put("gateways", gateways);
        return JSON.writeValueAsString(tree);
    }

    /** The network in an annotation's text; empty when the text is not such JSON (a speaker of another version). */
    public static Optional<NodeNetwork> parse(String text) {
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        try {
            if (!(JSON.readValue(text, Object.class) instanceof Map<?, ?> tree)) {
                return Optional.empty();
            }
            List<Link> links = new ArrayList<>();
            if (tree.get("links") instanceof List<?> list) {
                for (Object item : list) {
                    if (!(item instanceof Map<?, ?> link) || !(link.get("name") instanceof String name)) {
                        return Optional.empty();
                    }
                    String mac = link.get("mac") instanceof String m ? m : "";
                    links.add(new Link(name, mac, strings(link.get("prefixes"))));
                }
            } else if (tree.get("links") != null) {
                return Optional.empty();
            }
            if (tree.get("gateways") != null && !(tree.get("gateways") instanceof List<?>)) {
                return Optional.empty();
            }
            return Optional.of(new NodeNetwork(links, strings(tree.get("gateways"))));
        } catch (JacksonException e) {
            return Optional.empty();
        }
    }

    private static List<String> strings(Object value) {
        List<String> out = new ArrayList<>();
        if (value instanceof List<?> list) {
            for (Object item : list) {
                if (item instanceof String s) {
                    out.add(s);
                }
            }
        }
        return out;
    }
}
