package io.lbk8s.bgp;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AdjRibOutTest {
    private static final IpAddress NODE_V4 = ip("10.0.0.5");
    private static final IpAddress NODE_V6 = ip("fd00::5");
    private static final Set<Family> BOTH = Set.of(Family.IPV4_UNICAST, Family.IPV6_UNICAST);

    private static IpAddress ip(String text) {
        return IpAddress.parse(text).orElseThrow();
    }

    private static Route route(String prefix) {
        return Route.of(IpPrefix.parse(prefix).orElseThrow());
    }

    private static SessionContext external(boolean dualStack) {
        return new SessionContext(64512, false, true, BOTH, NODE_V4, Optional.of(NODE_V6), Optional.empty(), dualStack);
    }

    private static SessionContext internal() {
        return new SessionContext(64512, true, true, BOTH, NODE_V4, Optional.empty(), Optional.empty(), false);
    }

    @Test
    void anExternalPeerGetsOurAsAndOurAddressAsNextHopWithoutLocalPref() {
        var plan = AdjRibOut.changes(Map.of(), List.of(route("198.51.100.10/32")), external(false));

        assertThat(plan.updates()).singleElement().satisfies(u -> {
            assertThat(u.nlri())
                    .containsExactly(IpPrefix.parse("198.51.100.10/32").orElseThrow());
            assertThat(u.attributes())
                    .containsExactly(
                            PathAttribute.Origin.IGP,
                            new PathAttribute.AsPath(List.of(AsPathSegment.sequence(64512L))),
                            new PathAttribute.NextHop(NODE_V4));
        });
    }

    @Test
    void anInternalPeerGetsAnEmptyAsPathAndLocalPrefTheRoutesOr100() {
        Route preferred = new Route(IpPrefix.parse("198.51.100.10/32").orElseThrow(), OptionalLong.of(200), List.of());
        var plan = AdjRibOut.changes(Map.of(), List.of(preferred, route("198.51.100.11/32")), internal());

        assertThat(plan.updates()).hasSize(2);
        assertThat(plan.updates())
                .extracting(u ->
                        u.attribute(PathAttribute.LocalPref.class).orElseThrow().value())
                .containsExactlyInAnyOrder(200L, 100L);
        assertThat(plan.updates())
                .allSatisfy(
                        u -> assertThat(u.attribute(PathAttribute.AsPath.class)).hasValue(PathAttribute.AsPath.EMPTY));
    }

    @Test
    void communitiesTravelInTheirTwoAttributes() {
        Route tagged = new Route(
                IpPrefix.parse("198.51.100.10/32").orElseThrow(),
                OptionalLong.empty(),
                List.of(new Community.Standard(65000, 100), new Community.Large(64512, 1, 2)));

        Message.Update update = AdjRibOut.changes(Map.of(), List.of(tagged), external(false))
                .updates()
                .getFirst();

        assertThat(update.attribute(PathAttribute.Communities.class)
                        .orElseThrow()
                        .values())
                .containsExactly(new Community.Standard(65000, 100));
        assertThat(update.attribute(PathAttribute.LargeCommunities.class)
                        .orElseThrow()
                        .values())
                .containsExactly(new Community.Large(64512, 1, 2));
    }

    @Test
    void anIpv6RouteGoesOnAnIpv4SessionOnlyDualStackWithTheNodesIpv6Address() {
        Route v6 = route("2001:db8::10/128");

        assertThat(AdjRibOut.changes(Map.of(), List.of(v6), external(false)).updates())
                .isEmpty();

        Message.Update update = AdjRibOut.changes(Map.of(), List.of(v6), external(true))
                .updates()
                .getFirst();
        assertThat(update.nlri()).isEmpty();
        assertThat(update.attribute(PathAttribute.NextHop.class)).isEmpty();
        assertThat(update.attribute(PathAttribute.MpReach.class).orElseThrow())
                .isEqualTo(new PathAttribute.MpReach(
                        Family.IPV6_UNICAST, NODE_V6, Optional.empty(), List.of(v6.prefix())));
    }

    @Test
    void onlyWhatChangedIsSentAndWithdrawalsComeFirst() {
        SessionContext session = external(true);
        var first = AdjRibOut.changes(
                Map.of(),
                List.of(route("198.51.100.10/32"), route("198.51.100.11/32"), route("2001:db8::10/128")),
                session);

        var second =
                AdjRibOut.changes(first.sent(), List.of(route("198.51.100.11/32"), route("198.51.100.12/32")), session);

        assertThat(second.updates()).hasSize(3);
        assertThat(second.updates().get(0).withdrawn())
                .containsExactly(IpPrefix.parse("198.51.100.10/32").orElseThrow());
        assertThat(second.updates()
                        .get(1)
                        .attribute(PathAttribute.MpUnreach.class)
                        .orElseThrow()
                        .withdrawn())
                .containsExactly(IpPrefix.parse("2001:db8::10/128").orElseThrow());
        assertThat(second.updates().get(2).nlri())
                .containsExactly(IpPrefix.parse("198.51.100.12/32").orElseThrow());
        assertThat(second.sent()).hasSize(2);
        assertThat(AdjRibOut.changes(second.sent(), second.sent().values(), session)
                        .updates())
                .isEmpty();
    }

    @Test
    void everythingEndsWithEndOfRibForEachNegotiatedFamily() {
        var plan = AdjRibOut.everything(List.of(route("198.51.100.10/32")), external(false));

        assertThat(plan.updates()).hasSize(3);
        assertThat(plan.updates().subList(1, 3))
                .extracting(u -> u.endOfRibFamily().orElseThrow())
                .containsExactly(Family.IPV4_UNICAST, Family.IPV6_UNICAST);
    }

    @Test
    void tenThousandRoutesArePackedIntoUpdatesOfAtMost4096Octets() {
        List<Route> routes = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            routes.add(Route.of(IpPrefix.around(IpAddress.v4(0xC6120000L + i), 32)));
            routes.add(Route.of(
                    IpPrefix.around(new IpAddress(io.lbk8s.address.IpFamily.IPv6, 0x20010db800000000L, i), 128)));
        }

        var plan = AdjRibOut.everything(routes, external(true));

        int announced = 0;
        for (Message.Update update : plan.updates()) {
            assertThat(MessageEncoder.encode(update, true).length).isLessThanOrEqualTo(4096);
            announced += update.nlri().size()
                    + update.attribute(PathAttribute.MpReach.class)
                            .map(r -> r.nlri().size())
                            .orElse(0);
        }
        assertThat(announced).isEqualTo(20_000);
        // 4096 octets hold about 800 IPv4 /32s and 230 IPv6 /128s: far fewer messages than routes
        assertThat(plan.updates()).hasSizeLessThan(70);
    }
}
