package io.lbk8s.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Server-side printing ({@code meta.k8s.io/v1 Table}) as {@code kubectl get} asks for it: the real
 * server's columns for Services and Nodes, a CRD's additionalPrinterColumns, Name/Age otherwise.
 */
final class Tables {

    private Tables() {}

    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    record Column(String name, String type, String format, int priority, Function<JsonNode, Object> value) {}

    static boolean wanted(String accept) {
        return accept != null && accept.contains("as=Table");
    }

    static List<Column> columns(String group, String plural, JsonNode crd, String version) {
        List<Column> c = new ArrayList<>();
        c.add(new Column(
                "Name",
                "string",
                "name",
                0,
                o -> o.path("metadata").path("name").asString("")));
        if (group.isEmpty() && plural.equals("services")) {
            c.add(new Column(
                    "Type", "string", "", 0, o -> o.path("spec").path("type").asString("")));
            c.add(new Column(
                    "Cluster-IP",
                    "string",
                    "",
                    0,
                    o -> orNone(o.path("spec").path("clusterIP").asString(""))));
            c.add(new Column("External-IP", "string", "", 0, Tables::externalIp));
            c.add(new Column("Port(s)", "string", "", 0, Tables::ports));
            c.add(new Column("Age", "string", "", 0, Tables::age));
            c.add(new Column(
                    "Selector",
                    "string",
                    "",
                    1,
                    o -> orNone(labels(o.path("spec").path("selector")))));
        } else if (group.isEmpty() && plural.equals("nodes")) {
            c.add(new Column("Status", "string", "", 0, Tables::nodeStatus));
            c.add(new Column("Roles", "string", "", 0, Tables::roles));
            c.add(new Column("Age", "string", "", 0, Tables::age));
            c.add(new Column(
                    "Version",
                    "string",
                    "",
                    0,
                    o -> o.path("status")
                            .path("nodeInfo")
                            .path("kubeletVersion")
                            .asString("")));
            c.add(new Column("Internal-IP", "string", "", 1, o -> address(o, "InternalIP")));
            c.add(new Column("External-IP", "string", "", 1, o -> address(o, "ExternalIP")));
        } else if (crd != null) {
            JsonNode columns = null;
            for (JsonNode v : crd.path("spec").path("versions").values()) {
                if (v.path("name").asString("").equals(version)) {
                    columns = v.path("additionalPrinterColumns");
                }
            }
            boolean age = false;
            if (columns != null) {
                for (JsonNode col : columns.values()) {
                    String path = col.path("jsonPath").asString("");
                    String name = col.path("name").asString("");
                    age |= path.equals(".metadata.creationTimestamp");
                    String type = col.path("type").asString("string");
                    c.add(new Column(
                            name,
                            type,
                            col.path("format").asString(""),
                            col.path("priority").asInt(0),
                            path.equals(".metadata.creationTimestamp") ? Tables::age : o -> jsonPath(o, path)));
                }
            }
            if (!age) {
                c.add(new Column("Age", "string", "", 0, Tables::age));
            }
        } else {
            c.add(new Column("Age", "string", "", 0, Tables::age));
        }
        return c;
    }

    static ObjectNode table(List<Column> columns, List<JsonNode> objects, String resourceVersion) {
        ObjectNode t = F.objectNode();
        t.put("kind", "Table");
        t.put("apiVersion", "meta.k8s.io/v1");
        t.putObject("metadata").put("resourceVersion", resourceVersion);
        ArrayNode defs = t.putArray("columnDefinitions");
        for (Column c : columns) {
            ObjectNode d = defs.addObject();
            d.put("name", c.name());
            d.put("type", c.type());
            d.put("format", c.format());
            d.put("description", "");
            d.put("priority", c.priority());
        }
        ArrayNode rows = t.putArray("rows");
        for (JsonNode o : objects) {
            ObjectNode row = rows.addObject();
            ArrayNode cells = row.putArray("cells");
            for (Column c : columns) {
                Object v = c.value().apply(o);
                if (v instanceof Number n) {
                    cells.add(n.longValue());
                } else {
                    cells.add(String.valueOf(v));
                }
            }
            ObjectNode partial = row.putObject("object");
            partial.put("kind", "PartialObjectMetadata");
            partial.put("apiVersion", "meta.k8s.io/v1");
            partial.set("metadata", o.path("metadata").deepCopy());
        }
        return t;
    }

    private static String orNone(String s) {
        return s == null || s.isEmpty() ? "<none>" : s;
    }

    private static String labels(JsonNode map) {
        List<String> parts = new ArrayList<>();
        map.properties().forEach(e -> parts.add(e.getKey() + "=" + e.getValue().asString()));
        return String.join(",", parts);
    }

    private static String externalIp(JsonNode svc) {
        JsonNode spec = svc.path("spec");
        String type = spec.path("type").asString("ClusterIP");
        List<String> ips = new ArrayList<>();
        spec.path("externalIPs").values().forEach(n -> ips.add(n.asString()));
        switch (type) {
            case "ExternalName":
                return spec.path("externalName").asString("<none>");
            case "LoadBalancer":
                for (JsonNode in :
                        svc.path("status").path("loadBalancer").path("ingress").values()) {
                    ips.add(
                            in.has("ip")
                                    ? in.path("ip").asString()
                                    : in.path("hostname").asString());
                }
                return ips.isEmpty() ? "<pending>" : String.join(",", ips);
            default:
                return ips.isEmpty() ? "<none>" : String.join(",", ips);
        }
    }

    private static String ports(JsonNode svc) {
        List<String> out = new ArrayList<>();
        for (JsonNode p : svc.path("spec").path("ports").values()) {
            String s = p.path("port").asString("");
            if (p.path("nodePort").asInt(0) != 0) {
                s += ":" + p.path("nodePort").asInt();
            }
            out.add(s + "/" + p.path("protocol").asString("TCP"));
        }
        return out.isEmpty() ? "<none>" : String.join(",", out);
    }

    private static String nodeStatus(JsonNode node) {
        String status = "Unknown";
        for (JsonNode c : node.path("status").path("conditions").values()) {
            if (c.path("type").asString("").equals("Ready")) {
                status = c.path("status").asString("").equals("True") ? "Ready" : "NotReady";
            }
        }
        if (node.path("spec").path("unschedulable").asBoolean(false)) {
            status += ",SchedulingDisabled";
        }
        return status;
    }

    private static String roles(JsonNode node) {
        List<String> roles = new ArrayList<>();
        for (String key : node.path("metadata").path("labels").propertyNames()) {
            if (key.startsWith("node-role.kubernetes.io/")) {
                roles.add(key.substring("node-role.kubernetes.io/".length()));
            }
        }
        return roles.isEmpty() ? "<none>" : String.join(",", roles);
    }

    private static String address(JsonNode node, String type) {
        for (JsonNode a : node.path("status").path("addresses").values()) {
            if (a.path("type").asString("").equals(type)) {
                return a.path("address").asString("");
            }
        }
        return "<none>";
    }

    /** Dotted JSON paths only ({@code .spec.addresses}); arrays and objects print as JSON. */
    private static Object jsonPath(JsonNode o, String path) {
        JsonNode n = o;
        for (String part : path.replaceAll("^\\.", "").split("\\.")) {
            if (!part.isEmpty()) {
                n = n.path(part);
            }
        }
        if (n.isMissingNode() || n.isNull()) {
            return "";
        }
        if (n.isIntegralNumber()) {
            return n.asLong();
        }
        return n.isValueNode() ? n.asString() : n.toString();
    }

    static String age(JsonNode o) {
        String ts = o.path("metadata").path("creationTimestamp").asString("");
        if (ts.isEmpty()) {
            return "<unknown>";
        }
        try {
            return human(Duration.between(Instant.parse(ts), Instant.now()));
        } catch (RuntimeException e) {
            return "<unknown>";
        }
    }

    /** Like apimachinery's duration.HumanDuration. */
    static String human(Duration d) {
        long s = Math.max(0, d.toSeconds());
        if (s < 120) {
            return s + "s";
        }
        long m = s / 60;
        if (m < 10) {
            return m + "m" + (s % 60 == 0 ? "" : (s % 60) + "s");
        }
        if (m < 180) {
            return m + "m";
        }
        long h = m / 60;
        if (h < 8) {
            return h + "h" + (m % 60 == 0 ? "" : (m % 60) + "m");
        }
        if (h < 48) {
            return h + "h";
        }
        long days = h / 24;
        return days < 365 * 2 ? days + "d" : (days / 365) + "y";
    }
}
