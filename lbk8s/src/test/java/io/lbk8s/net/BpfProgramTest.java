package io.lbk8s.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.Test;

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
}
