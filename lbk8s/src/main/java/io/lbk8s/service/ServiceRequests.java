package io.lbk8s.service;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.text.Quoted;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns a Service into what it asks of the allocator: whether lbk8s serves it at all, and if so which pool, which
 * addresses and which sharing it requests. Contradicting or malformed requests become a sentence, never a guess.
 */
public final class ServiceRequests {

    /** The class lbk8s serves by default besides Services without a class. */
    public static final String DEFAULT_CLASS = "lbk8s.io/l2";

    private ServiceRequests() {}

    /** What the controller should do with a Service. */
    public sealed interface Decision {
        /**
         * Not a LoadBalancer (any more): addresses lbk8s gave it are taken back, and what it wrote is cleared;
         * {@code why} is for logs.
         */
        record NotServed(String why) implements Decision {}

        /**
         * A LoadBalancer of a class another controller serves: lbk8s forgets whatever it held for it and never writes
         * to it, whatever it carries (MetalLB's annotations included), so that two controllers never fight over it.
         */
        record OtherClass(String why) implements Decision {}

        /** A well-formed request, with warnings for the user (deprecated or unknown annotations). */
        record Request(AllocationRequest request, List<Warning> warnings) implements Decision {}

        /** The Service asks for something impossible or malformed; {@code message} goes into an event. */
        record Invalid(String message, List<Warning> warnings) implements Decision {}
    }

    /** Something the user should change on the Service, although lbk8s serves it anyway; {@code reason} names the Event. */
    public record Warning(Reason reason, String message) {
        public enum Reason {
            DeprecatedAnnotation,
            UnknownAnnotation
        }
    }

    /**
     * Which classes are served: with {@code lbClass} empty, Services without a class and those of
     * {@link #DEFAULT_CLASS}; with a class given (the {@code --lb-class} flag), only Services of that class, as
     * MetalLB's flag does.
     */
    public static boolean served(ServiceView service, Optional<String> lbClass) {
        if (!service.isLoadBalancer()) {
            return false;
        }
        Optional<String> own = service.loadBalancerClass().filter(c -> !c.isEmpty());
        return lbClass.map(c -> own.equals(Optional.of(c)))
                .orElseGet(() -> own.isEmpty() || own.get().equals(DEFAULT_CLASS));
    }

    public static Decision decide(ServiceView service, Map<String, String> namespaceLabels, Optional<String> lbClass) {
        if (!service.isLoadBalancer()) {
            return new Decision.NotServed("type is " + service.type() + ", not LoadBalancer");
        }
        if (!served(service, lbClass)) {
            return new Decision.OtherClass("loadBalancerClass "
                    + service.loadBalancerClass().orElse("(none)") + " is not served by this controller");
        }
        List<Warning> warnings = new ArrayList<>();
        List<String> problems = new ArrayList<>();

        Optional<String> pool = single(service, Annotations.POOL, "address pool", warnings, problems);
        Optional<String> sharingKey = single(service, Annotations.SHARED, "sharing key", warnings, problems);
        List<IpAddress> ips = requestedIps(service, warnings, problems);
        List<IpFamily> families = families(service, problems);
        FamilyPolicy policy = familyPolicy(service, problems);
        warnings.addAll(AnnotationHints.unknown(service.annotations()));

        if (!problems.isEmpty()) {
            return new Decision.Invalid(String.join("; ", problems), List.copyOf(warnings));
        }
        boolean local = service.externalTrafficPolicy()
                .map(p -> p.equalsIgnoreCase("Local"))
                .orElse(false);
        var request = new AllocationRequest(
                service.key(),
                service.labels(),
                namespaceLabels,
                families,
                policy,
                pool,
                ips,
                sharingKey,
                service.ports(),
                local,
                service.selector());
        return new Decision.Request(request, List.copyOf(warnings));
    }

    /**
     * What a Service whose request is invalid still asks for once its malformed parts are set aside: the addresses
     * it already shows stay reserved for it (nothing assigned is lost), without honouring what cannot be parsed.
     */
    public static Optional<AllocationRequest> withoutItsRequests(
            ServiceView service, Map<String, String> namespaceLabels, Optional<String> lbClass) {
        Map<String, String> annotations = new java.util.HashMap<>(service.annotations());
        for (List<String> names : List.of(Annotations.POOL, Annotations.IPS, Annotations.SHARED)) {
            names.forEach(annotations::remove);
        }
        List<String> families = service.ipFamilies().stream()
                .filter(f -> f.equals("IPv4") || f.equals("IPv6"))
                .toList();
        Optional<String> policy = service.ipFamilyPolicy()
                .filter(p -> Set.of("SingleStack", "PreferDualStack", "RequireDualStack")
                        .contains(p));
        var plain = new ServiceView(
                service.key(),
                service.type(),
                service.loadBalancerClass(),
                annotations,
                service.labels(),
                Optional.empty(),
                families,
                policy,
                service.ports(),
                service.externalTrafficPolicy(),
                service.selector(),
                service.statusIps());
        return decide(plain, namespaceLabels, lbClass) instanceof Decision.Request(var request, var _)
                ? Optional.of(request)
                : Optional.empty();
    }

    /** One value given under several annotation names must agree everywhere. */
    private static Optional<String> single(
            ServiceView service, List<String> names, String what, List<Warning> warnings, List<String> problems) {
        Map<String, String> given = new LinkedHashMap<>();
        for (String name : names) {
            String value = service.annotations().get(name);
            if (value == null) {
                continue;
            }
            warnDeprecated(name, warnings);
            if (value.isBlank()) {
                problems.add("annotation " + name + " is empty");
                continue;
            }
            given.put(name, value.strip());
        }
        if (Set.copyOf(given.values()).size() > 1) {
            problems.add("annotations ask for different " + what + "s: " + describe(given));
            return Optional.empty();
        }
        return given.values().stream().findFirst();
    }

    private static List<IpAddress> requestedIps(ServiceView service, List<Warning> warnings, List<String> problems) {
        Map<String, List<IpAddress>> given = new LinkedHashMap<>();
        Map<String, String> texts = new LinkedHashMap<>();
        for (String name : Annotations.IPS) {
            String value = service.annotations().get(name);
            if (value == null) {
                continue;
            }
            warnDeprecated(name, warnings);
            parseIpList(name, value, problems).ifPresent(list -> {
                given.put(name, list);
                texts.put(name, value.strip());
            });
        }
        service.loadBalancerIP()
                .filter(s -> !s.isBlank())
                .ifPresent(value -> parseIpList("spec.loadBalancerIP", value, problems)
                        .ifPresent(list -> {
                            given.put("spec.loadBalancerIP", list);
                            texts.put("spec.loadBalancerIP", value.strip());
                        }));
        if (given.values().stream().map(Set::copyOf).distinct().count() > 1) {
            problems.add("requested addresses disagree: " + describe(texts));
            return List.of();
        }
        List<IpAddress> ips = given.values().stream().findFirst().orElse(List.of());
        if (ips.stream().map(IpAddress::family).distinct().count() < ips.size()) {
            problems.add("at most one address per IP family may be requested, got " + ips.size() + ": "
                    + Quoted.of(texts.values().iterator().next()));
            return List.of();
        }
        return ips;
    }

    private static Optional<List<IpAddress>> parseIpList(String source, String value, List<String> problems) {
        List<IpAddress> ips = new ArrayList<>();
        for (String part : value.split(",", -1)) {
            String text = part.strip();
            Optional<IpAddress> ip = IpAddress.parse(text);
            if (ip.isEmpty()) {
                problems.add(source + ": " + Quoted.of(text) + " is not an IP address");
                return Optional.empty();
            }
            if (ips.contains(ip.get())) {
                problems.add(source + ": " + text + " is listed twice");
                return Optional.empty();
            }
            ips.add(ip.get());
        }
        if (ips.size() > 2) {
            problems.add(source + ": at most two addresses (one IPv4, one IPv6) may be requested, got " + ips.size());
            return Optional.empty();
        }
        return Optional.of(List.copyOf(ips));
    }

    private static List<IpFamily> families(ServiceView service, List<String> problems) {
        List<IpFamily> families = new ArrayList<>();
        for (String name : service.ipFamilies()) {
            switch (name) {
                case "IPv4" -> families.add(IpFamily.IPv4);
                case "IPv6" -> families.add(IpFamily.IPv6);
                default -> problems.add("spec.ipFamilies: " + Quoted.of(name) + " is neither IPv4 nor IPv6");
            }
        }
        return families;
    }

    private static FamilyPolicy familyPolicy(ServiceView service, List<String> problems) {
        String policy = service.ipFamilyPolicy().orElse("SingleStack");
        return switch (policy) {
            case "SingleStack" -> FamilyPolicy.SingleStack;
            case "PreferDualStack" -> FamilyPolicy.PreferDualStack;
            case "RequireDualStack" -> FamilyPolicy.RequireDualStack;
            default -> {
                problems.add("spec.ipFamilyPolicy: " + Quoted.of(policy)
                        + " is not SingleStack, PreferDualStack or RequireDualStack");
                yield FamilyPolicy.SingleStack;
            }
        };
    }

    private static void warnDeprecated(String name, List<Warning> warnings) {
        if (Annotations.deprecated(name)) {
            warnings.add(new Warning(
                    Warning.Reason.DeprecatedAnnotation,
                    "annotation " + name + " is deprecated; use " + Annotations.replacementOf(name)));
        }
    }

    private static String describe(Map<String, String> given) {
        List<String> parts = new ArrayList<>();
        given.forEach((name, value) -> parts.add(name + "=" + Quoted.of(value)));
        return String.join(", ", parts);
    }
}
