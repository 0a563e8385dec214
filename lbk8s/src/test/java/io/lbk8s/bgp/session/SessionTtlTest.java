package io.lbk8s.bgp.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.lbk8s.bgp.PeerSpec;
import io.lbk8s.bgp.PeerSpec.DynamicAsn;
import io.lbk8s.bgp.PeerSpecs;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The TTL each kind of session leaves with: the default unless an eBGP peer says ebgpMultiHop. */
class SessionTtlTest {

    static Stream<Arguments> peers() {
        return Stream.of(
                arguments(
                        "eBGP: the system's default, as MetalLB's native speaker",
                        OptionalLong.of(64513),
                        Optional.empty(),
                        false,
                        "default"),
                arguments(
                        "eBGP with ebgpMultiHop: any distance", OptionalLong.of(64513), Optional.empty(), true, "255"),
                arguments("iBGP: the system's default", OptionalLong.of(64512), Optional.empty(), false, "default"),
                arguments(
                        "dynamicASN external: eBGP",
                        OptionalLong.empty(),
                        Optional.of(DynamicAsn.EXTERNAL),
                        false,
                        "default"),
                arguments(
                        "dynamicASN external with ebgpMultiHop",
                        OptionalLong.empty(),
                        Optional.of(DynamicAsn.EXTERNAL),
                        true,
                        "255"),
                arguments(
                        "iBGP with ebgpMultiHop (refused by the parser): the default",
                        OptionalLong.of(64512),
                        Optional.empty(),
                        true,
                        "default"),
                arguments(
                        "dynamicASN internal: iBGP",
                        OptionalLong.empty(),
                        Optional.of(DynamicAsn.INTERNAL),
                        false,
                        "default"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("peers")
    void ttlOfASession(
            String description,
            OptionalLong peerAsn,
            Optional<DynamicAsn> dynamicAsn,
            boolean ebgpMultiHop,
            String expected) {
        OptionalInt ttl = SessionTtl.of(spec(peerAsn, dynamicAsn, ebgpMultiHop));
        assertThat(ttl.isPresent() ? String.valueOf(ttl.getAsInt()) : "default")
                .as(description)
                .isEqualTo(expected);
    }

    /** AS 64512, as {@link PeerSpecs#external()}. */
    private static PeerSpec spec(OptionalLong peerAsn, Optional<DynamicAsn> dynamicAsn, boolean ebgpMultiHop) {
        return PeerSpecs.withEbgpMultiHop(
                PeerSpecs.withPeerAsn(PeerSpecs.external(), peerAsn, dynamicAsn), ebgpMultiHop);
    }
}
