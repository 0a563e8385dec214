package io.lbk8s.config;

import static io.lbk8s.config.RawValues.bool;
import static io.lbk8s.config.RawValues.describe;
import static io.lbk8s.config.RawValues.string;
import static io.lbk8s.config.RawValues.warnUnknown;
import static io.lbk8s.config.RawValues.whole;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.PeerSpec.DynamicAsn;
import io.lbk8s.text.Quoted;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One BGPPeer ({@code metallb.io/v1beta2}): MetalLB's fields, defaults and rules, and a sentence for each FRR-mode
 * feature lbk8s does not have. What concerns several peers is {@link ConfigParser}'s.
 */
final class BgpPeerParser {
    private BgpPeerParser() {}

    static final long MAX_ASN = 0xFFFF_FFFFL;
    private static final String ASN_RANGE = "an AS number is 1-4294967295";
    /** The longest key Linux's TCP_MD5SIG takes (TCP_MD5SIG_MAXKEYLEN). */
    static final int MAX_PASSWORD_BYTES = 80;

    static Optional<BgpPeer> parse(ConfigSources.RawObject raw, Set<String> bfdProfiles, List<ConfigProblem> problems) {
        ProblemScope scope = ObjectSpec.scope(ConfigOrigin.Kind.BGPPeer, raw, problems);
        Optional<Map<?, ?>> read = ObjectSpec.of(
                scope,
                raw,
                Optional.of("expected a map with at least myASN, peerASN (or dynamicASN) and peerAddress"),
                ConfigFields.BGP_PEER_KNOWN_FIELDS);
        if (read.isEmpty()) {
            return Optional.empty();
        }
        Map<?, ?> spec = read.get();
        refuseFrrOnly(scope, spec);

        OptionalLong myAsn = asn(scope, spec, "myASN", "the AS number of the cluster's side of the session");
        Asns asns = peerAsn(scope, spec);
        Optional<IpAddress> peerAddress = address(scope, spec, "peerAddress");
        if (spec.get("peerAddress") == null && spec.get("interface") == null) {
            scope.error("peerAddress is required: the IP address of the router to peer with");
        }
        Optional<IpAddress> sourceAddress = address(scope, spec, "sourceAddress");
        if (peerAddress.isPresent()
                && sourceAddress.isPresent()
                && peerAddress.get().family() != sourceAddress.get().family()) {
            scope.error("sourceAddress: " + sourceAddress.get() + " is "
                    + sourceAddress.get().family()
                    + " but peerAddress " + peerAddress.get() + " is "
                    + peerAddress.get().family()
                    + ": a session has one address family");
        }
        Optional<IpAddress> routerId = address(scope, spec, "routerID");
        if (routerId.isPresent() && routerId.get().family() != IpFamily.IPv4) {
            scope.error("routerID: " + routerId.get()
                    + " is not an IPv4 address: a BGP identifier is 4 bytes, written as an IPv4 address");
        }
        int port = PeerSpec.PORT;
        if (spec.get("peerPort") != null) {
            Long read179 = whole(scope, "peerPort", spec.get("peerPort"), 1, 65_535, "a port is 1-65535");
            port = read179 == null ? port : read179.intValue();
        }
        BgpTimers timers = BgpTimers.read(scope, spec);
        List<LabelSelector> nodeSelectors =
                LabelSelectorParser.selectors(scope, "nodeSelectors", spec.get("nodeSelectors"));
        Optional<String> password = password(scope, spec);
        Optional<String> passwordSecret = passwordSecret(scope, spec, raw.namespace());
        if (password.isPresent() && passwordSecret.isPresent()) {
            scope.error("password and passwordSecret are both set: give the password in one place only");
        }
        Optional<String> bfdProfile = Optional.ofNullable(string(scope, spec, "bfdProfile", "bfdProfile"))
                .filter(name -> !name.isEmpty());
        if (bfdProfile.isPresent() && !bfdProfiles.contains(bfdProfile.get())) {
            scope.error("bfdProfile: BFDProfile " + Quoted.of(bfdProfile.get()) + " does not exist");
        }
        boolean ebgpMultiHop = bool(scope, spec, "ebgpMultiHop", "ebgpMultiHop", false);
        if (ebgpMultiHop && myAsn.isPresent() && asns.isInternal(myAsn.getAsLong())) {
            scope.error("ebgpMultiHop is for eBGP peers, but this peer is in the cluster's own AS (iBGP): remove it");
        }
        boolean gracefulRestart = bool(scope, spec, "enableGracefulRestart", "enableGracefulRestart", false);
        boolean dualStack = bool(scope, spec, "dualStackAddressFamily", "dualStackAddressFamily", false);
        if (bool(scope, spec, "disableMP", "disableMP", false)) {
            scope.warn("disableMP is deprecated and has no effect in lbk8s: a session carries only its own address"
                    + " family unless dualStackAddressFamily is set");
        }
        if (scope.failed || myAsn.isEmpty() || peerAddress.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new BgpPeer(
                raw.name(),
                myAsn.getAsLong(),
                asns.peerAsn(),
                asns.dynamicAsn(),
                peerAddress.get(),
                port,
                sourceAddress,
                routerId,
                timers.holdTime(),
                timers.keepaliveTime(),
                timers.connectTime(),
                nodeSelectors,
                password,
                passwordSecret,
                bfdProfile,
                ebgpMultiHop,
                gracefulRestart,
                dualStack,
                scope.origin));
    }

    /** The peer's AS as given: a number, or which relation to the cluster's AS the peer's OPEN must show. */
    private record Asns(OptionalLong peerAsn, Optional<DynamicAsn> dynamicAsn) {
        boolean isInternal(long myAsn) {
            return PeerSpec.internal(myAsn, peerAsn, dynamicAsn);
        }
    }

    private static Asns peerAsn(ProblemScope scope, Map<?, ?> spec) {
        OptionalLong peerAsn = asn(scope, spec, "peerASN", null);
        Optional<DynamicAsn> dynamicAsn = Optional.empty();
        String dynamic = string(scope, spec, "dynamicASN", "dynamicASN");
        if (dynamic != null) {
            switch (dynamic) {
                case "internal" -> dynamicAsn = Optional.of(DynamicAsn.INTERNAL);
                case "external" -> dynamicAsn = Optional.of(DynamicAsn.EXTERNAL);
                default ->
                    scope.error("dynamicASN: " + Quoted.of(dynamic)
                            + " is neither \"internal\" (the peer is in myASN) nor \"external\" (it is not)");
            }
        }
        if (spec.get("peerASN") != null && dynamic != null) {
            scope.error("peerASN and dynamicASN are both set: give exactly one, peerASN (the peer's AS number) or"
                    + " dynamicASN (internal or external: accept the AS the peer announces)");
        } else if (spec.get("peerASN") == null && dynamic == null) {
            scope.error("peerASN or dynamicASN is required: peerASN is the peer's AS number; dynamicASN, internal or"
                    + " external, accepts the AS the peer announces");
        }
        return new Asns(peerAsn, dynamicAsn);
    }

    /** An AS number field; {@code requiredBecause} null when the field is optional. */
    private static OptionalLong asn(ProblemScope scope, Map<?, ?> spec, String field, String requiredBecause) {
        Object value = spec.get(field);
        if (value == null) {
            if (requiredBecause != null) {
                scope.error(field + " is required: " + requiredBecause + " (1-4294967295)");
            }
            return OptionalLong.empty();
        }
        Long asn = whole(scope, field, value, 1, MAX_ASN, ASN_RANGE);
        return asn == null ? OptionalLong.empty() : OptionalLong.of(asn);
    }

    private static Optional<IpAddress> address(ProblemScope scope, Map<?, ?> spec, String field) {
        String text = string(scope, spec, field, field);
        if (text == null || text.isEmpty()) {
            return Optional.empty();
        }
        Optional<IpAddress> address = IpAddress.parse(text.strip());
        if (address.isEmpty()) {
            scope.error(field + ": " + Quoted.of(text) + " is not an IP address");
        }
        return address;
    }

    private static Optional<String> password(ProblemScope scope, Map<?, ?> spec) {
        Optional<String> password =
                Optional.ofNullable(string(scope, spec, "password", "password")).filter(p -> !p.isEmpty());
        password.ifPresent(p -> checkPassword(scope, "password", p));
        return password;
    }

    /** Also applied by the speaker to a password read from a Secret. */
    static void checkPassword(ProblemScope scope, String path, String password) {
        if (password.contains("\n") || password.contains("\r")) {
            scope.error(path + ": a password must not contain a line break");
        }
        if (utf8Length(password) > MAX_PASSWORD_BYTES) {
            scope.error(path + ": longer than " + MAX_PASSWORD_BYTES + " bytes, the longest TCP MD5 key Linux accepts");
        }
    }

    /** The bytes of the key the kernel gets (the config package does no I/O, so not through a charset). */
    private static int utf8Length(String text) {
        return text.codePoints()
                .map(c -> c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4)
                .sum();
    }

    /** The Secret's name: MetalLB reads it in its own namespace, which is the BGPPeer's. */
    private static Optional<String> passwordSecret(ProblemScope scope, Map<?, ?> spec, String namespace) {
        Object value = spec.get("passwordSecret");
        if (value == null) {
            return Optional.empty();
        }
        if (!(value instanceof Map<?, ?> reference)) {
            scope.error("passwordSecret: expected a map with the Secret's name, got " + describe(value));
            return Optional.empty();
        }
        warnUnknown(scope, "passwordSecret", reference, ConfigFields.SECRET_REFERENCE_FIELDS);
        String name = string(scope, reference, "passwordSecret.name", "name");
        String secretNamespace = string(scope, reference, "passwordSecret.namespace", "namespace");
        if (secretNamespace != null && !secretNamespace.isEmpty() && !secretNamespace.equals(namespace)) {
            scope.error("passwordSecret.namespace: lbk8s reads password Secrets only in its own namespace "
                    + Quoted.of(namespace) + ", not " + Quoted.of(secretNamespace));
        }
        if (name == null || name.isEmpty()) {
            // an empty reference is how Go writes "none" (MetalLB's field is not a pointer)
            return Optional.empty();
        }
        return Optional.of(name);
    }

    private static void refuseFrrOnly(ProblemScope scope, Map<?, ?> spec) {
        if (spec.get("interface") instanceof String s && !s.isEmpty()) {
            scope.error("interface (unnumbered BGP) is not supported by lbk8s: set peerAddress to the router's"
                    + " address instead");
        }
        if (spec.get("vrf") instanceof String s && !s.isEmpty()) {
            scope.error("vrf is not supported by lbk8s: sessions are opened from the node's default routing table;"
                    + " remove it (ignoring it would peer from the wrong VRF)");
        }
    }
}
