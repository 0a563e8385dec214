package io.lbk8s.net.frame;

import static io.lbk8s.net.frame.Fixtures.MAC_A;
import static io.lbk8s.net.frame.Fixtures.MAC_A_CHANGED;
import static io.lbk8s.net.frame.Fixtures.MAC_B;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.lbk8s.address.IpAddress;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NdpPacketTest {

    static final IpAddress FD99_1 = ip("fd99::1");
    static final IpAddress FD99_2 = ip("fd99::2");

    @Test
    void decodesNdisc6sSolicitation() {
        var ns = NdpPacket.decodeSolicitation(Fixtures.segment(Fixtures.NS_NDISC6), 86)
                .orElseThrow();
        assertThat(ns)
                .isEqualTo(new NdpPacket.NeighborSolicitation(
                        MacAddress.solicitedNodeMulticast(FD99_1),
                        MAC_B,
                        FD99_2,
                        ip("ff02::1:ff00:1"),
                        255,
                        FD99_1,
                        Optional.of(MAC_B)));
        assertThat(ns.isDuplicateAddressDetection()).isFalse();
    }

    @Test
    void decodesTheKernelsDuplicateAddressDetection() {
        var ns = NdpPacket.decodeSolicitation(Fixtures.segment(Fixtures.NS_DAD), 86)
                .orElseThrow();
        assertThat(ns.source()).hasToString("::");
        assertThat(ns.target()).hasToString("fe80::ff:fe00:b");
        assertThat(ns.destination()).hasToString("ff02::1:ff00:b");
        assertThat(ns.sourceLinkLayerAddress()).isEmpty(); // only a nonce option
        assertThat(ns.isDuplicateAddressDetection()).isTrue();
    }

    @Test
    void ourSolicitedAdvertisementInPlaceIsByteForByteTheKernels() {
        MemorySegment out = MemorySegment.ofArray(new byte[128]);
        int length = NdpPacket.encodeSolicitedAdvertisement(out, Fixtures.segment(Fixtures.NS_NDISC6), MAC_A);
        assertThat(Fixtures.hex(out, length)).isEqualTo(Fixtures.hex(Fixtures.bytes(Fixtures.NA_KERNEL)));
    }

    @Test
    void ourSolicitedAdvertisementFromTheRecordIsByteForByteTheKernels() {
        var ns = NdpPacket.decodeSolicitation(Fixtures.segment(Fixtures.NS_NDISC6), 86)
                .orElseThrow();
        MemorySegment out = MemorySegment.ofArray(new byte[86]);
        NdpPacket.encodeSolicitedAdvertisement(out, ns, MAC_A);
        assertThat(out.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(Fixtures.bytes(Fixtures.NA_KERNEL));
    }

    @Test
    void ourUnsolicitedAdvertisementIsByteForByteTheKernels() {
        MemorySegment out = MemorySegment.ofArray(new byte[86]);
        int length = NdpPacket.encodeUnsolicitedAdvertisement(out, FD99_1, MAC_A_CHANGED);
        assertThat(Fixtures.hex(out, length)).isEqualTo(Fixtures.hex(Fixtures.bytes(Fixtures.NA_UNSOLICITED_KERNEL)));
    }

    @Test
    void withoutLinkLayerOptionTheAnswerGoesToTheEthernetSource() {
        byte[] ns = withoutSourceLinkLayerOption(Fixtures.bytes(Fixtures.NS_NDISC6));
        ns[6 + 5] = 0x0d; // Ethernet source 02:00:00:00:00:0d, so that it differs from the (absent) option
        MemorySegment frame = MemorySegment.ofArray(ns);
        assertThat(NdpPacket.checkSolicitation(frame, ns.length)).isEqualTo(NdpPacket.Verdict.OK);
        assertThat(NdpPacket.sourceLinkLayerAddress(frame)).isEqualTo(-1);
        MemorySegment out = MemorySegment.ofArray(new byte[86]);
        NdpPacket.encodeSolicitedAdvertisement(out, frame, MAC_A);
        var na = out.toArray(ValueLayout.JAVA_BYTE);
        assertThat(MacAddress.ofBytes(na, 0)).hasToString("02:00:00:00:00:0d");
        assertThat(Icmpv6Checksum.verify(out, 14)).isTrue();
    }

    @Test
    void duplicateAddressDetectionIsAnsweredToAllNodesWithoutSolicitedFlag() {
        MemorySegment out = MemorySegment.ofArray(new byte[86]);
        NdpPacket.encodeSolicitedAdvertisement(out, Fixtures.segment(Fixtures.NS_DAD), MAC_A);
        byte[] na = out.toArray(ValueLayout.JAVA_BYTE);
        assertThat(MacAddress.ofBytes(na, 0)).isEqualTo(MacAddress.ALL_NODES);
        assertThat(IpAddress.ofBytes(Arrays.copyOfRange(na, 38, 54))).hasToString("ff02::1");
        assertThat(IpAddress.ofBytes(Arrays.copyOfRange(na, 22, 38))).hasToString("fe80::ff:fe00:b");
        assertThat(na[58] & 0xff).isEqualTo(0x20); // Override only
        assertThat(na[21] & 0xff).isEqualTo(255);
        assertThat(Icmpv6Checksum.verify(out, 14)).isTrue();
    }

    /**
     * Our duplicate address detection probe is the kernel's own (for fe80::ff:fe00:b from 02:00:00:00:00:0b) without
     * the nonce option the kernel adds: same addresses, hop limit, type, target, and a checksum of its own.
     */
    @Test
    void ourDuplicateAddressProbeIsTheKernelsWithoutItsNonce() {
        byte[] kernel = Arrays.copyOf(Fixtures.bytes(Fixtures.NS_DAD), NdpPacket.DUPLICATE_ADDRESS_PROBE_LENGTH);
        kernel[19] = 24; // payload length without the 8-byte nonce option
        Icmpv6Checksum.fill(MemorySegment.ofArray(kernel), 14);
        MemorySegment out = MemorySegment.ofArray(new byte[128]);
        int length = NdpPacket.encodeDuplicateAddressProbe(out, ip("fe80::ff:fe00:b"), MAC_B);
        assertThat(Fixtures.hex(out, length)).isEqualTo(Fixtures.hex(kernel));
        var decoded = NdpPacket.decodeSolicitation(out, length).orElseThrow();
        assertThat(decoded.isDuplicateAddressDetection()).isTrue();
        assertThat(decoded.sourceLinkLayerAddress()).isEmpty();
    }

    @Test
    void theKernelsAdvertisementsAreValidAndNameTheirTargetsMac() {
        for (String fixture : new String[] {Fixtures.NA_KERNEL, Fixtures.NA_UNSOLICITED_KERNEL}) {
            MemorySegment frame = Fixtures.segment(fixture);
            assertThat(NdpPacket.checkAdvertisement(frame, 86)).as(fixture).isEqualTo(NdpPacket.Verdict.OK);
            assertThat(NdpPacket.targetHigh(frame)).isEqualTo(FD99_1.high());
            assertThat(NdpPacket.targetLow(frame)).isEqualTo(FD99_1.low());
        }
        assertThat(new MacAddress(NdpPacket.targetLinkLayerAddress(Fixtures.segment(Fixtures.NA_KERNEL))))
                .isEqualTo(MAC_A);
        assertThat(new MacAddress(NdpPacket.targetLinkLayerAddress(Fixtures.segment(Fixtures.NA_UNSOLICITED_KERNEL))))
                .isEqualTo(MAC_A_CHANGED);
        assertThat(NdpPacket.sourceLinkLayerAddress(Fixtures.segment(Fixtures.NA_KERNEL)))
                .isEqualTo(-1);
    }

    static Stream<Arguments> notValidAdvertisements() {
        return Stream.of(
                argumentSet(
                        "a solicitation",
                        Fixtures.bytes(Fixtures.NS_NDISC6),
                        NdpPacket.Verdict.NOT_NEIGHBOR_ADVERTISEMENT),
                argumentSet("hop limit 64", advertisement(f -> f[21] = 64), NdpPacket.Verdict.HOP_LIMIT_NOT_255),
                argumentSet("wrong checksum", badChecksum(), NdpPacket.Verdict.BAD_CHECKSUM),
                argumentSet(
                        "solicited flag on one to ff02::1",
                        solicitedToAllNodes(),
                        NdpPacket.Verdict.SOLICITED_TO_MULTICAST),
                argumentSet("option length 0", advertisement(f -> f[79] = 0), NdpPacket.Verdict.BAD_OPTION_LENGTH),
                argumentSet(
                        "truncated",
                        Arrays.copyOf(Fixtures.bytes(Fixtures.NA_KERNEL), 70),
                        NdpPacket.Verdict.BAD_PAYLOAD_LENGTH));
    }

    @ParameterizedTest
    @MethodSource("notValidAdvertisements")
    void advertisementsThatAreNotValidAreRefused(byte[] frame, NdpPacket.Verdict expected) {
        assertThat(NdpPacket.checkAdvertisement(MemorySegment.ofArray(frame), frame.length))
                .isEqualTo(expected);
    }

    private static byte[] advertisement(Consumer<byte[]> change) {
        byte[] frame = Fixtures.bytes(Fixtures.NA_KERNEL);
        change.accept(frame);
        Icmpv6Checksum.fill(MemorySegment.ofArray(frame), 14);
        return frame;
    }

    private static byte[] badChecksum() {
        byte[] frame = Fixtures.bytes(Fixtures.NA_KERNEL);
        frame[57] ^= 1;
        return frame;
    }

    private static byte[] solicitedToAllNodes() {
        byte[] frame = Fixtures.bytes(Fixtures.NA_UNSOLICITED_KERNEL);
        frame[58] |= 0x40; // Solicited, on an advertisement to ff02::1
        Icmpv6Checksum.fill(MemorySegment.ofArray(frame), 14);
        return frame;
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                argumentSet("empty", cut(0), NdpPacket.Verdict.TOO_SHORT),
                argumentSet("truncated to 57 bytes", cut(57), NdpPacket.Verdict.TOO_SHORT),
                argumentSet("truncated to 77 bytes", cut(77), NdpPacket.Verdict.BAD_PAYLOAD_LENGTH),
                argumentSet(
                        "truncated option: payload length says more than the frame has",
                        cut(80),
                        NdpPacket.Verdict.BAD_PAYLOAD_LENGTH),
                argumentSet("an ARP frame", Fixtures.bytes(Fixtures.ARP_REQUEST), NdpPacket.Verdict.TOO_SHORT),
                argumentSet(
                        "ethertype ARP on an NS body",
                        edit(f -> {
                            f[12] = 8;
                            f[13] = 6;
                        }),
                        NdpPacket.Verdict.NOT_IPV6),
                argumentSet("IP version 4 in the header", edit(f -> f[14] = 0x40), NdpPacket.Verdict.NOT_IPV6),
                argumentSet("next header UDP", edit(f -> f[20] = 17), NdpPacket.Verdict.NOT_ICMPV6),
                argumentSet("next header hop-by-hop options", edit(f -> f[20] = 0), NdpPacket.Verdict.NOT_ICMPV6),
                argumentSet("payload length below 24", resum(f -> f[19] = 16), NdpPacket.Verdict.BAD_PAYLOAD_LENGTH),
                argumentSet("hop limit 64", edit(f -> f[21] = 64), NdpPacket.Verdict.HOP_LIMIT_NOT_255),
                argumentSet("hop limit 254", edit(f -> f[21] = (byte) 254), NdpPacket.Verdict.HOP_LIMIT_NOT_255),
                argumentSet(
                        "router solicitation (type 133)",
                        Fixtures.bytes(Fixtures.RS_KERNEL),
                        NdpPacket.Verdict.NOT_NEIGHBOR_SOLICITATION),
                argumentSet(
                        "the kernel's advertisement (type 136)",
                        Fixtures.bytes(Fixtures.NA_KERNEL),
                        NdpPacket.Verdict.NOT_NEIGHBOR_SOLICITATION),
                argumentSet("code 1", resum(f -> f[55] = 1), NdpPacket.Verdict.BAD_CODE),
                argumentSet("wrong checksum", edit(f -> f[57] ^= 1), NdpPacket.Verdict.BAD_CHECKSUM),
                argumentSet("option length 0", resum(f -> f[79] = 0), NdpPacket.Verdict.BAD_OPTION_LENGTH),
                argumentSet(
                        "option length 2 beyond the message",
                        resum(f -> f[79] = 2),
                        NdpPacket.Verdict.BAD_OPTION_LENGTH),
                argumentSet("a one-byte option stub", resum(f -> f[19] = 25, 79), NdpPacket.Verdict.BAD_OPTION_LENGTH),
                argumentSet("multicast target", resum(f -> f[62] = (byte) 0xff), NdpPacket.Verdict.MULTICAST_TARGET),
                argumentSet(
                        "unspecified source with a link-layer option",
                        resum(f -> Arrays.fill(f, 22, 38, (byte) 0)),
                        NdpPacket.Verdict.UNSPECIFIED_SOURCE_WITH_LINK_LAYER_OPTION),
                argumentSet(
                        "DAD to a unicast destination",
                        dadToUnicast(),
                        NdpPacket.Verdict.UNSPECIFIED_SOURCE_NOT_TO_SOLICITED_NODE));
    }

    @ParameterizedTest
    @MethodSource("malformed")
    void malformedFramesAreRefusedWithoutExceptions(byte[] frame, NdpPacket.Verdict expected) {
        MemorySegment segment = MemorySegment.ofArray(frame);
        assertThat(NdpPacket.checkSolicitation(segment, frame.length)).isEqualTo(expected);
        assertThat(NdpPacket.decodeSolicitation(segment, frame.length)).isEmpty();
    }

    private static byte[] cut(int length) {
        return Arrays.copyOf(Fixtures.bytes(Fixtures.NS_NDISC6), length);
    }

    private static byte[] edit(Consumer<byte[]> change) {
        byte[] frame = Fixtures.bytes(Fixtures.NS_NDISC6);
        change.accept(frame);
        return frame;
    }

    /** An edit followed by a correct checksum, so that the check under test is the one that fails. */
    private static byte[] resum(Consumer<byte[]> change) {
        return resum(change, 86);
    }

    private static byte[] resum(Consumer<byte[]> change, int frameLength) {
        byte[] frame = Arrays.copyOf(Fixtures.bytes(Fixtures.NS_NDISC6), frameLength);
        change.accept(frame);
        Icmpv6Checksum.fill(MemorySegment.ofArray(frame), 14);
        return frame;
    }

    private static byte[] withoutSourceLinkLayerOption(byte[] ns) {
        byte[] frame = Arrays.copyOf(ns, 78);
        frame[19] = 24;
        Icmpv6Checksum.fill(MemorySegment.ofArray(frame), 14);
        return frame;
    }

    private static byte[] dadToUnicast() {
        byte[] frame = withoutSourceLinkLayerOption(Fixtures.bytes(Fixtures.NS_NDISC6));
        Arrays.fill(frame, 22, 38, (byte) 0);
        System.arraycopy(Fixtures.bytes(Fixtures.NS_NDISC6), 62, frame, 38, 16); // destination = the target itself
        Icmpv6Checksum.fill(MemorySegment.ofArray(frame), 14);
        return frame;
    }

    private static IpAddress ip(String text) {
        return IpAddress.parse(text).orElseThrow();
    }
}
