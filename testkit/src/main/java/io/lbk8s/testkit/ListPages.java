package io.lbk8s.testkit;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Lists in chunks as kube-apiserver answers {@code limit} and {@code continue}: items in key order (namespace, then
 * name; a list without a limit keeps the order of the store, where kube-apiserver's is key order too), at most
 * {@code limit} of them, with a continue token while more are left, and {@code remainingItemCount} when
 * no selector filters the list. Every chunk of one list comes from the moment of its first one (its resourceVersion),
 * as etcd serves it; kube-apiserver's token is base64 of {@code {"v":"meta.k8s.io/v1","rv":N,"start":"KEY\0"}}, and
 * so is this one. A token whose moment is no longer kept (the server keeps the last few lists' moments) gets 410
 * Expired, as one older than etcd's compaction does.
 */
final class ListPages {
    private static final ObjectMapper JSON = JsonMapper.builder().build();
    /** How many lists' moments are kept for their continue tokens. */
    private static final int KEPT = 8;

    private static final Comparator<JsonNode> KEY_ORDER = Comparator.comparing(ListPages::key);

    /** A list's items at one resourceVersion, for one path and query (its selectors). */
    private record Moment(String list, long version) {}

    private final Map<Moment, List<JsonNode>> moments = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Moment, List<JsonNode>> eldest) {
            return size() > KEPT;
        }
    };

    /**
     * The chunk that {@code query}'s limit and continue ask for, put into {@code list} (whose items are all that
     * match now, at {@code version}); a list without a limit is left as it is.
     */
    synchronized void page(String path, Map<String, String> query, ObjectNode list, long version) {
        long limit = limit(query);
        if (limit == 0 && query.getOrDefault("continue", "").isEmpty()) {
            return; // whole, in the order the store keeps (tests read Events in the order they were written)
        }
        Optional<Token> from = Optional.ofNullable(query.get("continue"))
                .filter(c -> !c.isEmpty())
                .map(Token::parse);
        String which = path + "?labelSelector=" + query.getOrDefault("labelSelector", "") + "&fieldSelector="
                + query.getOrDefault("fieldSelector", "");
        List<JsonNode> items;
        long at;
        if (from.isPresent()) {
            at = from.get().version();
            items = moments.get(new Moment(which, at));
            if (items == null) {
                throw new ApiException(
                        410,
                        "Expired",
                        "The provided continue parameter is too old to display a consistent list result. You can"
                                + " start a new list without the continue parameter.",
                        null,
                        null,
                        null);
            }
        } else {
            at = version;
            items = new ArrayList<>(list.path("items").values());
            items.sort(KEY_ORDER);
        }
        int start = from.map(t -> firstAfter(items, t.start())).orElse(0);
        int end = limit > 0 ? (int) Math.min(items.size(), start + limit) : items.size();
        ArrayNode chunk = JsonNodeFactory.instance.arrayNode();
        items.subList(start, end).forEach(chunk::add);
        list.set("items", chunk);
        ObjectNode meta = list.get("metadata") instanceof ObjectNode m ? m : list.putObject("metadata");
        meta.put("resourceVersion", String.valueOf(at));
        if (end < items.size()) {
            meta.put("continue", new Token(at, key(items.get(end - 1)) + "\0").encode());
            if (!query.containsKey("labelSelector") && !query.containsKey("fieldSelector")) {
                meta.put("remainingItemCount", items.size() - end);
            }
            moments.put(new Moment(which, at), items);
        } else {
            moments.remove(new Moment(which, at));
        }
    }

    private static long limit(Map<String, String> query) {
        String limit = query.get("limit");
        if (limit == null || limit.isEmpty()) {
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(limit));
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("invalid limit " + limit);
        }
    }

    /** The index of the first item whose key sorts after {@code start}. */
    private static int firstAfter(List<JsonNode> items, String start) {
        int i = 0;
        while (i < items.size() && key(items.get(i)).compareTo(start) < 0) {
            i++;
        }
        return i;
    }

    /** An object's key in etcd's order: namespace/name (name alone for cluster-scoped objects). */
    private static String key(JsonNode item) {
        JsonNode meta = item.path("metadata");
        String namespace = meta.path("namespace").asString("");
        String name = meta.path("name").asString("");
        return namespace.isEmpty() ? name : namespace + "/" + name;
    }

    /** kube-apiserver's continue token: the list's resourceVersion and the key to go on from. */
    private record Token(long version, String start) {
        String encode() {
            ObjectNode token = JsonNodeFactory.instance.objectNode();
            token.put("v", "meta.k8s.io/v1");
            token.put("rv", version);
            token.put("start", start);
            return Base64.getUrlEncoder().encodeToString(token.toString().getBytes(StandardCharsets.UTF_8));
        }

        static Token parse(String encoded) {
            try {
                JsonNode token =
                        JSON.readTree(new String(Base64.getUrlDecoder().decode(encoded), StandardCharsets.UTF_8));
                if (!"meta.k8s.io/v1".equals(token.path("v").asString(""))
                        || !token.path("rv").isNumber()) {
                    throw ApiException.badRequest("continue key is not valid: incorrect encoded start resourceVersion");
                }
                return new Token(token.path("rv").asLong(), token.path("start").asString(""));
            } catch (IllegalArgumentException | JacksonException e) {
                throw ApiException.badRequest("continue key is not valid: " + e.getMessage());
            }
        }
    }
}
