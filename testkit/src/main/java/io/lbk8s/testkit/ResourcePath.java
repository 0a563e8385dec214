package io.lbk8s.testkit;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A parsed request path of the form {@code /api/v1[/namespaces/NS]/PLURAL[/NAME[/SUB]]} or
 * {@code /apis/GROUP/VERSION[/namespaces/NS]/PLURAL[/NAME[/SUB]]}, plus its query parameters.
 */
public record ResourcePath(
        String group,
        String version,
        String namespace,
        String plural,
        String name,
        String subresource,
        Map<String, String> query) {

    public boolean isList() {
        return name == null;
    }

    public boolean isStatus() {
        return "status".equals(subresource);
    }

    public boolean isWatch() {
        return "true".equals(query.get("watch")) || "1".equals(query.get("watch"));
    }

    /** Path of the main resource, without subresource or query. */
    public String objectPath() {
        StringBuilder b = new StringBuilder(group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version);
        if (namespace != null) {
            b.append("/namespaces/").append(namespace);
        }
        b.append('/').append(plural);
        if (name != null) {
            b.append('/').append(name);
        }
        return b.toString();
    }

    public static String pathOnly(String raw) {
        int q = raw.indexOf('?');
        return q < 0 ? raw : raw.substring(0, q);
    }

    public static Map<String, String> query(String raw) {
        Map<String, String> params = new LinkedHashMap<>();
        int q = raw.indexOf('?');
        if (q < 0) {
            return params;
        }
        for (String pair : raw.substring(q + 1).split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String k = eq < 0 ? pair : pair.substring(0, eq);
            String v = eq < 0 ? "" : pair.substring(eq + 1);
            params.put(URLDecoder.decode(k, StandardCharsets.UTF_8), URLDecoder.decode(v, StandardCharsets.UTF_8));
        }
        return params;
    }

    /** Parses a resource path, or empty for discovery and other non-resource paths. */
    public static Optional<ResourcePath> parse(String raw) {
        String path = pathOnly(raw);
        String[] s = path.replaceAll("^/+", "").replaceAll("/+$", "").split("/");
        int i;
        String group;
        String version;
        if (s.length >= 3 && s[0].equals("api")) {
            group = "";
            version = s[1];
            i = 2;
        } else if (s.length >= 4 && s[0].equals("apis")) {
            group = s[1];
            version = s[2];
            i = 3;
        } else {
            return Optional.empty();
        }
        int rest = s.length - i;
        String namespace = null;
        String plural;
        String name = null;
        String sub = null;
        boolean namespaceSubresource = group.isEmpty()
                && s[i].equals("namespaces")
                && rest == 3
                && (s[i + 2].equals("status") || s[i + 2].equals("finalize"));
        if (s[i].equals("namespaces") && rest >= 3 && !namespaceSubresource) {
            namespace = s[i + 1];
            plural = s[i + 2];
            name = rest >= 4 ? s[i + 3] : null;
            sub = rest >= 5 ? s[i + 4] : null;
        } else {
            plural = s[i];
            name = rest >= 2 ? s[i + 1] : null;
            sub = rest >= 3 ? s[i + 2] : null;
        }
        return Optional.of(new ResourcePath(group, version, namespace, plural, name, sub, query(raw)));
    }
}
