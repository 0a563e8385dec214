package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.address.IpRange;
import io.lbk8s.config.AddressPool;
import io.lbk8s.config.Config;
import io.lbk8s.config.ConfigOrigin;
import io.lbk8s.config.LabelSelector;
import io.lbk8s.config.ServiceAllocation;
import io.lbk8s.service.AllocationRequest;
import io.lbk8s.service.FamilyPolicy;
import io.lbk8s.service.ServiceKey;
import io.lbk8s.service.ServicePort;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Small builders for pools, configs and requests, so test tables read like the YAML a user writes. */
final class Fixtures {

    private Fixtures() {}

    static IpAddress ip(String text) {
        return IpAddress.parse(text).orElseThrow(() -> new IllegalArgumentException(text));
    }

    static List<IpAddress> ips(String... texts) {
        return Arrays.stream(texts).map(Fixtures::ip).toList();
    }

    static Map<String, String> kv(String... pairs) {
        Map<String, String> map = new HashMap<>();
        for (String pair : pairs) {
            String[] parts = pair.split("=", 2);
            map.put(parts[0], parts[1]);
        }
        return map;
    }

    static ServiceKey key(String nsName) {
        String[] parts = nsName.split("/", 2);
        return new ServiceKey(parts[0], parts[1]);
    }

    static Pool pool(String name, String... ranges) {
        return new Pool(name, ranges);
    }

    static Config config(Pool... pools) {
        List<AddressPool> built = new ArrayList<>();
        for (Pool p : pools) {
            built.add(p.build());
        }
        built.sort(Comparator.comparing(AddressPool::name));
        return new Config(built, List.of());
    }

    static Svc svc(String nsName) {
        return new Svc(key(nsName));
    }

    /** An IPAddressPool under construction. */
    static final class Pool {
        private final String name;
        private final List<IpRange> ranges = new ArrayList<>();
        private boolean autoAssign = true;
        private boolean avoidBuggy;
        private boolean allocation;
        private int priority;
        private final Set<String> namespaces = new HashSet<>();
        private final List<LabelSelector> namespaceSelectors = new ArrayList<>();
        private final List<LabelSelector> serviceSelectors = new ArrayList<>();

        Pool(String name, String... ranges) {
            this.name = name;
            for (String r : ranges) {
                this.ranges.add(
                        switch (IpRange.parse(r)) {
                            case IpRange.Parsed.Valid v -> v.range();
                            case IpRange.Parsed.Invalid i -> throw new IllegalArgumentException(i.reason());
                        });
            }
        }

        Pool manual() {
            autoAssign = false;
            return this;
        }

        Pool avoidBuggyIPs() {
            avoidBuggy = true;
            return this;
        }

        /** A serviceAllocation with only a priority (0 = unset); the other methods add to it. */
        Pool priority(int value) {
            allocation = true;
            priority = value;
            return this;
        }

        Pool namespaces(String... names) {
            allocation = true;
            namespaces.addAll(List.of(names));
            return this;
        }

        Pool namespaceSelector(String... labels) {
            allocation = true;
            namespaceSelectors.add(new LabelSelector(kv(labels), List.of()));
            return this;
        }

        Pool serviceSelector(String... labels) {
            allocation = true;
            serviceSelectors.add(new LabelSelector(kv(labels), List.of()));
            return this;
        }

        AddressPool build() {
            Optional<ServiceAllocation> sa = allocation
                    ? Optional.of(new ServiceAllocation(priority, namespaces, namespaceSelectors, serviceSelectors))
                    : Optional.empty();
            return new AddressPool(
                    name,
                    ranges,
                    autoAssign,
                    avoidBuggy,
                    sa,
                    Map.of(),
                    new ConfigOrigin(ConfigOrigin.Kind.IPAddressPool, "metallb-system", name));
        }
    }

    /** A Service's allocation request under construction; defaults to SingleStack IPv4, port 80/TCP, Cluster. */
    static final class Svc {
        private final ServiceKey key;
        private Map<String, String> labels = Map.of();
        private Map<String, String> namespaceLabels = Map.of();
        private List<IpFamily> families = List.of(IpFamily.IPv4);
        private FamilyPolicy policy = FamilyPolicy.SingleStack;
        private Optional<String> pool = Optional.empty();
        private List<IpAddress> requested = List.of();
        private Optional<String> sharingKey = Optional.empty();
        private List<ServicePort> ports = List.of(new ServicePort("TCP", 80));
        private boolean local;
        private Map<String, String> selector = Map.of("app", "x");

        Svc(ServiceKey key) {
            this.key = key;
        }

        Svc labels(String... pairs) {
            labels = kv(pairs);
            return this;
        }

        Svc namespaceLabels(String... pairs) {
            namespaceLabels = kv(pairs);
            return this;
        }

        Svc families(IpFamily... values) {
            families = List.of(values);
            return this;
        }

        Svc policy(FamilyPolicy value) {
            policy = value;
            return this;
        }

        Svc preferDual() {
            return policy(FamilyPolicy.PreferDualStack).families(IpFamily.IPv4, IpFamily.IPv6);
        }

        Svc requireDual() {
            return policy(FamilyPolicy.RequireDualStack).families(IpFamily.IPv4, IpFamily.IPv6);
        }

        Svc v6() {
            return families(IpFamily.IPv6);
        }

        Svc pool(String name) {
            pool = Optional.of(name);
            return this;
        }

        Svc ips(String... texts) {
            requested = Fixtures.ips(texts);
            return this;
        }

        Svc sharing(String value) {
            sharingKey = Optional.of(value);
            return this;
        }

        /** Ports as "80/TCP". */
        Svc ports(String... specs) {
            List<ServicePort> list = new ArrayList<>();
            for (String spec : specs) {
                String[] parts = spec.split("/");
                list.add(new ServicePort(parts[1], Integer.parseInt(parts[0])));
            }
            ports = list;
            return this;
        }

        Svc local(String... selectorPairs) {
            local = true;
            if (selectorPairs.length > 0) {
                selector = kv(selectorPairs);
            }
            return this;
        }

        AllocationRequest build() {
            return new AllocationRequest(
                    key,
                    labels,
                    namespaceLabels,
                    families,
                    policy,
                    pool,
                    requested,
                    sharingKey,
                    ports,
                    local,
                    selector);
        }

        @Override
        public String toString() {
            return key.toString();
        }
    }
}
