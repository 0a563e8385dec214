package io.lbk8s.testkit;

import java.util.HashSet;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the API server's Service strategy and allocators do on create: a cluster IP from
 * 10.96.0.0/12 (sequential from 10.96.0.10), or fd00:10:96::/108 for IPv6 (the cluster is dual-stack), node ports from 30000-32767 for NodePort and
 * LoadBalancer services, and defaults for type, ipFamilies, ipFamilyPolicy, sessionAffinity,
 * internalTrafficPolicy and externalTrafficPolicy. Status is reset to an empty load balancer status.
 * Not thread safe; the dispatcher calls it under its write lock.
 */
final class ServiceDefaults {

    private static final long CIDR_BASE = ipv4("10.96.0.0");
    private static final long CIDR_SIZE = 1L << 20;
    private long nextIp = 10;
    private long nextIp6 = 10;
    private int nextNodePort = 30000;
    private final Set<String> usedIps = new HashSet<>();
    private final Set<Integer> usedNodePorts = new HashSet<>();

    void applyOnCreate(ObjectNode service) {
        ObjectNode spec = service.has("spec") && service.get("spec").isObject()
                ? (ObjectNode) service.get("spec")
                : service.putObject("spec");
        String type = spec.path("type").asString("");
        if (type.isEmpty()) {
            type = "ClusterIP";
            spec.put("type", type);
        }
        if (!spec.has("sessionAffinity")) {
            spec.put("sessionAffinity", "None");
        }
        if (!type.equals("ExternalName")) {
            String clusterIp = spec.path("clusterIP").asString("");
            boolean dualStack = spec.path("ipFamilyPolicy").asString("").endsWith("DualStack");
            if (clusterIp.isEmpty()) {
                String family = spec.path("ipFamilies").path(0).asString("IPv4");
                clusterIp = allocateIp(family);
                spec.put("clusterIP", clusterIp);
                ArrayNode ips = spec.putArray("clusterIPs").add(clusterIp);
                if (dualStack) {
                    ips.add(allocateIp(
                            spec.path("ipFamilies").path(1).asString(family.equals("IPv4") ? "IPv6" : "IPv4")));
                }
            } else {
                usedIps.add(clusterIp);
            }
            if (!spec.has("clusterIPs") || spec.get("clusterIPs").isEmpty()) {
                spec.putArray("clusterIPs").add(clusterIp);
            }
            if (!spec.has("ipFamilies") || spec.get("ipFamilies").isEmpty()) {
                ArrayNode families = spec.putArray("ipFamilies");
                for (JsonNode ip : spec.get("clusterIPs").values()) {
                    families.add(ip.asString("").contains(":") ? "IPv6" : "IPv4");
                }
            }
            if (!spec.has("ipFamilyPolicy")) {
                spec.put("ipFamilyPolicy", "SingleStack");
            }
            if (!spec.has("internalTrafficPolicy")) {
                spec.put("internalTrafficPolicy", "Cluster");
            }
        }
        boolean lb = type.equals("LoadBalancer");
        if (lb || type.equals("NodePort")) {
            if (!spec.has("externalTrafficPolicy")) {
                spec.put("externalTrafficPolicy", "Cluster");
            }
            if (lb && !spec.has("allocateLoadBalancerNodePorts")) {
                spec.put("allocateLoadBalancerNodePorts", true);
            }
            boolean allocate = !lb || spec.path("allocateLoadBalancerNodePorts").asBoolean(true);
            JsonNode ports = spec.path("ports");
            if (ports instanceof ArrayNode array) {
                for (JsonNode p : array.values()) {
                    if (p instanceof ObjectNode port) {
                        if (!port.has("protocol")) {
                            port.put("protocol", "TCP");
                        }
                        if (port.path("nodePort").asInt(0) != 0) {
                            usedNodePorts.add(port.get("nodePort").asInt());
                        } else if (allocate) {
                            port.put("nodePort", allocateNodePort());
                        }
                    }
                }
            }
        }
        for (JsonNode p : spec.path("ports").values()) {
            if (p instanceof ObjectNode port) {
                if (!port.has("protocol")) {
                    port.put("protocol", "TCP");
                }
                if (!port.has("targetPort") && port.has("port")) {
                    port.set("targetPort", port.get("port"));
                }
            }
        }
        service.putObject("status").putObject("loadBalancer");
    }

    /**
     * On update of the main resource, as the Service strategy does: omitted cluster IPs are kept, node ports
     * are allocated when the type starts needing them and dropped (if unchanged) when it stops, type-dependent
     * fields are dropped, and status.loadBalancer is cleared when the type is no longer LoadBalancer.
     */
    void applyOnUpdate(JsonNode current, ObjectNode updated) {
        preserveAllocations(current, updated);
        if (!(updated.get("spec") instanceof ObjectNode spec)) {
            return;
        }
        JsonNode oldSpec = current.path("spec");
        String oldType = oldSpec.path("type").asString("ClusterIP");
        String newType = spec.path("type").asString("");
        if (newType.isEmpty()) {
            newType = "ClusterIP";
            spec.put("type", newType);
        }
        boolean oldNeeds = needsNodePorts(oldType);
        boolean newNeeds = needsNodePorts(newType);
        boolean lb = newType.equals("LoadBalancer");
        if (oldNeeds && !newNeeds && sameNodePorts(oldSpec, spec)) {
            for (JsonNode p : spec.path("ports").values()) {
                if (p instanceof ObjectNode port) {
                    port.remove("nodePort");
                }
            }
        }
        if (newNeeds) {
            if (!spec.has("externalTrafficPolicy")) {
                spec.put("externalTrafficPolicy", "Cluster");
            }
            if (lb && !spec.has("allocateLoadBalancerNodePorts")) {
                spec.put("allocateLoadBalancerNodePorts", true);
            }
            if (!lb || spec.path("allocateLoadBalancerNodePorts").asBoolean(true)) {
                for (JsonNode p : spec.path("ports").values()) {
                    if (p instanceof ObjectNode port) {
                        if (port.path("nodePort").asInt(0) == 0) {
                            port.put("nodePort", allocateNodePort());
                        } else {
                            usedNodePorts.add(port.get("nodePort").asInt());
                        }
                    }
                }
            }
        } else if (same(oldSpec, spec, "externalTrafficPolicy")) {
            spec.remove("externalTrafficPolicy");
        }
        if (!lb) {
            if (same(oldSpec, spec, "allocateLoadBalancerNodePorts")) {
                spec.remove("allocateLoadBalancerNodePorts");
            }
            if (same(oldSpec, spec, "loadBalancerClass")) {
                spec.remove("loadBalancerClass");
            }
            if (updated.get("status") instanceof ObjectNode status) {
                status.putObject("loadBalancer");
            }
        }
    }

    private static boolean needsNodePorts(String type) {
        return type.equals("NodePort") || type.equals("LoadBalancer");
    }

    private static boolean same(JsonNode oldSpec, JsonNode newSpec, String field) {
        return newSpec.has(field) && newSpec.get(field).equals(oldSpec.get(field));
    }

    private static boolean sameNodePorts(JsonNode oldSpec, JsonNode newSpec) {
        JsonNode oldPorts = oldSpec.path("ports");
        JsonNode newPorts = newSpec.path("ports");
        for (int i = 0; i < newPorts.size(); i++) {
            int n = newPorts.get(i).path("nodePort").asInt(0);
            if (n != 0
                    && (i >= oldPorts.size() || oldPorts.get(i).path("nodePort").asInt(0) != n)) {
                return false;
            }
        }
        return true;
    }

    /** On update, an omitted cluster IP keeps the allocated one (it is immutable). */
    static void preserveAllocations(JsonNode current, ObjectNode updated) {
        JsonNode oldSpec = current.path("spec");
        if (!(updated.get("spec") instanceof ObjectNode spec)) {
            return;
        }
        for (String field : new String[] {"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"}) {
            JsonNode value = spec.get(field);
            boolean absent = value == null
                    || value.isNull()
                    || (value.isString() && value.asString().isEmpty())
                    || (value.isArray() && value.isEmpty());
            if (absent && oldSpec.has(field)) {
                spec.set(field, oldSpec.get(field).deepCopy());
            }
        }
    }

    /** The next free cluster IP of {@code family}: a dual-stack cluster, 10.96.0.0/12 and fd00:10:96::/108. */
    private String allocateIp(String family) {
        if (family.equals("IPv6")) {
            while (nextIp6 < (1 << 20)) {
                String ip = "fd00:10:96::" + Long.toHexString(nextIp6++);
                if (usedIps.add(ip)) {
                    return ip;
                }
            }
            throw new IllegalStateException("cluster IP range fd00:10:96::/108 exhausted");
        }
        return allocateIp();
    }

    private String allocateIp() {
        while (nextIp < CIDR_SIZE - 1) {
            String ip = ipv4(CIDR_BASE + nextIp++);
            if (usedIps.add(ip)) {
                return ip;
            }
        }
        throw new IllegalStateException("cluster IP range 10.96.0.0/12 exhausted");
    }

    private int allocateNodePort() {
        while (nextNodePort <= 32767) {
            int port = nextNodePort++;
            if (usedNodePorts.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("node port range 30000-32767 exhausted");
    }

    private static long ipv4(String s) {
        long v = 0;
        for (String part : s.split("\\.")) {
            v = (v << 8) | Integer.parseInt(part);
        }
        return v;
    }

    private static String ipv4(long v) {
        return ((v >> 24) & 255) + "." + ((v >> 16) & 255) + "." + ((v >> 8) & 255) + "." + (v & 255);
    }
}
