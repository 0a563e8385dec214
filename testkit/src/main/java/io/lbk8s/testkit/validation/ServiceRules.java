package io.lbk8s.testkit.validation;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * kube-apiserver's Service validation (pkg/apis/core/validation, ValidateService and ValidateServiceUpdate), applied
 * to a Service after the API server's defaults and allocations: ports, type, cluster IPs and IP families, traffic
 * policies, loadBalancerClass and what only LoadBalancer Services may carry.
 */
public final class ServiceRules {

    private static final List<String> PROTOCOLS = List.of("SCTP", "TCP", "UDP");
    private static final List<String> TYPES = List.of("ClusterIP", "ExternalName", "LoadBalancer", "NodePort");
    private static final List<String> AFFINITIES = List.of("ClientIP", "None");
    private static final List<String> FAMILIES = List.of("IPv4", "IPv6");
    private static final List<String> FAMILY_POLICIES = List.of("PreferDualStack", "RequireDualStack", "SingleStack");
    private static final List<String> TRAFFIC_POLICIES = List.of("Cluster", "Local");
    private static final Pattern IANA_SVC_NAME = Pattern.compile("[a-z0-9]([a-z0-9-]*[a-z0-9])*");
    private static final Pattern LETTER = Pattern.compile(".*[a-z].*");

    private ServiceRules() {}

    public static List<FieldError> validateCreate(JsonNode service) {
        List<FieldError> errors = new ArrayList<>(ObjectMetaRules.validate(service, Names.DNS1035_LABEL));
        errors.addAll(spec(service.path("spec")));
        return errors;
    }

    public static List<FieldError> validateUpdate(JsonNode service, JsonNode old) {
        List<FieldError> errors = new ArrayList<>();
        JsonNode spec = service.path("spec");
        JsonNode oldSpec = old.path("spec");
        String type = spec.path("type").asString("");
        String oldType = oldSpec.path("type").asString("");
        if (!type.equals("ExternalName") && !oldType.equals("ExternalName") && !(headless(spec) && headless(oldSpec))) {
            List<String> ips = strings(spec.path("clusterIPs"));
            List<String> oldIps = strings(oldSpec.path("clusterIPs"));
            for (int i = 0; i < Math.min(ips.size(), oldIps.size()); i++) {
                if (!ips.get(i).equals(oldIps.get(i)) && (i == 0 || ips.size() == oldIps.size())) {
                    errors.add(FieldError.invalid(
                            "spec.clusterIPs[" + i + "]",
                            FieldError.goValue(spec.path("clusterIPs")),
                            "may not change once set"));
                }
            }
        }
        if (type.equals("LoadBalancer")
                && oldType.equals("LoadBalancer")
                && !spec.path("loadBalancerClass").equals(oldSpec.path("loadBalancerClass"))) {
            errors.add(FieldError.invalid(
                    "spec.loadBalancerClass",
                    FieldError.goValue(spec.get("loadBalancerClass")),
                    "may not change once set"));
        }
        errors.addAll(validateCreate(service));
        return errors;
    }

    /** ValidateLoadBalancerStatus: what a load balancer controller may write in {@code status.loadBalancer}. */
    public static List<FieldError> validateStatus(JsonNode status) {
        List<FieldError> errors = new ArrayList<>();
        JsonNode ingress = status.path("loadBalancer").path("ingress");
        for (int i = 0; i < ingress.size(); i++) {
            String at = "status.loadBalancer.ingress[" + i + "]";
            JsonNode one = ingress.get(i);
            String ip = one.path("ip").asString("");
            if (!ip.isEmpty()) {
                errors.addAll(ip(at + ".ip", ip));
            }
            String mode = one.path("ipMode").asString("");
            if (one.hasNonNull("ipMode")) {
                if (ip.isEmpty()) {
                    errors.add(FieldError.forbidden(at + ".ipMode", "may not be specified when `ip` is not"));
                } else if (!List.of("Proxy", "VIP").contains(mode)) {
                    errors.add(
                            FieldError.notSupported(at + ".ipMode", FieldError.quote(mode), List.of("Proxy", "VIP")));
                }
            }
            String hostname = one.path("hostname").asString("");
            if (!hostname.isEmpty()) {
                errors.addAll(Names.DNS1123_SUBDOMAIN.check(at + ".hostname", hostname));
                if (isIp(hostname)) {
                    errors.add(FieldError.invalid(
                            at + ".hostname", FieldError.quote(hostname), "must be a DNS name, not an IP address"));
                }
            }
        }
        return errors;
    }

    private static List<FieldError> spec(JsonNode spec) {
        List<FieldError> errors = new ArrayList<>();
        String type = spec.path("type").asString("");
        JsonNode ports = spec.path("ports");
        boolean headless = headless(spec);
        if (ports.isEmpty() && !headless && !type.equals("ExternalName")) {
            errors.add(FieldError.required("spec.ports", ""));
        }
        switch (type) {
            case "LoadBalancer", "NodePort" -> {
                if (headless) {
                    errors.add(FieldError.invalid(
                            "spec.clusterIPs[0]", "\"None\"", "may not be set to 'None' for " + type + " services"));
                }
            }
            case "ExternalName" -> {
                for (String field : List.of("clusterIPs", "ipFamilies")) {
                    if (!spec.path(field).isEmpty()) {
                        errors.add(FieldError.forbidden("spec." + field, "may not be set for ExternalName services"));
                    }
                }
                if (spec.hasNonNull("ipFamilyPolicy")) {
                    errors.add(FieldError.forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"));
                }
                String cname = spec.path("externalName").asString("").replaceAll("\\.$", "");
                errors.addAll(
                        cname.isEmpty()
                                ? List.of(FieldError.required("spec.externalName", ""))
                                : Names.DNS1123_SUBDOMAIN.check("spec.externalName", cname));
            }
            default -> {}
        }
        errors.addAll(ports(ports, type));
        String affinity = spec.path("sessionAffinity").asString("");
        if (affinity.isEmpty()) {
            errors.add(FieldError.required("spec.sessionAffinity", ""));
        } else if (!AFFINITIES.contains(affinity)) {
            errors.add(FieldError.notSupported("spec.sessionAffinity", FieldError.quote(affinity), AFFINITIES));
        }
        errors.addAll(clusterIps(spec, type));
        JsonNode externalIps = spec.path("externalIPs");
        for (int i = 0; i < externalIps.size(); i++) {
            errors.addAll(ip("spec.externalIPs[" + i + "]", externalIps.get(i).asString("")));
        }
        if (type.isEmpty()) {
            errors.add(FieldError.required("spec.type", ""));
        } else if (!TYPES.contains(type)) {
            errors.add(FieldError.notSupported("spec.type", FieldError.quote(type), TYPES));
        }
        boolean lb = type.equals("LoadBalancer");
        if (!spec.path("loadBalancerSourceRanges").isEmpty() && !lb) {
            errors.add(FieldError.forbidden(
                    "spec.LoadBalancerSourceRanges", "may only be used when `type` is 'LoadBalancer'"));
        }
        if (spec.hasNonNull("allocateLoadBalancerNodePorts") && !lb) {
            errors.add(FieldError.forbidden(
                    "spec.allocateLoadBalancerNodePorts", "may only be used when `type` is 'LoadBalancer'"));
        }
        if (spec.hasNonNull("loadBalancerClass")) {
            errors.addAll(
                    lb
                            ? Names.qualifiedName(
                                    "spec.loadBalancerClass",
                                    spec.get("loadBalancerClass").asString(""))
                            : List.of(FieldError.forbidden(
                                    "spec.loadBalancerClass", "may only be used when `type` is 'LoadBalancer'")));
        }
        errors.addAll(trafficPolicies(spec, type));
        return errors;
    }

    private static List<FieldError> ports(JsonNode ports, String type) {
        List<FieldError> errors = new ArrayList<>();
        Set<String> names = new HashSet<>();
        Set<String> nodePorts = new HashSet<>();
        Set<String> portKeys = new HashSet<>();
        for (int i = 0; i < ports.size(); i++) {
            JsonNode p = ports.get(i);
            String at = "spec.ports[" + i + "]";
            String name = p.path("name").asString("");
            if (ports.size() > 1 && name.isEmpty()) {
                errors.add(FieldError.required(at + ".name", ""));
            } else if (!name.isEmpty()) {
                errors.addAll(Names.DNS1123_LABEL.check(at + ".name", name));
                if (!names.add(name)) {
                    errors.add(FieldError.duplicate(at + ".name", FieldError.quote(name)));
                }
            }
            int port = p.path("port").asInt(0);
            if (port < 1 || port > 65535) {
                errors.add(FieldError.invalid(
                        at + ".port", String.valueOf(port), "must be between 1 and 65535, inclusive"));
            }
            String protocol = p.path("protocol").asString("");
            if (protocol.isEmpty()) {
                errors.add(FieldError.required(at + ".protocol", ""));
            } else if (!PROTOCOLS.contains(protocol)) {
                errors.add(FieldError.notSupported(at + ".protocol", FieldError.quote(protocol), PROTOCOLS));
            }
            errors.addAll(portNumOrName(at + ".targetPort", p.path("targetPort")));
            if (p.hasNonNull("appProtocol")) {
                errors.addAll(Names.qualifiedName(
                        at + ".appProtocol", p.get("appProtocol").asString("")));
            }
            int nodePort = p.path("nodePort").asInt(0);
            if (type.equals("ClusterIP") && nodePort != 0) {
                errors.add(FieldError.forbidden(at + ".nodePort", "may not be used when `type` is 'ClusterIP'"));
            }
            if (nodePort != 0 && !nodePorts.add(protocol + "/" + nodePort)) {
                errors.add(FieldError.duplicate(at + ".nodePort", String.valueOf(nodePort)));
            }
            if (!portKeys.add(protocol + "/" + port)) {
                errors.add(FieldError.duplicate(
                        at,
                        "core.ServicePort{Name:\"\", Protocol:\"" + protocol
                                + "\", AppProtocol:(*string)(nil), Port:" + port
                                + ", TargetPort:intstr.IntOrString{Type:0, IntVal:0, "
                                + "StrVal:\"\"}, NodePort:0}"));
            }
        }
        return errors;
    }

    /** ValidatePortNumOrName; an absent targetPort was defaulted to the port. */
    private static List<FieldError> portNumOrName(String field, JsonNode value) {
        if (value.isMissingNode() || value.isNull()) {
            return List.of();
        }
        if (value.isNumber()) {
            int n = value.asInt();
            return n >= 1 && n <= 65535
                    ? List.of()
                    : List.of(FieldError.invalid(field, String.valueOf(n), "must be between 1 and 65535, inclusive"));
        }
        String name = value.asString("");
        List<FieldError> errors = new ArrayList<>();
        String q = FieldError.quote(name);
        if (name.isEmpty()) {
            errors.add(FieldError.required(field, ""));
            return errors;
        }
        if (name.length() > 15) {
            errors.add(FieldError.invalid(field, q, "must be no more than 15 characters"));
        }
        if (!IANA_SVC_NAME.matcher(name).matches()) {
            errors.add(FieldError.invalid(
                    field, q, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"));
        }
        if (name.contains("--")) {
            errors.add(FieldError.invalid(field, q, "must not contain consecutive hyphens"));
        }
        if (!LETTER.matcher(name).matches()) {
            errors.add(FieldError.invalid(field, q, "must contain at least one letter (a-z)"));
        }
        return errors;
    }

    private static List<FieldError> clusterIps(JsonNode spec, String type) {
        List<FieldError> errors = new ArrayList<>();
        if (type.equals("ExternalName")) {
            return errors;
        }
        String clusterIp = spec.path("clusterIP").asString("");
        List<String> ips = strings(spec.path("clusterIPs"));
        String ipsValue = FieldError.goValue(spec.path("clusterIPs"));
        if (!clusterIp.isEmpty()) {
            if (ips.isEmpty()) {
                errors.add(FieldError.required("spec.clusterIPs", ""));
            } else if (!ips.getFirst().equals(clusterIp)) {
                errors.add(FieldError.invalid("spec.clusterIPs", ipsValue, "first value must match `clusterIP`"));
            }
        } else if (!ips.isEmpty()) {
            errors.add(
                    FieldError.invalid("spec.clusterIPs", ipsValue, "must be empty when `clusterIP` is not specified"));
        }
        List<String> families = strings(spec.path("ipFamilies"));
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < families.size(); i++) {
            String family = families.get(i);
            if (!FAMILIES.contains(family)) {
                errors.add(FieldError.notSupported("spec.ipFamilies[" + i + "]", FieldError.quote(family), FAMILIES));
            }
            if (!seen.add(family)) {
                errors.add(FieldError.duplicate("spec.ipFamilies[" + i + "]", FieldError.quote(family)));
            }
        }
        String policy = spec.path("ipFamilyPolicy").asString("");
        if (spec.hasNonNull("ipFamilyPolicy") && !FAMILY_POLICIES.contains(policy)) {
            errors.add(FieldError.notSupported("spec.ipFamilyPolicy", FieldError.quote(policy), FAMILY_POLICIES));
        }
        boolean invalidIps = false;
        for (int i = 0; i < ips.size(); i++) {
            if (i == 0 && ips.get(i).equals("None")) {
                if (ips.size() > 1) {
                    invalidIps = true;
                    errors.add(
                            FieldError.invalid("spec.clusterIPs", ipsValue, "'None' must be the first and only value"));
                }
                continue;
            }
            List<FieldError> bad = ip("spec.clusterIPs[" + i + "]", ips.get(i));
            invalidIps |= !bad.isEmpty();
            errors.addAll(bad);
        }
        if (ips.size() > 2) {
            errors.add(FieldError.invalid("spec.clusterIPs", ipsValue, "may only hold up to 2 values"));
        }
        if (invalidIps) {
            return errors;
        }
        if (ips.size() > 1 && isIpv6(ips.get(0)) == isIpv6(ips.get(1))) {
            errors.add(FieldError.invalid(
                    "spec.clusterIPs", ipsValue, "may specify no more than one IP for each IP family"));
        }
        if (!headless(spec)) {
            for (int i = 0; i < Math.min(ips.size(), families.size()); i++) {
                boolean v6 = isIpv6(ips.get(i));
                if (families.get(i).equals("IPv4") && v6 || families.get(i).equals("IPv6") && !v6) {
                    errors.add(FieldError.invalid(
                            "spec.clusterIPs[" + i + "]",
                            FieldError.quote(ips.get(i)),
                            "expected an " + families.get(i) + " value as indicated by `ipFamilies[" + i + "]`"));
                }
            }
        }
        return errors;
    }

    private static List<FieldError> trafficPolicies(JsonNode spec, String type) {
        List<FieldError> errors = new ArrayList<>();
        String external = spec.path("externalTrafficPolicy").asString("");
        boolean externallyAccessible = type.equals("LoadBalancer")
                || type.equals("NodePort")
                || (type.equals("ClusterIP") && !spec.path("externalIPs").isEmpty());
        if (!externallyAccessible) {
            if (!external.isEmpty()) {
                errors.add(FieldError.invalid(
                        "spec.externalTrafficPolicy",
                        FieldError.quote(external),
                        "may only be set for externally-accessible services"));
            }
        } else if (external.isEmpty()) {
            errors.add(FieldError.required("spec.externalTrafficPolicy", ""));
        } else if (!TRAFFIC_POLICIES.contains(external)) {
            errors.add(FieldError.notSupported(
                    "spec.externalTrafficPolicy", FieldError.quote(external), TRAFFIC_POLICIES));
        }
        String internal = spec.path("internalTrafficPolicy").asString("");
        if (spec.hasNonNull("internalTrafficPolicy") && !TRAFFIC_POLICIES.contains(internal)) {
            errors.add(FieldError.notSupported(
                    "spec.internalTrafficPolicy", FieldError.quote(internal), TRAFFIC_POLICIES));
        }
        return errors;
    }

    /** apimachinery's IsValidIP. */
    static List<FieldError> ip(String field, String value) {
        if (isIp(value)) {
            return List.of();
        }
        return List.of(FieldError.invalid(
                field, FieldError.quote(value), "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
    }

    static boolean isIp(String value) {
        if (value.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            for (String part : value.split("\\.")) {
                if (Integer.parseInt(part) > 255) {
                    return false;
                }
            }
            return true;
        }
        if (!value.contains(":") || !value.matches("[0-9A-Fa-f:.]+")) {
            return false;
        }
        try {
            InetAddress.ofLiteral(value);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static boolean isIpv6(String ip) {
        return ip.contains(":");
    }

    private static boolean headless(JsonNode spec) {
        List<String> ips = strings(spec.path("clusterIPs"));
        return ips.size() == 1 && ips.getFirst().equals("None");
    }

    static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.values().forEach(v -> out.add(v.asString("")));
        return out;
    }
}
