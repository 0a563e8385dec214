package io.lbk8s.net.frame;

import static io.lbk8s.net.frame.Fixtures.MAC_A;
import static io.lbk8s.net.frame.Fixtures.MAC_B;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.lbk8s.address.IpAddress;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ArpPacketTest {

    static final IpAddress IP_A = ip("198.18.99.1");
    static final IpAddress IP_B = ip("198.18.99.2");

    @Test
    void decodesArpingsRequest() {
        ArpPacket request =
                ArpPacket.decode(Fixtures.segment(Fixtures.ARP_REQUEST), 42).orElseThrow();
        assertThat(request)
                .isEqualTo(new ArpPacket(
                        MacAddress.BROADCAST, MAC_B, ArpPacket.REQUEST, MAC_B, IP_B, MacAddress.BROADCAST, IP_A));
        assertThat(ArpPacket.checkRequest(Fixtures.segment(Fixtures.ARP_REQUEST), 42))
                .isEqualTo(ArpPacket.Verdict.OK);
    }

    @Test
    void decodesTheKernelsReply() {
        ArpPacket reply = ArpPacket.decode(Fixtures.segment(Fixtures.ARP_REPLY_KERNEL), 42)
                .orElseThrow();
        assertThat(reply).isEqualTo(new ArpPacket(MAC_B, MAC_A, ArpPacket.REPLY, MAC_A, IP_A, MAC_B, IP_B));
    }

    @Test
    void decodesGratuitousFramesOfArping() {
        assertThat(ArpPacket.decode(Fixtures.segment(Fixtures.ARP_GRATUITOUS_REQUEST), 42)
                        .orElseThrow())
                .isEqualTo(new ArpPacket(MacAddress.BROADCAST, MAC_B, 1, MAC_B, IP_B, MacAddress.BROADCAST, IP_B));
        assertThat(ArpPacket.decode(Fixtures.segment(Fixtures.ARP_GRATUITOUS_REPLY), 42)
                        .orElseThrow())
                .isEqualTo(new ArpPacket(MacAddress.BROADCAST, MAC_B, 2, MAC_B, IP_B, MAC_B, IP_B));
    }

    /** RFC 5227 2.1.1: sender IP 0.0.0.0 so that nobody's cache takes it in, target MAC 0, broadcast. */
    @Test
    void anArpProbeAsksForTheAddressWithoutClaimingAny() {
        MemorySegment out = MemorySegment.ofArray(new byte[42]);
        assertThat(ArpPacket.encodeProbe(out, MAC_B, IP_A)).isEqualTo(42);
        assertThat(ArpPacket.decode(out, 42).orElseThrow())
                .isEqualTo(new ArpPacket(
                        MacAddress.BROADCAST, MAC_B, ArpPacket.REQUEST, MAC_B, ip("0.0.0.0"), MacAddress.ZERO, IP_A));
    }

    @Test
    void ourReplyInPlaceIsByteForByteTheKernels() {
        MemorySegment out = MemorySegment.ofArray(new byte[64]);
        int length = ArpPacket.encodeReply(out, Fixtures.segment(Fixtures.ARP_REQUEST), MAC_A);
        assertThat(Fixtures.hex(out, length)).isEqualTo(Fixtures.hex(Fixtures.bytes(Fixtures.ARP_REPLY_KERNEL)));
    }

    @Test
    void ourReplyFromTheRecordIsByteForByteTheKernels() {
        ArpPacket request =
                ArpPacket.decode(Fixtures.segment(Fixtures.ARP_REQUEST), 42).orElseThrow();
        MemorySegment out = MemorySegment.ofArray(new byte[42]);
        ArpPacket.encodeReply(out, request, MAC_A);
        assertThat(out.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                .isEqualTo(Fixtures.bytes(Fixtures.ARP_REPLY_KERNEL));
    }

    @Test
    void gratuitousReplyIsExactlyArpingsDashA() {
        MemorySegment out = MemorySegment.ofArray(new byte[42]);
        ArpPacket.encodeGratuitousReply(out, MAC_B, IP_B);
        assertThat(Fixtures.hex(out, 42)).isEqualTo(Fixtures.hex(Fixtures.bytes(Fixtures.ARP_GRATUITOUS_REPLY)));
    }

    /** MetalLB writes target MAC 00:00:00:00:00:00 where iputils' arping -U writes ff:ff:ff:ff:ff:ff (bytes 32-37). */
    @Test
    void gratuitousRequestIsArpingsDashUExceptTheTargetMac() {
        byte[] ours = new byte[42];
        ArpPacket.encodeGratuitousRequest(MemorySegment.ofArray(ours), MAC_B, IP_B);
        byte[] arping = Fixtures.bytes(Fixtures.ARP_GRATUITOUS_REQUEST);
        assertThat(Arrays.copyOfRange(ours, 32, 38)).containsOnly(0);
        assertThat(Arrays.copyOfRange(arping, 32, 38)).containsOnly(0xff);
        Arrays.fill(arping, 32, 38, (byte) 0);
        assertThat(Fixtures.hex(ours)).isEqualTo(Fixtures.hex(arping));
    }

    @Test
    void plainRequestMatchesArpingsRequestExceptTheTargetMac() {
        byte[] ours = new byte[42];
        ArpPacket.encodeRequest(MemorySegment.ofArray(ours), MAC_B, IP_B, IP_A);
        byte[] arping = Fixtures.bytes(Fixtures.ARP_REQUEST);
        Arrays.fill(arping, 32, 38, (byte) 0);
        assertThat(Fixtures.hex(ours)).isEqualTo(Fixtures.hex(arping));
    }

    @Test
    void inPlaceAccessorsReadTheFields() {
        MemorySegment request = Fixtures.segment(Fixtures.ARP_REQUEST);
        assertThat(ArpPacket.ethernetDestination(request)).isEqualTo(MacAddress.BROADCAST.bits());
        assertThat(ArpPacket.senderMac(request)).isEqualTo(MAC_B.bits());
        assertThat(ArpPacket.senderIpv4(request)).isEqualTo((int) IP_B.low());
        assertThat(ArpPacket.targetIpv4(request)).isEqualTo((int) IP_A.low());
        assertThat(ArpPacket.operation(request)).isEqualTo(1);
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                argumentSet("empty", cut(0), ArpPacket.Verdict.TOO_SHORT),
                argumentSet("truncated to 41 bytes", cut(41), ArpPacket.Verdict.TOO_SHORT),
                argumentSet("Ethernet header only", cut(14), ArpPacket.Verdict.TOO_SHORT),
                argumentSet(
                        "ethertype IPv4",
                        edit(f -> {
                            f[12] = 0x08;
                            f[13] = 0x00;
                        }),
                        ArpPacket.Verdict.NOT_ARP),
                argumentSet(
                        "ethertype IPv6 (signed short 0x86DD)",
                        edit(f -> {
                            f[12] = (byte) 0x86;
                            f[13] = (byte) 0xdd;
                        }),
                        ArpPacket.Verdict.NOT_ARP),
                argumentSet("hardware type 6 (IEEE 802)", edit(f -> f[15] = 6), ArpPacket.Verdict.NOT_ETHERNET),
                argumentSet("hardware length 8", edit(f -> f[18] = 8), ArpPacket.Verdict.NOT_ETHERNET),
                argumentSet(
                        "protocol type IPv6",
                        edit(f -> {
                            f[16] = (byte) 0x86;
                            f[17] = (byte) 0xdd;
                        }),
                        ArpPacket.Verdict.NOT_IPV4),
                argumentSet("protocol length 16", edit(f -> f[19] = 16), ArpPacket.Verdict.NOT_IPV4),
                argumentSet("operation 3 (RARP)", edit(f -> f[21] = 3), ArpPacket.Verdict.UNKNOWN_OPERATION),
                argumentSet("operation 0x0101", edit(f -> f[20] = 1), ArpPacket.Verdict.UNKNOWN_OPERATION),
                argumentSet(
                        "a reply, not a request",
                        Fixtures.bytes(Fixtures.ARP_REPLY_KERNEL),
                        ArpPacket.Verdict.NOT_A_REQUEST),
                argumentSet("an NDP frame", Fixtures.bytes(Fixtures.NS_NDISC6), ArpPacket.Verdict.NOT_ARP));
    }

    @ParameterizedTest
    @MethodSource("malformed")
    void malformedFramesAreRefusedWithoutExceptions(byte[] frame, ArpPacket.Verdict expected) {
        MemorySegment segment = MemorySegment.ofArray(frame);
        assertThat(ArpPacket.checkRequest(segment, frame.length)).isEqualTo(expected);
        if (expected != ArpPacket.Verdict.NOT_A_REQUEST) {
            assertThat(ArpPacket.decode(segment, frame.length)).isEmpty();
        }
    }

    @Test
    void aLengthBeyondTheBufferIsTooShortNotAnException() {
        MemorySegment segment = MemorySegment.ofArray(Arrays.copyOf(Fixtures.bytes(Fixtures.ARP_REQUEST), 30));
        assertThat(ArpPacket.check(segment, 42)).isEqualTo(ArpPacket.Verdict.TOO_SHORT);
        assertThat(ArpPacket.check(segment, -1)).isEqualTo(ArpPacket.Verdict.TOO_SHORT);
    }

    @Test
    void trailingPaddingIsAccepted() {
        byte[] padded = Arrays.copyOf(Fixtures.bytes(Fixtures.ARP_REQUEST), 60);
        assertThat(ArpPacket.checkRequest(MemorySegment.ofArray(padded), 60)).isEqualTo(ArpPacket.Verdict.OK);
    }

    private static byte[] cut(int length) {
        return Arrays.copyOf(Fixtures.bytes(Fixtures.ARP_REQUEST), length);
    }

    private static byte[] edit(Consumer<byte[]> change) {
        byte[] frame = Fixtures.bytes(Fixtures.ARP_REQUEST);
        change.accept(frame);
        return frame;
    }

    private static IpAddress ip(String text) {
        return IpAddress.parse(text).orElseThrow();
    }
}
