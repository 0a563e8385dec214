package io.lbk8s.config;

import io.lbk8s.address.IpRange;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A pool being built. {@code definedAt} names where it is written, for messages about other objects. */
final class PoolDraft {
    final String name;
    final ProblemScope scope;
    final Map<String, String> labels;
    final String definedAt;
    Precedence precedence;
    final List<RangeEntry> ranges = new ArrayList<>();
    final List<SpecialEntry> special = new ArrayList<>();
    boolean autoAssign = true;
    boolean avoidBuggyIPs;
    Optional<ServiceAllocation> serviceAllocation = Optional.empty();

    PoolDraft(String name, ProblemScope scope, Map<String, String> labels, String definedAt) {
        this.name = name;
        this.scope = scope;
        this.labels = labels;
        this.definedAt = definedAt;
    }

    AddressPool toPool() {
        List<IpRange> list = ranges.stream().map(RangeEntry::range).toList();
        return new AddressPool(name, list, autoAssign, avoidBuggyIPs, serviceAllocation, labels, scope.origin);
    }

    record RangeEntry(IpRange range, int index, String path, PoolDraft pool) {}

    /** An entry with special-purpose addresses, and the message saying which. */
    record SpecialEntry(RangeEntry entry, String why) {}

    /**
     * Where a pool stands in definition order: the first of two conflicting pools wins. An object without a creation
     * time is one not created yet (the installer checks a pool before applying it), so it comes after the others.
     */
    record Precedence(boolean newer, String createdAt, int kind, String namespace, String name, int index) {
        Precedence {
            createdAt = createdAt.isEmpty() ? "~" : createdAt; // '~' sorts after every RFC 3339 time
        }

        static final Comparator<Precedence> ORDER = Comparator.comparing(Precedence::newer)
                .thenComparing(Precedence::createdAt)
                .thenComparingInt(Precedence::kind)
                .thenComparing(Precedence::namespace)
                .thenComparing(Precedence::name)
                .thenComparingInt(Precedence::index);
    }
}
