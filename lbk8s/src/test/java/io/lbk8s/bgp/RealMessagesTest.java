package io.lbk8s.bgp;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Messages GoBGP 3.10.0, BIRD 2.0.12 and FRR 8.4.4 sent one another, captured by capture-fixtures.sh (GoBGP AS 65001
 * at 10.0.0.1, BIRD AS 65002 at 10.0.0.2 and fd00::2, FRR AS 65003 at 10.0.0.3 and fd00::3) into real-messages.txt.
 */
class RealMessagesTest {
    /** One line of real-messages.txt: who sent it, the message type as the capture names it, and its octets. */
    record Captured(String sender, String type, byte[] bytes) {
        Message message() {
            Decoded decoded = MessageDecoder.decode(bytes, true); // all three use four-octet ASes with one another
            assertThat(decoded).as(sender + " " + type).isInstanceOf(Decoded.Valid.class);
            return ((Decoded.Valid) decoded).message();
        }
    }

    private static List<Captured> captured;

    @BeforeAll
    static void read() throws IOException {
        try (InputStream in = RealMessagesTest.class.getResourceAsStream("real-messages.txt")) {
            captured = new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .map(line -> line.split(" \\| "))
                    .map(f -> new Captured(f[0], f[2], HexFormat.of().parseHex(f[3])))
                    .toList();
        }
        assertThat(captured).extracting(Captured::sender).contains("GoBGP 3.10.0", "BIRD 2.0.12", "FRR 8.4.4");
    }

    private static List<Message> from(String sender, Predicate<Message> which) {
        return captured.stream()
                .filter(c -> c.sender().startsWith(sender))
                .map(Captured::message)
                .filter(which)
                .toList();
    }

    private static IpPrefix prefix(String text) {
        return IpPrefix.parse(text).orElseThrow();
    }

    @Test
    void everyCapturedMessageDecodesAsItsTypeAndSurvivesOurEncoding() {
        for (Captured c : captured) {
            Message message = c.message();
            assertThat(message.type())
                    .as(c.sender() + " " + c.type())
                    .isEqualTo(List.of("", "OPEN", "UPDATE", "NOTIFICATION", "KEEPALIVE", "ROUTE-REFRESH")
                            .indexOf(c.type()));
            // routers set Extended Length or Partial on short attributes, so compare decoded, not octets
            Decoded again = MessageDecoder.decode(MessageEncoder.encode(message, true), true);
            assertThat(again).as(c.sender() + " " + c.type()).isEqualTo(new Decoded.Valid(normalised(message)));
        }
    }

    /** What our encoding of a decoded message decodes to: the same, but kept attributes lose Extended Length. */
    private static Message normalised(Message message) {
        if (message instanceof Message.Update u) {
            return new Message.Update(
                    u.withdrawn(),
                    u.attributes().stream()
                            .map(a -> a instanceof PathAttribute.Other o
                                    ? new PathAttribute.Other(
                                            o.flags() & ~PathAttribute.EXTENDED_LENGTH, o.typeCode(), o.value())
                                    : a)
                            .toList(),
                    u.nlri());
        }
        return message;
    }

    @Test
    void frrsOpenAnnouncesFourOctetAsRouteRefreshGracefulRestartAndBothFamilies() {
        Message.Open open =
                (Message.Open) from("FRR", m -> m instanceof Message.Open).getFirst();

        assertThat(open.asn()).isEqualTo(65003);
        assertThat(open.holdTime()).isEqualTo(180);
        assertThat(open.bgpIdentifier()).isEqualTo(IpAddress.parse("10.0.0.3").orElseThrow());
        assertThat(open.capabilities())
                .contains(
                        new Capability.Multiprotocol(1, 1),
                        new Capability.RouteRefresh(),
                        new Capability.FourOctetAs(65003));
        assertThat(open.capability(Capability.GracefulRestart.class))
                .hasValueSatisfying(gr -> assertThat(gr.restartTimeSeconds()).isEqualTo(120));
        // FRR's hostname (FQDN, 73) and others we do not use are kept, not refused
        assertThat(open.capabilities()).anyMatch(c -> c instanceof Capability.Unknown u && u.code() == 73);
    }

    @Test
    void gobgpsOpenHasTheGracefulRestartTimeItWasConfiguredWith() {
        Message.Open open =
                (Message.Open) from("GoBGP", m -> m instanceof Message.Open).getFirst();

        assertThat(open.asn()).isEqualTo(65001);
        assertThat(open.holdTime()).isEqualTo(90);
        assertThat(open.capability(Capability.GracefulRestart.class))
                .hasValueSatisfying(gr -> assertThat(gr.restartTimeSeconds()).isEqualTo(90));
    }

    @Test
    void birdsOpenProposesHoldTime240() {
        Message.Open open =
                (Message.Open) from("BIRD", m -> m instanceof Message.Open).getFirst();

        assertThat(open.asn()).isEqualTo(65002);
        assertThat(open.holdTime()).isEqualTo(240);
    }

    @Test
    void gobgpsIpv4UpdateCarriesItsCommunitiesMedAndNextHop() {
        Message.Update update = (Message.Update) from(
                        "GoBGP", m -> m instanceof Message.Update u && u.nlri().contains(prefix("198.51.100.1/32")))
                .getFirst();

        assertThat(update.attribute(PathAttribute.AsPath.class).orElseThrow().segments())
                .containsExactly(AsPathSegment.sequence(65001L));
        assertThat(update.attribute(PathAttribute.NextHop.class).orElseThrow().address())
                .isEqualTo(IpAddress.parse("10.0.0.1").orElseThrow());
        assertThat(update.attribute(PathAttribute.MultiExitDisc.class)
                        .orElseThrow()
                        .value())
                .isEqualTo(10);
        assertThat(update.attribute(PathAttribute.Communities.class)
                        .orElseThrow()
                        .values())
                .containsExactly(new Community.Standard(65001, 100));
        assertThat(update.attribute(PathAttribute.LargeCommunities.class)
                        .orElseThrow()
                        .values())
                .containsExactly(new Community.Large(65001, 1, 2));
    }

    private static PathAttribute.MpReach firstMpReach(String sender) {
        return from(
                        sender,
                        m -> m instanceof Message.Update u
                                && u.attribute(PathAttribute.MpReach.class).isPresent())
                .stream()
                .map(m -> ((Message.Update) m)
                        .attribute(PathAttribute.MpReach.class)
                        .orElseThrow())
                .findFirst()
                .orElseThrow();
    }

    @Test
    void ipv6RoutesArriveInMpReachWithTheSendersNextHop() {
        PathAttribute.MpReach fromGobgp = firstMpReach("GoBGP");
        PathAttribute.MpReach fromBird = firstMpReach("BIRD");

        assertThat(fromGobgp.nlri()).containsExactly(prefix("2001:db8:1::1/128"));
        assertThat(fromGobgp.nextHop()).hasToString("::ffff:10.0.0.1"); // GoBGP maps its IPv4 session address
        assertThat(fromBird.nlri()).containsExactly(prefix("2001:db8:2::/64"));
        assertThat(fromBird.nextHop()).hasToString("fd00::2");
        assertThat(fromBird.linkLocalNextHop()).isEmpty();
    }

    @Test
    void eachRouterSendsEndOfRibForBothFamilies() {
        for (String router : List.of("GoBGP", "BIRD", "FRR")) {
            assertThat(from(router, m -> m instanceof Message.Update))
                    .as(router)
                    .map(m -> ((Message.Update) m).endOfRibFamily())
                    .contains(java.util.Optional.of(Family.IPV4_UNICAST), java.util.Optional.of(Family.IPV6_UNICAST));
        }
    }

    @Test
    void gobgpWithdrawsADeletedRoute() {
        assertThat(from(
                        "GoBGP",
                        m -> m instanceof Message.Update u && !u.withdrawn().isEmpty()))
                .map(m -> ((Message.Update) m).withdrawn())
                .contains(List.of(prefix("198.51.100.1/32")));
    }

    @Test
    void frrAndBirdAskForBothFamiliesAgainWithRouteRefresh() {
        for (String router : List.of("FRR", "BIRD")) {
            assertThat(from(router, m -> m instanceof Message.RouteRefresh))
                    .as(router)
                    .containsExactly(new Message.RouteRefresh(1, 1), new Message.RouteRefresh(2, 1));
        }
    }

    @Test
    void frrsShutdownMessageIsReadAsAUserWouldWantIt() {
        Message.Notification n = (Message.Notification)
                from("FRR", m -> m instanceof Message.Notification).getFirst();

        assertThat(LastError.of(
                        IpAddress.parse("10.0.0.3").orElseThrow(),
                        65001,
                        new SessionAction.Failed("sent a NOTIFICATION", java.util.Optional.of(n))))
                .isEqualTo(
                        "peer 10.0.0.3 sent NOTIFICATION Cease / Administrative Shutdown: \"\"maintenance window 42\"\"");
    }

    @Test
    void birdsBadPeerAsNamesTheAsItRefused() {
        List<Message> notifications = from("BIRD", m -> m instanceof Message.Notification);
        Message.Notification badPeerAs = (Message.Notification) notifications.getFirst();
        Message.Notification shutdown = (Message.Notification) notifications.get(1);

        // BIRD expected AS 65099 from FRR, which said 65003
        assertThat(LastError.of(
                        IpAddress.parse("10.0.0.2").orElseThrow(),
                        65003,
                        new SessionAction.Failed("sent a NOTIFICATION", java.util.Optional.of(badPeerAs))))
                .isEqualTo("peer 10.0.0.2 sent NOTIFICATION OPEN Message Error / Bad Peer AS: it does not accept our"
                        + " AS 65003 (compare the AS the router expects for this node with the BGPPeer's myASN)");
        assertThat(shutdown.describe()).isEqualTo("Cease / Administrative Shutdown");
        assertThat(shutdown.shutdownCommunication()).hasValue("bird going down");
    }
}
