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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The TTL each kind of session leaves with: FRR's choice, which MetalLB's FRR mode configures. */
class SessionTtlTest {

    static Stream<Arguments> peers() {
        return Stream.of(
                arguments("eBGP: directly connected only", OptionalLong.of(64513), Optional.empty(), false, "1"),
                arguments(
                        "eBGP with ebgpMultiHop: any distance", OptionalLong.of(64513), Optional.empty(), true, "255"),
                arguments("iBGP: the system's default", OptionalLong.of(64512), Optional.empty(), false, "default"),
                arguments(
                        "dynamicASN external: eBGP",
                        OptionalLong.empty(),
                        Optional.of(DynamicAsn.EXTERNAL),
                        false,
                        "1"),
                arguments(
                        "dynamicASN external with ebgpMultiHop",
                        OptionalLong.empty(),
                        Optional.of(DynamicAsn.EXTERNAL),
                        true,
                        "255"),
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

    @Test
    void aRouterOutOfReachOfTtlOneIsToldHowToReachIt() {
        assertThat("no route to host 10.0.1.1" + SessionTtl.hint(OptionalInt.of(1), 113))
                .isEqualTo("no route to host 10.0.1.1 (this eBGP session leaves with TTL 1, as without ebgpMultiHop"
                        + " the router must be directly connected; set ebgpMultiHop: true on the BGPPeer if it is"
                        + " further away)");
        assertThat(SessionTtl.hint(OptionalInt.of(1), 111))
                .as("refused: the router was reached")
                .isEmpty();
        assertThat(SessionTtl.hint(OptionalInt.of(255), 113)).as("multi-hop").isEmpty();
        assertThat(SessionTtl.hint(OptionalInt.empty(), 110)).as("iBGP").isEmpty();
    }

    /** AS 64512, as {@link PeerSpecs#external()}. */
    private static PeerSpec spec(OptionalLong peerAsn, Optional<DynamicAsn> dynamicAsn, boolean ebgpMultiHop) {
        return PeerSpecs.withEbgpMultiHop(
                PeerSpecs.withPeerAsn(PeerSpecs.external(), peerAsn, dynamicAsn), ebgpMultiHop);
    }
}
