package io.lbk8s.bgp;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MessageCodecTest {
    private static final String MARKER = "ffffffffffffffffffffffffffffffff";

    private static IpAddress ip(String text) {
        return IpAddress.parse(text).orElseThrow();
    }

    private static IpPrefix prefix(String text) {
        return IpPrefix.parse(text).orElseThrow();
    }

    private static Message decodeValid(byte[] bytes, boolean fourOctetAs) {
        Decoded decoded = MessageDecoder.decode(bytes, fourOctetAs);
        assertThat(decoded).isInstanceOf(Decoded.Valid.class);
        return ((Decoded.Valid) decoded).message();
    }

    @Test
    void aKeepaliveIsTheNineteenOctetHeaderAlone() {
        assertThat(HexFormat.of().formatHex(MessageEncoder.encode(new Message.Keepalive(), false)))
                .isEqualTo(MARKER + "001304");
    }

    @Test
    void anOpenOfAFourOctetAsSaysAsTransInMyAsAndTheRealAsInItsCapability() {
        Message.Open open = Message.Open.of(
                4_200_000_000L, 90, ip("10.0.0.1"), List.of(new Capability.FourOctetAs(4_200_000_000L)));

        byte[] bytes = MessageEncoder.encode(open, false);
        Message.Open decoded = (Message.Open) decodeValid(bytes, false);

        assertThat(decoded.myAsField()).isEqualTo(23456);
        assertThat(decoded.asn()).isEqualTo(4_200_000_000L);
        assertThat(decoded).isEqualTo(open);
    }

    @Test
    void ourOpenAfterARestartRoundTripsWithTheRestartStateAndForwardingBits() {
        Message.Open ours = OpenNegotiation.ours(PeerSpecs.external(), ip("10.0.0.5"), true);

        byte[] bytes = MessageEncoder.encode(ours, false);
        Message.Open decoded = (Message.Open) decodeValid(bytes, false);

        assertThat(decoded).isEqualTo(ours);
        assertThat(decoded.capability(Capability.GracefulRestart.class)).hasValueSatisfying(gr -> {
            assertThat(gr.restartTimeSeconds()).isEqualTo(120);
            assertThat(gr.restarting()).isTrue();
            assertThat(gr.families()).allMatch(Capability.GracefulRestart.Forwarding::preserved);
        });
        // RFC 4724 3 on the wire: code 64, length 10, R bit + 120 s, then AFI 1 SAFI 1 F, AFI 2 SAFI 1 F
        assertThat(HexFormat.of().formatHex(bytes)).contains("400a8078" + "00010180" + "00020180");
    }

    @Test
    void anIpv6UpdateWithGlobalAndLinkLocalNextHopRoundTrips() {
        Message.Update update = new Message.Update(
                List.of(),
                List.of(
                        PathAttribute.Origin.IGP,
                        new PathAttribute.AsPath(List.of(AsPathSegment.sequence(64512L))),
                        new PathAttribute.MpReach(
                                Family.IPV6_UNICAST,
                                ip("fd00::5"),
                                Optional.of(ip("fe80::1")),
                                List.of(prefix("2001:db8::10/128"), prefix("2001:db8:1::/48")))),
                List.of());

        byte[] bytes = MessageEncoder.encode(update, true);

        assertThat(decodeValid(bytes, true)).isEqualTo(update);
        assertThat(HexFormat.of().formatHex(bytes)).contains("000201" + "20" + "fd000000"); // AFI 2, SAFI 1, 32 octets
    }

    @Test
    void twoOctetAsPathsAreReadAsTwoOctetsWithoutTheCapability() {
        Message.Update update = new Message.Update(
                List.of(),
                List.of(
                        PathAttribute.Origin.IGP,
                        new PathAttribute.AsPath(List.of(AsPathSegment.sequence(64512L, 65000L))),
                        new PathAttribute.NextHop(ip("10.0.0.5"))),
                List.of(prefix("198.51.100.0/24")));

        assertThat(decodeValid(MessageEncoder.encode(update, false), false)).isEqualTo(update);
        assertThat(MessageEncoder.encode(update, false)).hasSize(MessageEncoder.encode(update, true).length - 2 * 2);
    }

    /** A prefix as a BGPAdvertisement's aggregation may write it (host bits set) goes out as its network. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            198.51.100.9/32     | 20c6336409
            10.5.0.7/20         | 140a0500
            10.5.0.7/0          | 00
            2001:db8:ffff::1/33 | 2120010db880
            fd00::5/127         | 7ffd000000000000000000000000000004
            2001:db8::10/128    | 8020010db8000000000000000000000010
            """)
    void aPrefixGoesOnTheWireAsItsLengthAndItsNetworksOctets(String prefix, String wire) {
        IpPrefix p = prefix(prefix);
        boolean v4 = p.address().isV4();
        Message.Update withdrawal = v4
                ? new Message.Update(List.of(p), List.of(), List.of())
                : new Message.Update(
                        List.of(), List.of(new PathAttribute.MpUnreach(Family.IPV6_UNICAST, List.of(p))), List.of());

        byte[] bytes = MessageEncoder.encode(withdrawal, true);
        Message.Update decoded = (Message.Update) decodeValid(bytes, true);

        // IPv4: withdrawn routes' length, the prefix, no attributes; IPv6: the MP_UNREACH_NLRI ends with it
        assertThat(HexFormat.of().formatHex(bytes))
                .endsWith(v4 ? String.format("%04x", wire.length() / 2) + wire + "0000" : wire);
        assertThat(
                        v4
                                ? decoded.withdrawn()
                                : ((PathAttribute.MpUnreach)
                                                decoded.attributes().getFirst())
                                        .withdrawn())
                .containsExactly(p.canonical());
    }

    @Test
    void endOfRibMarkersAreRecognised() {
        assertThat(Message.Update.endOfRib(Family.IPV4_UNICAST).endOfRibFamily())
                .hasValue(Family.IPV4_UNICAST);
        assertThat(Message.Update.endOfRib(Family.IPV6_UNICAST).endOfRibFamily())
                .hasValue(Family.IPV6_UNICAST);
        assertThat(HexFormat.of().formatHex(MessageEncoder.encode(Message.Update.endOfRib(Family.IPV6_UNICAST), true)))
                .isEqualTo(MARKER + "001d0200000006800f03000201");
    }

    @Test
    void anAdministrativeShutdownCarriesItsCommunication() {
        Message.Notification n = Message.Notification.administrativeShutdown("node drained for maintenance");

        Message.Notification decoded = (Message.Notification) decodeValid(MessageEncoder.encode(n, false), false);

        assertThat(decoded.describe()).isEqualTo("Cease / Administrative Shutdown");
        assertThat(decoded.shutdownCommunication()).hasValue("node drained for maintenance");
    }

    /**
     * Broken messages, and the NOTIFICATION RFC 4271 6 says to answer each with: those RFC 7606 still ends the session
     * for (an error in one UPDATE attribute no longer does: {@link UpdateErrorHandlingTest}).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            marker not all ones                 | fffffffffffffffffffffffffffffffe001304                          | Message Header Error / Connection Not Synchronized
            length above 4096                   | ffffffffffffffffffffffffffffffff100104                          | Message Header Error / Bad Message Length
            unknown type 9                      | ffffffffffffffffffffffffffffffff001309                          | Message Header Error / Bad Message Type
            KEEPALIVE with a body               | ffffffffffffffffffffffffffffffff00140400                        | Message Header Error / Bad Message Length
            OPEN of version 3                   | ffffffffffffffffffffffffffffffff001d0103fde8005a0a00000100      | OPEN Message Error / Unsupported Version Number
            OPEN with identifier 0.0.0.0        | ffffffffffffffffffffffffffffffff001d0104fde8005a0000000000      | OPEN Message Error / Bad BGP Identifier
            OPEN with optional parameter 1      | ffffffffffffffffffffffffffffffff00200104fde8005a0a00000103010100 | OPEN Message Error / Unsupported Optional Parameter
            UPDATE with unknown well-known 99   | ffffffffffffffffffffffffffffffff00210200000004406301ff          | UPDATE Message Error / Unrecognized Well-known Attribute
            UPDATE with a /33 IPv4 prefix       | ffffffffffffffffffffffffffffffff0000020000000021c633640100 | UPDATE Message Error / Invalid Network Field
            """)
    void aBrokenMessageIsAnsweredWithTheRightNotification(String what, String hex, String expected) {
        byte[] bytes = HexFormat.of().parseHex(hex.replace(" ", ""));
        if (bytes.length >= 18 && MessageDecoder.length(bytes) <= 4096) {
            // make the length field match, so that the check under test is the one that fails
            int length = bytes.length;
            if (!what.startsWith("KEEPALIVE") && !what.startsWith("length")) {
                bytes[16] = (byte) (length >> 8);
                bytes[17] = (byte) length;
            }
        }

        Decoded decoded = MessageDecoder.decode(bytes, true);

        assertThat(decoded)
                .isInstanceOfSatisfying(
                        Decoded.Invalid.class,
                        invalid -> assertThat(invalid.notification().describe())
                                .as(invalid.reason())
                                .isEqualTo(expected));
    }
}
