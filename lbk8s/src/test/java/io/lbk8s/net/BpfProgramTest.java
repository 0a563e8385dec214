package io.lbk8s.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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
        assertThat(ClassicBpf.run(BpfProgram.arpRequests(), Arrays.copyOf(Fixtures.bytes(Fixtures.ARP_REQUEST), 21))).isZero();
        assertThat(ClassicBpf.run(BpfProgram.neighborSolicitations(), Arrays.copyOf(Fixtures.bytes(Fixtures.NS_NDISC6), 54))).isZero();
        assertThat(ClassicBpf.run(BpfProgram.arpRequests(), new byte[0])).isZero();
    }

    @Test
    void acceptAllKeepsEverything() {
        for (String fixture : Fixtures.ALL) {
            assertThat(ClassicBpf.run(BpfProgram.acceptAll(), Fixtures.bytes(fixture))).isEqualTo(Fixtures.bytes(fixture).length);
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
        assertThat(ClassicBpf.run(BpfProgram.arpRequestsFor(new int[] {target}), request)).isEqualTo(request.length);
        assertThat(ClassicBpf.run(BpfProgram.arpRequestsFor(new int[] {target + 1}), request)).isZero();
        assertThat(ClassicBpf.run(BpfProgram.arpRequestsFor(new int[0]), request)).as("nothing announced").isZero();
        assertThat(ClassicBpf.run(BpfProgram.arpRequestsFor(new int[] {target, target}), request)).as("duplicates")
                .isEqualTo(request.length);
        byte[] reply = Fixtures.bytes(Fixtures.ARP_REPLY_KERNEL);
        assertThat(ClassicBpf.run(BpfProgram.arpRequestsFor(new int[] {word(reply, ARP_TARGET), word(reply, 28)}), reply))
                .as("a reply, whatever its addresses").isZero();
        byte[] solicitation = Fixtures.bytes(Fixtures.NS_NDISC6);
        assertThat(ClassicBpf.run(BpfProgram.arpRequestsFor(new int[] {word(solicitation, ARP_TARGET)}), solicitation))
                .as("not ARP").isZero();
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
            assertThat(ClassicBpf.run(program, withWord(request, ARP_TARGET, targets[i]))).as("target #" + i).isEqualTo(request.length);
            assertThat(ClassicBpf.run(program, withWord(request, ARP_TARGET, targets[i] + 1))).as("beside target #" + i).isZero();
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
        assertThat(ClassicBpf.run(BpfProgram.neighborSolicitationsFor(new int[] {7, low}), solicitation)).isEqualTo(solicitation.length);
        assertThat(ClassicBpf.run(BpfProgram.neighborSolicitationsFor(new int[] {low ^ 1}), solicitation)).isZero();
        assertThat(ClassicBpf.run(BpfProgram.neighborSolicitationsFor(new int[0]), solicitation)).isZero();
        byte[] hop64 = solicitation.clone();
        hop64[21] = 64;
        assertThat(ClassicBpf.run(BpfProgram.neighborSolicitationsFor(new int[] {low}), hop64)).as("hop limit 64").isZero();
        byte[] advertisement = Fixtures.bytes(Fixtures.NA_KERNEL);
        assertThat(ClassicBpf.run(BpfProgram.neighborSolicitationsFor(new int[] {word(advertisement, NS_TARGET_LOW_WORD)}),
                advertisement)).as("an advertisement").isZero();
        assertThat(BpfProgram.neighborSolicitationsFor(IntStream.range(0, BpfProgram.MAX_TARGETS + 1).toArray()))
                .isEqualTo(BpfProgram.neighborSolicitations());
    }

    private static int word(byte[] frame, int offset) {
        return ((frame[offset] & 0xff) << 24) | ((frame[offset + 1] & 0xff) << 16) | ((frame[offset + 2] & 0xff) << 8)
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
