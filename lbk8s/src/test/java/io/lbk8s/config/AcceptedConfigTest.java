package io.lbk8s.config;

import static io.lbk8s.config.ConfigParserTest.l2;
import static io.lbk8s.config.ConfigParserTest.manifests;
import static io.lbk8s.config.ConfigParserTest.poolCreated;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.lbk8s.address.IpRange;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Table-driven: what was accepted before (the configuration as it stood), the configuration now → the pools in use,
 * the refused objects kept at their accepted version, those not in use, and every problem reported.
 */
class AcceptedConfigTest {

    static final String A = poolCreated("a", "2026-12-01T10:00:00Z", "{addresses: [10.0.0.0/28]}");
    static final String A_EDITED_INVALID = poolCreated("a", "2026-12-01T10:00:00Z", "{addresses: [10.0.0.300/28]}");
    static final String A_EDITED_OVER_B = poolCreated("a", "2026-12-01T10:00:00Z", "{addresses: [10.0.1.0/24]}");
    static final String A_MOVED = poolCreated("a", "2026-12-01T10:00:00Z", "{addresses: [10.0.2.0/28]}");
    static final String B = poolCreated("b", "2026-12-02T10:00:00Z", "{addresses: [10.0.1.0/28]}");
    static final String C_OVER_OLD_A = poolCreated("c", "2026-12-03T10:00:00Z", "{addresses: [10.0.0.8/29]}");
    static final String ALL = poolCreated("all", "2026-12-03T10:00:00Z", "{addresses: [10.0.0.0/8]}");
    static final String BAD_L2 = l2("bad", "{serviceSelectors: [{matchLabels: {a: b}}]}");
    static final String GOOD_L2 = l2("good", "{ipAddressPools: [a]}");

    record Expected(List<String> pools, List<String> kept, List<String> unused, List<String> problems) {}

    static Expected expect(List<String> pools, List<String> kept, List<String> unused, String... problems) {
        return new Expected(pools, kept, unused, List.of(problems));
    }

    static Arguments step(String name, String before, String now, Expected expected) {
        return argumentSet(name, before, now, expected);
    }

    static Stream<Arguments> steps() {
        return Stream.of(
                step(
                        "a valid configuration is used whole",
                        "",
                        A + B + GOOD_L2,
                        expect(List.of("a: 10.0.0.0/28", "b: 10.0.1.0/28"), List.of(), List.of())),
                step(
                        "a new pool over every address is refused alone; the pools in use stay",
                        A + B,
                        A + B + ALL,
                        expect(
                                List.of("a: 10.0.0.0/28", "b: 10.0.1.0/28"),
                                List.of(),
                                List.of("IPAddressPool metallb-system/all"),
                                "ERROR IPAddressPool metallb-system/all: addresses[0] \"10.0.0.0/8\" overlaps addresses[0] \"10.0.0.0/28\" of pool \"a\" (IPAddressPool metallb-system/a)")),
                step(
                        "an invalid L2Advertisement is refused alone",
                        A,
                        A + BAD_L2 + GOOD_L2,
                        expect(
                                List.of("a: 10.0.0.0/28"),
                                List.of(),
                                List.of("L2Advertisement metallb-system/bad"),
                                "ERROR L2Advertisement metallb-system/bad: serviceSelectors is not supported by lbk8s: remove it (ignoring it would announce every Service of the selected pools)")),
                step(
                        "a pool edited into something invalid keeps its accepted version",
                        A + B,
                        A_EDITED_INVALID + B,
                        expect(
                                List.of("a: 10.0.0.0/28", "b: 10.0.1.0/28"),
                                List.of("IPAddressPool metallb-system/a"),
                                List.of(),
                                "ERROR IPAddressPool metallb-system/a: addresses[0] \"10.0.0.300/28\": \"10.0.0.300\" is not an IP address")),
                step(
                        "a pool edited to overlap an unchanged younger pool is the one refused, and keeps its accepted version",
                        A + B,
                        A_EDITED_OVER_B + B,
                        expect(
                                List.of("a: 10.0.0.0/28", "b: 10.0.1.0/28"),
                                List.of("IPAddressPool metallb-system/a"),
                                List.of(),
                                "ERROR IPAddressPool metallb-system/a: addresses[0] \"10.0.1.0/24\" overlaps addresses[0] \"10.0.1.0/28\" of pool \"b\" (IPAddressPool metallb-system/b)")),
                step(
                        "a new pool that overlaps only the kept version of a refused pool is refused too",
                        A,
                        A_EDITED_INVALID + C_OVER_OLD_A,
                        expect(
                                List.of("a: 10.0.0.0/28"),
                                List.of("IPAddressPool metallb-system/a"),
                                List.of("IPAddressPool metallb-system/c"),
                                "ERROR IPAddressPool metallb-system/a: addresses[0] \"10.0.0.300/28\": \"10.0.0.300\" is not an IP address",
                                "ERROR IPAddressPool metallb-system/c: addresses[0] \"10.0.0.8/29\" overlaps addresses[0] \"10.0.0.0/28\" of pool \"a\" (IPAddressPool metallb-system/a)")),
                step(
                        "a valid edit is taken",
                        A + B,
                        A_MOVED + B,
                        expect(List.of("a: 10.0.2.0/28", "b: 10.0.1.0/28"), List.of(), List.of())),
                step(
                        "a refused pool never accepted is not used",
                        "",
                        A_EDITED_INVALID + B,
                        expect(
                                List.of("b: 10.0.1.0/28"),
                                List.of(),
                                List.of("IPAddressPool metallb-system/a"),
                                "ERROR IPAddressPool metallb-system/a: addresses[0] \"10.0.0.300/28\": \"10.0.0.300\" is not an IP address")),
                step("a deleted pool is gone", A + B, B, expect(List.of("b: 10.0.1.0/28"), List.of(), List.of())));
    }

    @ParameterizedTest
    @MethodSource("steps")
    void acceptsObjectByObject(String before, String now, Expected expected) {
        AcceptedConfig state = before.isEmpty()
                ? AcceptedConfig.NONE
                : AcceptedConfig.NONE.accept(manifests(before)).next();

        AcceptedConfig.Outcome outcome = state.accept(manifests(now));

        assertThat(outcome.result().config().pools())
                .map(ConfigParserTest::describe)
                .containsExactlyElementsOf(expected.pools());
        assertThat(outcome.kept()).map(ConfigOrigin::toString).containsExactlyInAnyOrderElementsOf(expected.kept());
        assertThat(outcome.unused()).map(ConfigOrigin::toString).containsExactlyInAnyOrderElementsOf(expected.unused());
        assertThat(outcome.result().problems())
                .map(ConfigProblem::toString)
                .containsExactlyElementsOf(expected.problems());
        List<IpRange> inUse = outcome.result().config().pools().stream()
                .flatMap(p -> p.ranges().stream())
                .toList();
        for (int i = 0; i < inUse.size(); i++) {
            for (int j = i + 1; j < inUse.size(); j++) {
                assertThat(inUse.get(i).overlaps(inUse.get(j)))
                        .as("%s and %s both in use", inUse.get(i), inUse.get(j))
                        .isFalse();
            }
        }
    }

    @Test
    void whatIsUsedIsAcceptedNextTimeAndAFixEndsTheKeeping() {
        AcceptedConfig.Outcome broken =
                AcceptedConfig.NONE.accept(manifests(A + B)).next().accept(manifests(A_EDITED_INVALID + B));
        AcceptedConfig.Outcome stillBroken = broken.next().accept(manifests(A_EDITED_INVALID + B));
        assertThat(stillBroken.kept()).map(ConfigOrigin::toString).containsExactly("IPAddressPool metallb-system/a");
        assertThat(stillBroken.result().config().pool("a"))
                .map(ConfigParserTest::describe)
                .contains("a: 10.0.0.0/28");

        AcceptedConfig.Outcome fixed = stillBroken.next().accept(manifests(A_MOVED + B));
        assertThat(fixed.kept()).isEmpty();
        assertThat(fixed.result().valid()).isTrue();
        assertThat(fixed.result().config().pool("a"))
                .map(ConfigParserTest::describe)
                .contains("a: 10.0.2.0/28");
    }

    @Test
    void aBgpPeerEditedIntoSomethingInvalidKeepsItsAcceptedVersion() {
        String router = BgpConfigParserTest.peer("router", "{myASN: 64500, peerASN: 64501, peerAddress: 10.0.0.1}");
        String edited = BgpConfigParserTest.peer("router", "{myASN: 64500, peerASN: 64501, peerAddress: 10.0.0.300}");
        AcceptedConfig before = AcceptedConfig.NONE.accept(manifests(router)).next();

        AcceptedConfig.Outcome outcome = before.accept(manifests(edited));

        assertThat(outcome.result().problems())
                .map(ConfigProblem::toString)
                .containsExactly("ERROR BGPPeer lbk8s-system/router: peerAddress: \"10.0.0.300\" is not an IP address");
        assertThat(outcome.kept())
                .containsExactly(new ConfigOrigin(ConfigOrigin.Kind.BGPPeer, "lbk8s-system", "router"));
        assertThat(outcome.result().config().bgpPeers())
                .map(p -> p.name() + " " + p.peerAddress())
                .containsExactly("router 10.0.0.1");
        // and a speaker starting from the controller's record judges it alike
        assertThat(AcceptedConfig.of(outcome.next().sources())
                        .accept(manifests(edited))
                        .result()
                        .config()
                        .bgpPeers())
                .hasSize(1);
    }
}
