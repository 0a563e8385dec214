package io.lbk8s.bgp;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OpenNegotiationTest {
    private static final PeerSpec SPEC = PeerSpecs.external();
    private static final Message.Open OURS =
            OpenNegotiation.ours(SPEC, IpAddress.parse("10.0.0.5").orElseThrow(), false);

    private static Message.Open theirs(long asn, int holdTime, String id, List<Capability> capabilities) {
        return Message.Open.of(asn, holdTime, IpAddress.parse(id).orElseThrow(), capabilities);
    }

    private static Message.Open router(long asn, int holdTime) {
        return theirs(
                asn,
                holdTime,
                "10.0.0.1",
                List.of(
                        Capability.Multiprotocol.of(Family.IPV4_UNICAST),
                        new Capability.RouteRefresh(),
                        new Capability.FourOctetAs(asn)));
    }

    @Test
    void theSmallerHoldTimeWinsAndKeepaliveIsAThirdOfIt() {
        var outcome = OpenNegotiation.negotiate(SPEC, OURS, router(64513, 30));

        assertThat(outcome).isInstanceOfSatisfying(OpenNegotiation.Outcome.Agreed.class, a -> {
            assertThat(a.negotiated().holdTime()).isEqualTo(Duration.ofSeconds(30));
            assertThat(a.negotiated().keepalive()).isEqualTo(Duration.ofSeconds(10));
            assertThat(a.negotiated().fourOctetAs()).isTrue();
            assertThat(a.negotiated().families()).containsExactly(Family.IPV4_UNICAST);
            assertThat(a.negotiated().internal()).isFalse();
        });
    }

    @Test
    void aConfiguredKeepaliveIsUsedWhenShorterThanTheHoldTime() {
        var outcome = OpenNegotiation.negotiate(
                PeerSpecs.withKeepalive(SPEC, Duration.ofSeconds(5)), OURS, router(64513, 90));

        assertThat(((OpenNegotiation.Outcome.Agreed) outcome).negotiated().keepalive())
                .isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void holdTimeZeroMeansNoKeepalives() {
        var outcome = OpenNegotiation.negotiate(SPEC, OURS, router(64513, 0));

        assertThat(((OpenNegotiation.Outcome.Agreed) outcome).negotiated().keepalive())
                .isZero();
    }

    @Test
    void aPeerWithoutMultiprotocolCapabilitiesSpeaksIpv4Only() {
        var outcome = OpenNegotiation.negotiate(SPEC, OURS, theirs(64513, 90, "10.0.0.1", List.of()));

        assertThat(((OpenNegotiation.Outcome.Agreed) outcome).negotiated().families())
                .containsExactly(Family.IPV4_UNICAST);
        assertThat(((OpenNegotiation.Outcome.Agreed) outcome).negotiated().fourOctetAs())
                .isFalse();
    }

    @Test
    void bothFamiliesWhenBothAnnounceThem() {
        Message.Open dual = theirs(
                64513,
                90,
                "10.0.0.1",
                List.of(
                        Capability.Multiprotocol.of(Family.IPV6_UNICAST),
                        Capability.Multiprotocol.of(Family.IPV4_UNICAST)));

        var outcome = OpenNegotiation.negotiate(SPEC, OURS, dual);

        assertThat(((OpenNegotiation.Outcome.Agreed) outcome).negotiated().families())
                .containsExactlyInAnyOrder(Family.IPV4_UNICAST, Family.IPV6_UNICAST);
    }

    /** Each refusal: the NOTIFICATION we send, and the sentence the session's status shows. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            hold time 2         | 64513 | 2  | 10.0.0.1 | OPEN Message Error / Unacceptable Hold Time | peer 10.0.0.1 proposed a hold time of 2 s; BGP allows 0 or at least 3
            another AS          | 64999 | 90 | 10.0.0.1 | OPEN Message Error / Bad Peer AS           | peer 10.0.0.1 says it is AS 64999, the BGPPeer expects AS 64513
            our own identifier  | 64513 | 90 | 10.0.0.5 | OPEN Message Error / Bad BGP Identifier    | peer 10.0.0.1 has our own BGP identifier 10.0.0.5; set a different routerID
            """)
    void refusals(String what, long asn, int hold, String id, String notification, String sentence) {
        var outcome = OpenNegotiation.negotiate(SPEC, OURS, theirs(asn, hold, id, List.of()));

        assertThat(outcome).isInstanceOfSatisfying(OpenNegotiation.Outcome.Refused.class, r -> {
            assertThat(r.notification().describe()).isEqualTo(notification);
            assertThat("peer " + SPEC.address() + " " + r.reason()).isEqualTo(sentence);
        });
    }

    @ParameterizedTest(name = "dynamicASN {0} with peer AS {1}: accepted {2}")
    @CsvSource({"INTERNAL, 64512, true", "INTERNAL, 64513, false", "EXTERNAL, 64513, true", "EXTERNAL, 64512, false"})
    void dynamicAsnAcceptsOnlyTheKindItNames(PeerSpec.DynamicAsn kind, long theirAsn, boolean accepted) {
        PeerSpec dynamic = PeerSpecs.withPeerAsn(SPEC, OptionalLong.empty(), Optional.of(kind));

        var outcome = OpenNegotiation.negotiate(dynamic, OURS, router(theirAsn, 90));

        assertThat(outcome instanceof OpenNegotiation.Outcome.Agreed).isEqualTo(accepted);
        if (accepted) {
            assertThat(((OpenNegotiation.Outcome.Agreed) outcome).negotiated().internal())
                    .isEqualTo(kind == PeerSpec.DynamicAsn.INTERNAL);
        }
    }

    @Test
    void ourOpenAnnouncesBothFamiliesRouteRefreshAndOurFourOctetAs() {
        assertThat(OURS.capabilities())
                .contains(
                        Capability.Multiprotocol.of(Family.IPV4_UNICAST),
                        Capability.Multiprotocol.of(Family.IPV6_UNICAST),
                        new Capability.RouteRefresh(),
                        new Capability.FourOctetAs(64512));
        assertThat(OURS.holdTime()).isEqualTo(90);
        assertThat(OURS.myAsField()).isEqualTo(64512);
    }

    /**
     * What a router reads in our OPEN's graceful-restart capability: none without enableGracefulRestart; with it,
     * Restart State set only until this process has had a session with the router, and forwarding preserved for
     * both families we announce (kube-proxy forwards, and survives the speaker's restart).
     */
    @ParameterizedTest(name = "enableGracefulRestart {0}, first session since start {1}: capability {2}, R {3}")
    @CsvSource({
        "false, true,  false, false",
        "false, false, false, false",
        "true,  true,  true,  true",
        "true,  false, true,  false",
    })
    void gracefulRestartSaysRestartedOnlyOnTheFirstSessionOfTheProcess(
            boolean enabled, boolean firstSinceStart, boolean capability, boolean restarting) {
        PeerSpec spec = PeerSpecs.withGracefulRestart(SPEC, enabled);

        Message.Open open =
                OpenNegotiation.ours(spec, IpAddress.parse("10.0.0.5").orElseThrow(), firstSinceStart);

        var gr = open.capability(Capability.GracefulRestart.class);
        assertThat(gr.isPresent()).isEqualTo(capability);
        gr.ifPresent(c -> {
            assertThat(c.restarting()).isEqualTo(restarting);
            assertThat(c.restartTimeSeconds()).isEqualTo(120);
            assertThat(c.families())
                    .containsExactly(
                            new Capability.GracefulRestart.Forwarding(1, 1, true),
                            new Capability.GracefulRestart.Forwarding(2, 1, true));
        });
    }
}
