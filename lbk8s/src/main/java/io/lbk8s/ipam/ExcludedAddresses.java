package io.lbk8s.ipam;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpRange;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Addresses the allocator never hands out, each with why, in words a user understands ("InternalIP of node
 * worker-1"). Each source of unusable addresses builds its own (the nodes' addresses: {@link Exclusions}; others,
 * such as addresses another host answers for, with their own reasons) and {@link #plus} joins them; the allocator
 * takes the union ({@link Allocator#exclude}). Immutable and pure.
 */
public final class ExcludedAddresses {
    public static final ExcludedAddresses NONE = new ExcludedAddresses(new TreeMap<>());

    /** At most this many addresses are listed in one message; the rest are counted. */
    public static final int LISTED = 10;

    private final NavigableMap<IpAddress, Set<String>> reasons;

    private ExcludedAddresses(NavigableMap<IpAddress, Set<String>> reasons) {
        this.reasons = reasons;
    }

    public static Builder builder() {
        return new Builder();
    }

    public static final class Builder {
        private final NavigableMap<IpAddress, Set<String>> reasons = new TreeMap<>();

        public Builder add(IpAddress address, String reason) {
            reasons.computeIfAbsent(address, _ -> new TreeSet<>()).add(reason);
            return this;
        }

        public ExcludedAddresses build() {
            NavigableMap<IpAddress, Set<String>> copy = new TreeMap<>();
            reasons.forEach((ip, why) -> copy.put(ip, Collections.unmodifiableSet(new TreeSet<>(why))));
            return new ExcludedAddresses(Collections.unmodifiableNavigableMap(copy));
        }
    }

    /** Both sets of addresses; an address in both has the reasons of both. */
    public ExcludedAddresses plus(ExcludedAddresses other) {
        Builder builder = builder();
        reasons.forEach((ip, why) -> why.forEach(w -> builder.add(ip, w)));
        other.reasons.forEach((ip, why) -> why.forEach(w -> builder.add(ip, w)));
        return builder.build();
    }

    public boolean contains(IpAddress ip) {
        return reasons.containsKey(ip);
    }

    /** Why the address is excluded ("InternalIP of node a; an endpoint of the Kubernetes API server"), if it is. */
    public Optional<String> why(IpAddress ip) {
        Set<String> why = reasons.get(ip);
        return why == null ? Optional.empty() : Optional.of(String.join("; ", why));
    }

    /** Every excluded address with why, in address order. */
    public NavigableMap<IpAddress, String> all() {
        NavigableMap<IpAddress, String> out = new TreeMap<>();
        reasons.forEach((ip, why) -> out.put(ip, String.join("; ", why)));
        return out;
    }

    /** The excluded addresses inside the range, with why. */
    public NavigableMap<IpAddress, String> in(IpRange range) {
        NavigableMap<IpAddress, String> out = new TreeMap<>();
        reasons.subMap(range.first(), true, range.last(), true)
                .forEach((ip, why) -> out.put(ip, String.join("; ", why)));
        return out;
    }

    public boolean isEmpty() {
        return reasons.isEmpty();
    }

    public int size() {
        return reasons.size();
    }

    /**
     * "172.18.0.1 (gateway of node a), 172.18.0.2 (InternalIP of node a)": the first {@link #LISTED} addresses, then
     * "and N more", so that a message stays short however many there are.
     */
    public static String describe(Map<?, String> excluded) {
        List<String> items = new ArrayList<>();
        for (Map.Entry<?, String> e : excluded.entrySet()) {
            if (items.size() == LISTED) {
                break;
            }
            items.add(e.getKey() + " (" + e.getValue() + ")");
        }
        String listed = String.join(", ", items);
        return excluded.size() > LISTED ? listed + " and " + (excluded.size() - LISTED) + " more" : listed;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ExcludedAddresses other && reasons.equals(other.reasons);
    }

    @Override
    public int hashCode() {
        return reasons.hashCode();
    }

    @Override
    public String toString() {
        return describe(all());
    }
}
