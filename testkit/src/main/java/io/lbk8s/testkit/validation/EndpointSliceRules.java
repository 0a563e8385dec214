package io.lbk8s.testkit.validation;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/** kube-apiserver's EndpointSlice validation (pkg/apis/discovery/validation), after its defaults. */
public final class EndpointSliceRules {

    private static final List<String> ADDRESS_TYPES = List.of("FQDN", "IPv4", "IPv6");
    private static final List<String> PROTOCOLS = List.of("SCTP", "TCP", "UDP");

    private EndpointSliceRules() {}

    public static List<FieldError> validateCreate(JsonNode slice) {
        List<FieldError> errors = new ArrayList<>(ObjectMetaRules.validate(slice, Names.DNS1123_SUBDOMAIN));
        String addressType = slice.path("addressType").asString("");
        if (addressType.isEmpty()) {
            errors.add(FieldError.required("addressType", ""));
        } else if (!ADDRESS_TYPES.contains(addressType)) {
            errors.add(FieldError.notSupported("addressType", FieldError.quote(addressType), ADDRESS_TYPES));
        }
        JsonNode endpoints = slice.path("endpoints");
        for (int i = 0; i < endpoints.size(); i++) {
            errors.addAll(endpoint("endpoints[" + i + "]", endpoints.get(i), addressType));
        }
        JsonNode ports = slice.path("ports");
        Set<String> names = new HashSet<>();
        for (int i = 0; i < ports.size(); i++) {
            JsonNode p = ports.get(i);
            String at = "ports[" + i + "]";
            String name = p.path("name").asString("");
            if (!name.isEmpty()) {
                errors.addAll(Names.DNS1123_LABEL.check(at + ".name", name));
            }
            if (!names.add(name)) {
                errors.add(FieldError.duplicate(at + ".name", FieldError.quote(name)));
            }
            String protocol = p.path("protocol").asString("");
            if (protocol.isEmpty()) {
                errors.add(FieldError.required(at + ".protocol", ""));
            } else if (!PROTOCOLS.contains(protocol)) {
                errors.add(FieldError.notSupported(at + ".protocol", FieldError.quote(protocol), PROTOCOLS));
            }
            if (p.hasNonNull("port")
                    && (p.get("port").asInt() < 1 || p.get("port").asInt() > 65535)) {
                errors.add(FieldError.invalid(
                        at + ".port", p.get("port").toString(), "must be between 1 and 65535, inclusive"));
            }
            if (p.hasNonNull("appProtocol")) {
                errors.addAll(Names.qualifiedName(
                        at + ".appProtocol", p.get("appProtocol").asString("")));
            }
        }
        return errors;
    }

    public static List<FieldError> validateUpdate(JsonNode slice, JsonNode old) {
        List<FieldError> errors = new ArrayList<>(validateCreate(slice));
        if (!slice.path("addressType").equals(old.path("addressType"))) {
            errors.add(FieldError.invalid(
                    "addressType", FieldError.goValue(slice.get("addressType")), "field is immutable"));
        }
        return errors;
    }

    private static List<FieldError> endpoint(String at, JsonNode endpoint, String addressType) {
        List<FieldError> errors = new ArrayList<>();
        JsonNode addresses = endpoint.path("addresses");
        if (addresses.isEmpty()) {
            errors.add(FieldError.required(at + ".addresses", "must contain at least 1 address"));
        } else if (addresses.size() > 100) {
            errors.add(
                    new FieldError(FieldError.Type.TOO_MANY, at + ".addresses", null, "must have at most 100 items"));
        }
        for (int i = 0; i < addresses.size(); i++) {
            String address = addresses.get(i).asString("");
            String field = at + ".addresses[" + i + "]";
            switch (addressType) {
                case "IPv4", "IPv6" -> {
                    boolean v6 = address.contains(":");
                    if (!ServiceRules.isIp(address) || v6 != addressType.equals("IPv6")) {
                        errors.add(FieldError.invalid(
                                field, FieldError.quote(address), "must be a valid " + addressType + " address"));
                    }
                }
                case "FQDN" -> errors.addAll(Names.DNS1123_SUBDOMAIN.check(field, address));
                default -> {}
            }
        }
        if (endpoint.hasNonNull("nodeName")) {
            errors.addAll(Names.DNS1123_SUBDOMAIN.check(
                    at + ".nodeName", endpoint.get("nodeName").asString("")));
        }
        if (endpoint.hasNonNull("hostname")) {
            errors.addAll(Names.DNS1123_LABEL.check(
                    at + ".hostname", endpoint.get("hostname").asString("")));
        }
        return errors;
    }
}
