package io.lbk8s.net.bpf;

import static io.lbk8s.net.frame.Fixtures.MAC_A;
import static io.lbk8s.net.frame.Fixtures.MAC_B;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.frame.ArpPacket;
import io.lbk8s.net.frame.Fixtures;
import io.lbk8s.net.frame.NdpPacket;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class BpfProgramTest {

    @Test
    void arpRequestFilterKeepsRequestsOnly() {
        assertAccepts(BpfProgram.arpRequests(), Set.of(Fixtures.ARP_REQUEST, Fixtures.ARP_GRATUITOUS_REQUEST));
    }

    @Test
    void arpReplyFilterKeepsRepliesOnly() {
        assertAccepts(BpfProgram.arpReplies(), Set.of(Fixtures.ARP_REPLY_KERNEL, Fixtures.ARP_GRATUITOUS_REPLY));
    }

    @Test
    void neighborSolicitationFilterKeepsSolicitationsOnly() {
        assertAccepts(BpfProgram.neighborSolicitations(), Set.of(Fixtures.NS_NDISC6, Fixtures.NS_DAD));
    }

    @Test
    void solicitationWithHopLimit64IsDroppedInTheKernel() {
        byte[] frame = Fixtures.bytes(Fixtures.NS_NDISC6);
        frame[21] = 64;
        assertThat(ClassicBpf.run(BpfProgram.neighborSolicitations(), frame)).isZero();
    }

    @Test
    void framesTooShortToLoadFromAreDropped() {
        assertThat(ClassicBpf.run(BpfProgram.arpRequests(), Arrays.copyOf(Fixtures.bytes(Fixtures.ARP_REQUEST), 21)))
                .isZero();
        assertThat(ClassicBpf.run(
                        BpfProgram.neighborSolicitations(), Arrays.copyOf(Fixtures.bytes(Fixtures.NS_NDISC6), 54)))
                .isZero();
        assertThat(ClassicBpf.run(BpfProgram.arpRequests(), new byte[0])).isZero();
    }

    @Test
    void acceptAllKeepsEverything() {
        for (String fixture : Fixtures.ALL) {
            assertThat(ClassicBpf.run(BpfProgram.acceptAll(), Fixtures.bytes(fixture)))
                    .isEqualTo(Fixtures.bytes(fixture).length);
        }
    }

    private static void assertAccepts(BpfProgram program, Set<String> accepted) {
        for (String fixture : Fixtures.ALL) {
            byte[] frame = Fixtures.bytes(fixture);
            int kept = ClassicBpf.run(program, frame);
            if (accepted.contains(fixture)) {
                assertThat(kept).as(fixture).isEqualTo(frame.length);
            } else {
                assertThat(kept).as(fixture).isZero();
            }
        }
    }

    private static final int ARP_TARGET = 38;
    private static final int NS_TARGET_LOW_WORD = 74;

    @Test
    void arpFilterByTargetKeepsOnlyRequestsForTheTargets() {
        byte[] request = Fixtures.bytes(Fixtures.ARP_REQUEST);
        int target = word(request, ARP_TARGET);
        assertThat(ClassicBpf.run(BpfProgram.arpRequestsFor(new int[] {target}), request))
                .isEqualTo(request.length);
        assertThat(ClassicBpf.run(BpfProgram.arpRequestsFor(new int[] {target + 1}), request))
                .isZero();
        assertThat(ClassicBpf.run(BpfProgram.arpRequestsFor(new int[0]), request))
                .as("nothing announced")
                .isZero();
        assertThat(ClassicBpf.run(BpfProgram.arpRequestsFor(new int[] {target, target}), request))
                .as("duplicates")
                .isEqualTo(request.length);
        byte[] reply = Fixtures.bytes(Fixtures.ARP_REPLY_KERNEL);
        assertThat(ClassicBpf.run(
                        BpfProgram.arpRequestsFor(new int[] {word(reply, ARP_TARGET), word(reply, 28)}), reply))
                .as("a reply, whatever its addresses")
                .isZero();
        byte[] solicitation = Fixtures.bytes(Fixtures.NS_NDISC6);
        assertThat(ClassicBpf.run(BpfProgram.arpRequestsFor(new int[] {word(solicitation, ARP_TARGET)}), solicitation))
                .as("not ARP")
                .isZero();
    }

    /** Targets are compared in blocks of 250 jumps; every position of every block must accept, others must not. */
    @ParameterizedTest(name = "{0} targets")
    @CsvSource({"1", "249", "250", "251", "500", "501", "1234", "3500"})
    void arpFilterAcceptsEveryTargetOfALongList(int count) {
        byte[] request = Fixtures.bytes(Fixtures.ARP_REQUEST);
        int[] targets = IntStream.range(0, count).map(i -> 0xc612_0000 + 3 * i).toArray();
        BpfProgram program = BpfProgram.arpRequestsFor(targets);
        assertThat(program.instructions()).hasSizeLessThanOrEqualTo(4096);
        for (int i = 0; i < count; i++) {
            assertThat(ClassicBpf.run(program, withWord(request, ARP_TARGET, targets[i])))
                    .as("target #" + i)
                    .isEqualTo(request.length);
            assertThat(ClassicBpf.run(program, withWord(request, ARP_TARGET, targets[i] + 1)))
                    .as("beside target #" + i)
                    .isZero();
        }
    }

    @Test
    void tooManyArpTargetsFallBackToEveryRequest() {
        int[] targets = IntStream.range(0, BpfProgram.MAX_TARGETS + 1).toArray();
        assertThat(BpfProgram.arpRequestsFor(targets)).isEqualTo(BpfProgram.arpRequests());
    }

    @Test
    void ndpFilterByTargetComparesTheTargetsLastWord() {
        byte[] solicitation = Fixtures.bytes(Fixtures.NS_NDISC6);
        int low = word(solicitation, NS_TARGET_LOW_WORD);
        assertThat(ClassicBpf.run(BpfProgram.neighborSolicitationsFor(new int[] {7, low}), solicitation))
                .isEqualTo(solicitation.length);
        assertThat(ClassicBpf.run(BpfProgram.neighborSolicitationsFor(new int[] {low ^ 1}), solicitation))
                .isZero();
        assertThat(ClassicBpf.run(BpfProgram.neighborSolicitationsFor(new int[0]), solicitation))
                .isZero();
        byte[] hop64 = solicitation.clone();
        hop64[21] = 64;
        assertThat(ClassicBpf.run(BpfProgram.neighborSolicitationsFor(new int[] {low}), hop64))
                .as("hop limit 64")
                .isZero();
        byte[] advertisement = Fixtures.bytes(Fixtures.NA_KERNEL);
        assertThat(ClassicBpf.run(
                        BpfProgram.neighborSolicitationsFor(new int[] {word(advertisement, NS_TARGET_LOW_WORD)}),
                        advertisement))
                .as("an advertisement")
                .isZero();
        assertThat(BpfProgram.neighborSolicitationsFor(
                        IntStream.range(0, BpfProgram.MAX_TARGETS + 1).toArray()))
                .isEqualTo(BpfProgram.neighborSolicitations());
    }

    static final IpAddress IP_A = IpAddress.parse("198.18.99.1").orElseThrow();
    static final IpAddress IP_B = IpAddress.parse("198.18.99.2").orElseThrow();
    static final IpAddress IP_OTHER = IpAddress.parse("198.18.99.7").orElseThrow();
    static final IpAddress FD99_1 = IpAddress.parse("fd99::1").orElseThrow();

    /** Frames about 198.18.99.1 and fd99::1 (or not), and whether a probe for those two must hear them. */
    static Stream<Arguments> claims() {
        return Stream.of(
                argumentSet("the kernel's ARP reply from .1", Fixtures.bytes(Fixtures.ARP_REPLY_KERNEL), true),
                argumentSet(
                        "a gratuitous ARP request for .1",
                        frame(f -> ArpPacket.encodeGratuitousRequest(f, MAC_A, IP_A)),
                        true),
                argumentSet(
                        "a gratuitous ARP reply for .1",
                        frame(f -> ArpPacket.encodeGratuitousReply(f, MAC_A, IP_A)),
                        true),
                argumentSet(
                        "an ARP request sent by .1", frame(f -> ArpPacket.encodeRequest(f, MAC_A, IP_A, IP_B)), true),
                argumentSet("another host's ARP probe for .1", frame(f -> ArpPacket.encodeProbe(f, MAC_B, IP_A)), true),
                argumentSet("arping asking who has .1", Fixtures.bytes(Fixtures.ARP_REQUEST), false),
                argumentSet("an ARP probe for .7", frame(f -> ArpPacket.encodeProbe(f, MAC_B, IP_OTHER)), false),
                argumentSet("a gratuitous ARP request for .2", Fixtures.bytes(Fixtures.ARP_GRATUITOUS_REQUEST), false),
                argumentSet(
                        "an ARP frame cut before the sender IP ends",
                        Arrays.copyOf(Fixtures.bytes(Fixtures.ARP_REPLY_KERNEL), 31),
                        false),
                argumentSet("the kernel's advertisement for fd99::1", Fixtures.bytes(Fixtures.NA_KERNEL), true),
                argumentSet(
                        "the kernel's unsolicited advertisement for fd99::1",
                        Fixtures.bytes(Fixtures.NA_UNSOLICITED_KERNEL),
                        true),
                argumentSet(
                        "another host's DAD probe for fd99::1",
                        frame(f -> NdpPacket.encodeDuplicateAddressProbe(f, FD99_1, MAC_B)),
                        true),
                argumentSet("ndisc6 asking for fd99::1 (not a DAD probe)", Fixtures.bytes(Fixtures.NS_NDISC6), false),
                argumentSet(
                        "the kernel's DAD probe for its link-local address", Fixtures.bytes(Fixtures.NS_DAD), false),
                argumentSet(
                        "a DAD probe for fd99::7",
                        frame(f -> NdpPacket.encodeDuplicateAddressProbe(
                                f, IpAddress.parse("fd99::7").orElseThrow(), MAC_B)),
                        false),
                argumentSet(
                        "an advertisement for fd99::1 with hop limit 64",
                        hopLimit64(Fixtures.bytes(Fixtures.NA_KERNEL)),
                        false),
                argumentSet("a router solicitation", Fixtures.bytes(Fixtures.RS_KERNEL), false));
    }

    @ParameterizedTest
    @MethodSource("claims")
    void probeFiltersLetInWhatClaimsTheProbedAddresses(byte[] frame, boolean claims) {
        int arp = ClassicBpf.run(BpfProgram.arpClaimsFor(new int[] {(int) IP_A.low()}), frame);
        int ndp = ClassicBpf.run(BpfProgram.neighborClaimsFor(new int[] {(int) FD99_1.low()}), frame);
        assertThat(arp + ndp).isEqualTo(claims ? frame.length : 0);
        assertThat(ClassicBpf.run(BpfProgram.arpClaimsFor(new int[0]), frame))
                .as("probing for nothing")
                .isZero();
        assertThat(ClassicBpf.run(BpfProgram.neighborClaimsFor(new int[0]), frame))
                .as("probing for nothing")
                .isZero();
    }

    @Test
    void theNeighborFilterComparesTheTargetsLastWordOnly() {
        byte[] dad = Fixtures.bytes(Fixtures.NS_DAD);
        assertThat(ClassicBpf.run(BpfProgram.neighborClaimsFor(new int[] {7, word(dad, NS_TARGET_LOW_WORD)}), dad))
                .as("the kernel's DAD, nonce option and all")
                .isEqualTo(dad.length);
    }

    /** Each address is compared twice (as sender, as a probe's target): every position must accept both ways. */
    @ParameterizedTest(name = "{0} addresses")
    @CsvSource({"1", "250", "251", "1750"})
    void arpClaimFilterAcceptsEveryAddressOfALongList(int count) {
        int[] addresses =
                IntStream.range(0, count).map(i -> 0xc612_0000 + 3 * i).toArray();
        BpfProgram program = BpfProgram.arpClaimsFor(addresses);
        assertThat(program.instructions()).hasSizeLessThanOrEqualTo(4096);
        for (int i = 0; i < count; i++) {
            IpAddress address = IpAddress.v4(addresses[i] & 0xffff_ffffL);
            IpAddress beside = IpAddress.v4((addresses[i] + 1) & 0xffff_ffffL);
            assertThat(ClassicBpf.run(program, frame(f -> ArpPacket.encodeGratuitousReply(f, MAC_A, address))))
                    .as("#" + i)
                    .isEqualTo(42);
            assertThat(ClassicBpf.run(program, frame(f -> ArpPacket.encodeProbe(f, MAC_B, address))))
                    .as("probe #" + i)
                    .isEqualTo(42);
            assertThat(ClassicBpf.run(program, frame(f -> ArpPacket.encodeGratuitousReply(f, MAC_A, beside))))
                    .as("beside #" + i)
                    .isZero();
            assertThat(ClassicBpf.run(program, frame(f -> ArpPacket.encodeProbe(f, MAC_B, beside))))
                    .as("probe beside #" + i)
                    .isZero();
        }
    }

    @Test
    void tooManyAddressesLetInEveryArpFrameOrEveryNeighborClaim() {
        BpfProgram arp = BpfProgram.arpClaimsFor(
                IntStream.range(0, BpfProgram.MAX_TARGETS / 2 + 1).toArray());
        assertThat(ClassicBpf.run(arp, Fixtures.bytes(Fixtures.ARP_REQUEST))).isEqualTo(42);
        assertThat(ClassicBpf.run(arp, Fixtures.bytes(Fixtures.NA_KERNEL))).isZero();
        BpfProgram ndp = BpfProgram.neighborClaimsFor(
                IntStream.range(0, BpfProgram.MAX_TARGETS + 1).toArray());
        assertThat(ClassicBpf.run(ndp, Fixtures.bytes(Fixtures.NA_KERNEL))).isEqualTo(86);
        assertThat(ClassicBpf.run(ndp, Fixtures.bytes(Fixtures.NS_DAD))).isEqualTo(86);
        assertThat(ClassicBpf.run(ndp, Fixtures.bytes(Fixtures.NS_NDISC6)))
                .as("still not a DAD probe")
                .isZero();
        assertThat(ClassicBpf.run(ndp, Fixtures.bytes(Fixtures.ARP_REQUEST))).isZero();
    }

    @Test
    void rejectAllRejectsEverything() {
        for (String fixture : Fixtures.ALL) {
            assertThat(ClassicBpf.run(BpfProgram.rejectAll(), Fixtures.bytes(fixture)))
                    .as(fixture)
                    .isZero();
        }
    }

    private static byte[] frame(java.util.function.ToIntFunction<MemorySegment> encoder) {
        MemorySegment out = MemorySegment.ofArray(new byte[128]);
        int length = encoder.applyAsInt(out);
        return Arrays.copyOf(out.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), length);
    }

    private static byte[] hopLimit64(byte[] frame) {
        frame[21] = 64;
        return frame;
    }

    private static int word(byte[] frame, int offset) {
        return ((frame[offset] & 0xff) << 24)
                | ((frame[offset + 1] & 0xff) << 16)
                | ((frame[offset + 2] & 0xff) << 8)
                | (frame[offset + 3] & 0xff);
    }

    private static byte[] withWord(byte[] frame, int offset, int value) {
        byte[] copy = frame.clone();
        copy[offset] = (byte) (value >>> 24);
        copy[offset + 1] = (byte) (value >>> 16);
        copy[offset + 2] = (byte) (value >>> 8);
        copy[offset + 3] = (byte) value;
        return copy;
    }
}
