package io.lbk8s.config;

import static io.lbk8s.config.RawValues.bool;
import static io.lbk8s.config.RawValues.describe;
import static io.lbk8s.config.RawValues.integer;
import static io.lbk8s.config.RawValues.path;
import static io.lbk8s.config.RawValues.strings;
import static io.lbk8s.config.RawValues.warnUnknown;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.address.IpRange;
import io.lbk8s.config.PoolDraft.RangeEntry;
import io.lbk8s.config.PoolDraft.SpecialEntry;
import io.lbk8s.text.Quoted;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One pool on its own, from an IPAddressPool or an entry of the ConfigMap: its addresses (each a CIDR, a range or an
 * address; no two overlapping), autoAssign, avoidBuggyIPs and serviceAllocation. What concerns several pools is
 * {@link PoolConflicts}'.
 */
final class PoolParser {
    private PoolParser() {}

    static PoolDraft poolFromResource(ConfigSources.RawObject raw, List<ConfigProblem> problems) {
        ProblemScope scope = ObjectSpec.scope(ConfigOrigin.Kind.IPAddressPool, raw, problems);
        String name = raw.name() == null || raw.name().isEmpty() ? null : raw.name();
        PoolDraft draft = new PoolDraft(name, scope, raw.labels(), scope.origin.toString());
        ObjectSpec.of(
                        scope,
                        raw,
                        Optional.of("expected a map with at least \"addresses\""),
                        ConfigFields.POOL_SPEC_FIELDS)
                .ifPresent(spec -> parsePoolBody(scope, "", spec, draft));
        return draft;
    }

    /** Reads addresses, autoAssign, avoidBuggyIPs and serviceAllocation into the draft; checks the pool on its own. */
    static void parsePoolBody(ProblemScope scope, String base, Map<?, ?> body, PoolDraft draft) {
        String addressesPath = path(base, "addresses");
        Object addresses = body.get("addresses");
        boolean addressesOk = false;
        if (addresses == null) {
            scope.error(addressesPath + " is required: expected a list of CIDRs, ranges or IP addresses");
        } else if (!(addresses instanceof List<?> list)) {
            scope.error(
                    addressesPath + ": expected a list of CIDRs, ranges or IP addresses, got " + describe(addresses));
        } else if (list.isEmpty()) {
            scope.error(addressesPath + ": expected at least one CIDR, range or IP address, got an empty list");
        } else {
            addressesOk = true;
            for (int i = 0; i < list.size(); i++) {
                String entryPath = addressesPath + "[" + i + "]";
                Object item = list.get(i);
                if (!(item instanceof String text)) {
                    scope.error(entryPath + ": expected a string (a CIDR, a range or an IP address), got "
                            + describe(item));
                    addressesOk = false;
                    continue;
                }
                switch (IpRange.parse(text)) {
                    case IpRange.Parsed.Invalid(String reason) -> {
                        scope.error(entryPath + " " + Quoted.of(text) + ": " + reason);
                        addressesOk = false;
                    }
                    case IpRange.Parsed.Valid(IpRange range) -> {
                        if (range.isCidrWithHostBits()) {
                            scope.warn(entryPath + " " + Quoted.of(text) + ": host bits are set; this means "
                                    + range.first() + "/" + prefixOf(text));
                        }
                        RangeEntry entry = new RangeEntry(range, i, entryPath, draft);
                        // judged once the parser knows whether the pool is established (see judgeSpecialPurpose); in
                        // the draft meanwhile, so that an overlap with another pool is reported too
                        SpecialPurposeRanges.problem(range)
                                .ifPresent(why -> draft.special.add(new SpecialEntry(entry, why)));
                        draft.ranges.add(entry);
                    }
                }
            }
        }

        draft.autoAssign = bool(scope, body, path(base, "autoAssign"), "autoAssign", true);
        draft.avoidBuggyIPs = bool(scope, body, path(base, "avoidBuggyIPs"), "avoidBuggyIPs", false);

        Object allocation = body.get("serviceAllocation");
        if (allocation != null) {
            draft.serviceAllocation = parseServiceAllocation(scope, path(base, "serviceAllocation"), allocation);
        }

        checkOverlapsInsidePool(draft);

        if (addressesOk && draft.avoidBuggyIPs && !draft.ranges.isEmpty()) {
            boolean any = false;
            for (RangeEntry entry : draft.ranges) {
                if (hasUsableAddress(entry.range())) {
                    any = true;
                } else {
                    scope.warn(entry.path() + " " + Quoted.of(entry.range().text())
                            + ": avoidBuggyIPs excludes every address of this entry");
                }
            }
            if (!any) {
                scope.error(
                        path(base, "avoidBuggyIPs")
                                + ": excludes every address of the pool (IPv4 addresses ending in .0 or .255), so it has none to assign");
            }
        }
    }

    /**
     * An entry with special-purpose addresses refuses its pool, as any bad entry does. Only in a pool accepted before
     * lbk8s refused them (established, unchanged since) is it dropped with a warning instead, and the pool keeps its
     * other entries: an upgrade never takes away the addresses Services hold in them.
     */
    static void judgeSpecialPurpose(PoolDraft draft, boolean established) {
        for (SpecialEntry special : draft.special) {
            RangeEntry entry = special.entry();
            String where = entry.path() + " " + Quoted.of(entry.range().text()) + ": " + special.why();
            if (!established) {
                draft.scope.error(where);
                continue;
            }
            draft.scope.warn(where + "; this pool was accepted before lbk8s refused such addresses, so lbk8s keeps"
                    + " using it without this entry: remove the entry");
            draft.ranges.remove(entry);
        }
        if (established && !draft.special.isEmpty() && draft.ranges.isEmpty()) {
            draft.scope.error("addresses: every entry holds special-purpose addresses, so the pool has none to give");
        }
    }

    /** Whether the range has an address that avoidBuggyIPs allows (any IPv6, or an IPv4 not ending .0/.255). */
    private static boolean hasUsableAddress(IpRange range) {
        if (range.family() == IpFamily.IPv6 || range.size() >= 3) {
            return true; // any three consecutive IPv4 addresses include one ending in 1..254
        }
        for (long offset = 0; offset < range.size(); offset++) {
            IpAddress ip = range.at(offset).orElseThrow();
            if (ip.lastByte() != 0 && ip.lastByte() != 255) {
                return true;
            }
        }
        return false;
    }

    private static Optional<ServiceAllocation> parseServiceAllocation(ProblemScope scope, String base, Object value) {
        if (!(value instanceof Map<?, ?> map)) {
            scope.error(base + ": expected a map, got " + describe(value));
            return Optional.empty();
        }
        warnUnknown(scope, base, map, ConfigFields.SERVICE_ALLOCATION_FIELDS);
        int priority = 0;
        Object priorityValue = map.get("priority");
        if (priorityValue != null) {
            Integer parsed = integer(scope, path(base, "priority"), priorityValue);
            if (parsed != null) {
                priority = parsed;
            }
        }
        Set<String> namespaces = new LinkedHashSet<>();
        List<String> listed = strings(scope, path(base, "namespaces"), map.get("namespaces"), "namespace names");
        for (int i = 0; i < listed.size(); i++) {
            String namespace = listed.get(i);
            String entryPath = path(base, "namespaces") + "[" + i + "]";
            if (!namespaces.add(namespace)) {
                scope.warn(entryPath + ": namespace " + Quoted.of(namespace) + " is listed twice");
            } else if (!DNS_LABEL.matcher(namespace).matches()) {
                scope.warn(entryPath + ": " + Quoted.of(namespace)
                        + " is not a valid namespace name, so it matches no namespace");
            }
        }
        List<LabelSelector> namespaceSelectors =
                LabelSelectorParser.selectors(scope, path(base, "namespaceSelectors"), map.get("namespaceSelectors"));
        List<LabelSelector> serviceSelectors =
                LabelSelectorParser.selectors(scope, path(base, "serviceSelectors"), map.get("serviceSelectors"));
        return Optional.of(new ServiceAllocation(priority, namespaces, namespaceSelectors, serviceSelectors));
    }

    private static void checkOverlapsInsidePool(PoolDraft draft) {
        List<RangeEntry> entries = new ArrayList<>(draft.ranges);
        entries.sort(RANGE_ORDER);
        RangeEntry reach = null; // the entry reaching highest so far, in the current family
        for (RangeEntry entry : entries) {
            if (reach != null
                    && reach.range().family() == entry.range().family()
                    && reach.range().last().compareTo(entry.range().first()) >= 0) {
                // name the entry listed later as the one that overlaps
                RangeEntry later = entry.index() > reach.index() ? entry : reach;
                RangeEntry earlier = later == entry ? reach : entry;
                draft.scope.error(later.path() + " " + Quoted.of(later.range().text()) + " overlaps " + earlier.path()
                        + " " + Quoted.of(earlier.range().text()) + " of the same pool");
            }
            if (reach == null
                    || reach.range().family() != entry.range().family()
                    || entry.range().last().compareTo(reach.range().last()) > 0) {
                reach = entry;
            }
        }
    }

    private static final Comparator<RangeEntry> RANGE_ORDER = Comparator.comparing(
                    (RangeEntry e) -> e.range().first())
            .thenComparing(e -> e.range().last())
            .thenComparingInt(e -> e.index());

    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    private static String prefixOf(String cidr) {
        return cidr.strip().substring(cidr.strip().indexOf('/') + 1);
    }
}
