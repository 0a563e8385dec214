package io.lbk8s.config;

import static io.lbk8s.config.RawValues.strings;
import static io.lbk8s.config.RawValues.whole;

import io.lbk8s.address.IpFamily;
import io.lbk8s.address.IpRange;
import io.lbk8s.bgp.Community;
import io.lbk8s.text.Quoted;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One BGPAdvertisement: the pools it advertises, from which nodes, to which peers, with which prefix length, local
 * preference and communities (aliases resolved).
 */
final class BgpAdvertisementParser {
    private BgpAdvertisementParser() {}

    /** What an advertisement is judged against: the rest of the configuration. */
    record Context(
            Set<String> poolNames,
            List<AddressPool> pools,
            Set<String> peerNames,
            List<BgpPeer> peers,
            Map<String, Community> aliases) {}

    static Optional<BgpAdvertisement> parse(
            ConfigSources.RawObject raw, Context context, List<ConfigProblem> problems) {
        ProblemScope scope = ObjectSpec.scope(ConfigOrigin.Kind.BGPAdvertisement, raw, problems);
        Optional<Map<?, ?>> read =
                ObjectSpec.of(scope, raw, Optional.empty(), ConfigFields.BGP_ADVERTISEMENT_KNOWN_FIELDS);
        if (read.isEmpty()) {
            return Optional.empty();
        }
        Map<?, ?> spec = read.get();

        List<String> pools = strings(scope, "ipAddressPools", spec.get("ipAddressPools"), "pool names");
        warnNames(scope, "ipAddressPools", pools, "pool", context.poolNames(), "does not exist");
        List<LabelSelector> poolSelectors =
                LabelSelectorParser.selectors(scope, "ipAddressPoolSelectors", spec.get("ipAddressPoolSelectors"));
        List<LabelSelector> nodeSelectors =
                LabelSelectorParser.selectors(scope, "nodeSelectors", spec.get("nodeSelectors"));
        List<String> peers = strings(scope, "peers", spec.get("peers"), "BGPPeer names");
        warnNames(
                scope,
                "peers",
                peers,
                "BGPPeer",
                context.peerNames(),
                "does not exist, so nothing is advertised to it until it does");
        int length = aggregation(scope, spec, "aggregationLength", 1, 32);
        int lengthV6 = aggregation(scope, spec, "aggregationLengthV6", 0, 128);
        OptionalLong localPref = OptionalLong.empty();
        if (spec.get("localPref") != null) {
            Long value = whole(
                    scope,
                    "localPref",
                    spec.get("localPref"),
                    0,
                    BgpPeerParser.MAX_ASN,
                    "a local preference is 0-4294967295");
            localPref = value == null ? localPref : OptionalLong.of(value);
        }
        List<Community> communities = communities(scope, spec.get("communities"), context.aliases());
        if (spec.get("serviceSelectors") instanceof List<?> list && !list.isEmpty()) {
            scope.error("serviceSelectors is not supported by lbk8s: remove it (ignoring it would advertise every"
                    + " Service of the selected pools)");
        }
        if (scope.failed) {
            return Optional.empty();
        }
        BgpAdvertisement advertisement = new BgpAdvertisement(
                raw.name(),
                pools,
                poolSelectors,
                nodeSelectors,
                peers,
                length,
                lengthV6,
                localPref,
                communities,
                scope.origin);
        for (AddressPool pool : context.pools()) {
            if (advertisement.selects(pool)) {
                checkAggregation(scope, advertisement, pool);
            }
        }
        LocalPrefConflicts.unsent(advertisement, context.peers()).ifPresent(scope::warn);
        return scope.failed ? Optional.empty() : Optional.of(advertisement);
    }

    private static void warnNames(
            ProblemScope scope, String path, List<String> names, String kind, Set<String> known, String missing) {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            String entryPath = path + "[" + i + "]";
            if (!seen.add(name)) {
                scope.warn(entryPath + ": " + kind + " " + Quoted.of(name) + " is listed twice");
            } else if (!known.contains(name)) {
                scope.warn(entryPath + ": " + kind + " " + Quoted.of(name) + " " + missing);
            }
        }
    }

    private static int aggregation(ProblemScope scope, Map<?, ?> spec, String field, int min, int max) {
        Object value = spec.get(field);
        if (value == null) {
            return max; // one route per address
        }
        Long length = whole(scope, field, value, min, max, "a prefix length here is " + min + "-" + max);
        return length == null ? max : length.intValue();
    }

    private static List<Community> communities(ProblemScope scope, Object value, Map<String, Community> aliases) {
        List<String> texts = strings(scope, "communities", value, "communities or Community aliases");
        List<Community> communities = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            String text = texts.get(i);
            String path = "communities[" + i + "]";
            // an alias wins over a value of the same spelling, as in MetalLB
            Community community = aliases.get(text);
            if (community == null) {
                switch (CommunityValues.parse(text)) {
                    case CommunityValues.Parsed.Valid(Community valid) -> community = valid;
                    case CommunityValues.Parsed.Invalid(String reason, boolean malformed) -> {
                        scope.error(path + " " + Quoted.of(text) + ": "
                                + (malformed
                                        ? "neither a community nor an alias a Community object defines: "
                                                + CommunityValues.FORMS
                                        : reason));
                        continue;
                    }
                }
            }
            if (communities.contains(community)) {
                scope.warn(path + " " + Quoted.of(text) + ": community " + community + " is listed twice");
                continue;
            }
            communities.add(community);
        }
        return communities;
    }

    /**
     * MetalLB's rule: the aggregation length must not be shorter than any block of the pool (a range counts as the
     * CIDR blocks that cover it), or the aggregate route would take in addresses that are not the pool's.
     */
    private static void checkAggregation(ProblemScope scope, BgpAdvertisement advertisement, AddressPool pool) {
        for (IpRange range : pool.ranges()) {
            boolean v4 = range.family() == IpFamily.IPv4;
            int length = v4 ? advertisement.aggregationLength() : advertisement.aggregationLengthV6();
            int widest = CidrBlocks.widestPrefix(range);
            if (length < widest) {
                scope.error((v4 ? "aggregationLength" : "aggregationLengthV6") + ": /" + length
                        + " is shorter than /" + widest + " of pool " + Quoted.of(pool.name()) + " "
                        + Quoted.of(range.text()) + ": the aggregate route would cover addresses outside the pool;"
                        + " use " + widest + " or more");
            }
        }
    }
}
