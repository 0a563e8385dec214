package io.lbk8s.net;

import static io.lbk8s.net.frame.Fixtures.MAC_A;
import static io.lbk8s.net.frame.Fixtures.MAC_B;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.bpf.XdpArpProgram;
import io.lbk8s.net.frame.Fixtures;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.net.link.NativeIOException;
import io.lbk8s.net.link.RootRequired;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The XDP ARP program, run by the kernel itself (BPF_PROG_TEST_RUN) on frames captured from arping, as A
 * (02:00:00:00:00:0a) announcing 198.18.99.1: its reply must be the kernel's reply byte for byte, and every frame the
 * raw-socket responder would ignore must pass unchanged. Nothing is attached to any interface.
 */
class XdpArpProgramTest {

    static final IpAddress ANNOUNCED = IpAddress.parse("198.18.99.1").orElseThrow();
    static final LinkInfo A = new LinkInfo("a0", 1, MAC_A, true, false, Optional.empty(), List.of());

    XdpArpResponder program;
    AnnouncedSet announced;
    final Map<IpAddress, long[]> counts = new HashMap<>();
    final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void load() throws Exception {
        RootRequired.check();
        program = XdpArpResponder.loadDetached(A, Fence.unlimited());
        announced = set(ANNOUNCED);
        program.sync(AnnouncedSet.EMPTY, announced);
    }

    @AfterEach
    void close() throws Exception {
        if (program != null) {
            program.close();
        }
        for (AutoCloseable each : toClose.reversed()) {
            each.close();
        }
    }

    @Test
    void arpingsRequestBecomesTheKernelsReplyByteForByte() throws Exception {
        XdpArpResponder.Run run = program.run(Fixtures.bytes(Fixtures.ARP_REQUEST));
        assertThat(run.action()).isEqualTo(XdpArpProgram.XDP_TX);
        assertThat(Fixtures.hex(run.frame())).isEqualTo(Fixtures.hex(Fixtures.bytes(Fixtures.ARP_REPLY_KERNEL)));
    }

    @Test
    void aPaddedRequestIsAnsweredAndItsPaddingLeftAsItWas() throws Exception {
        byte[] padded = Arrays.copyOf(Fixtures.bytes(Fixtures.ARP_REQUEST), 60); // what a real NIC delivers
        XdpArpResponder.Run run = program.run(padded);
        assertThat(run.action()).isEqualTo(XdpArpProgram.XDP_TX);
        assertThat(Fixtures.hex(Arrays.copyOf(run.frame(), 42)))
                .isEqualTo(Fixtures.hex(Fixtures.bytes(Fixtures.ARP_REPLY_KERNEL)));
        assertThat(Arrays.copyOfRange(run.frame(), 42, 60)).containsOnly(0);
    }

    @Test
    void aRequestUnicastToOurMacIsAnswered() throws Exception {
        byte[] unicast = request(f -> put(f, 0, MAC_A.bytes()));
        XdpArpResponder.Run run = program.run(unicast);
        assertThat(run.action()).isEqualTo(XdpArpProgram.XDP_TX);
        assertThat(Fixtures.hex(run.frame())).isEqualTo(Fixtures.hex(Fixtures.bytes(Fixtures.ARP_REPLY_KERNEL)));
    }

    static List<Arguments> framesTheRawSocketResponderIgnores() {
        return List.of(
                Arguments.of(
                        "unicast to another MAC",
                        request(f ->
                                put(f, 0, MacAddress.parse("02:00:00:00:00:99").bytes()))),
                Arguments.of("sent by us (ethernet source and sender)", request(f -> {
                    put(f, 6, MAC_A.bytes());
                    put(f, 22, MAC_A.bytes());
                })),
                Arguments.of("sender MAC ours", request(f -> put(f, 22, MAC_A.bytes()))),
                Arguments.of("a target not announced", request(f -> f[41] = 7)),
                Arguments.of(
                        "another host's gratuitous request (sender IP = target IP)",
                        request(f -> System.arraycopy(f, 38, f, 28, 4))),
                Arguments.of("a reply, not a request", request(f -> f[21] = 2)),
                Arguments.of("opcode 0x0101", request(f -> f[20] = 1)),
                Arguments.of("IPv4 ethertype", request(f -> f[13] = 0)),
                Arguments.of("hardware type 6", request(f -> f[15] = 6)),
                Arguments.of("protocol IPv6", request(f -> {
                    f[16] = (byte) 0x86;
                    f[17] = (byte) 0xdd;
                })),
                Arguments.of("hardware length 8", request(f -> f[18] = 8)),
                Arguments.of("protocol length 16", request(f -> f[19] = 16)),
                Arguments.of("truncated to 41 bytes", Arrays.copyOf(Fixtures.bytes(Fixtures.ARP_REQUEST), 41)),
                Arguments.of("only an Ethernet header", Arrays.copyOf(Fixtures.bytes(Fixtures.ARP_REQUEST), 14)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("framesTheRawSocketResponderIgnores")
    void framesTheRawSocketResponderIgnoresPassUnchanged(String what, byte[] frame) throws Exception {
        XdpArpResponder.Run run = program.run(frame);
        assertThat(run.action()).as(what).isEqualTo(XdpArpProgram.XDP_PASS);
        assertThat(run.frame()).as(what).isEqualTo(frame);
    }

    @Test
    void answersAreCountedPerAddressWhenCollected() throws Exception {
        IpAddress other = IpAddress.parse("198.18.99.7").orElseThrow();
        AnnouncedSet both = set(ANNOUNCED, other);
        program.sync(announced, both);
        for (int i = 0; i < 3; i++) {
            program.run(Fixtures.bytes(Fixtures.ARP_REQUEST));
        }
        program.run(request(f -> f[41] = 7));
        program.collect(both);
        assertThat(counts.get(ANNOUNCED)[0]).isEqualTo(3);
        assertThat(counts.get(other)[0]).isEqualTo(1);
        program.collect(both);
        assertThat(counts.get(ANNOUNCED)[0])
                .as("a second collection adds nothing new")
                .isEqualTo(3);
    }

    @Test
    void aWithdrawnAddressPassesAtOnceAndItsLastAnswersAreCounted() throws Exception {
        program.run(Fixtures.bytes(Fixtures.ARP_REQUEST));
        program.sync(announced, AnnouncedSet.EMPTY);
        assertThat(counts.get(ANNOUNCED)[0]).isEqualTo(1);
        assertThat(program.run(Fixtures.bytes(Fixtures.ARP_REQUEST)).action()).isEqualTo(XdpArpProgram.XDP_PASS);
        program.sync(AnnouncedSet.EMPTY, set(ANNOUNCED));
        assertThat(program.run(Fixtures.bytes(Fixtures.ARP_REQUEST)).action()).isEqualTo(XdpArpProgram.XDP_TX);
    }

    @Test
    void theProgramAnswersWithTheMacItWasLoadedFor() throws Exception {
        try (XdpArpResponder forB = XdpArpResponder.loadDetached(
                new LinkInfo("b0", 2, MAC_B, true, false, Optional.empty(), List.of()), Fence.unlimited())) {
            forB.sync(AnnouncedSet.EMPTY, set(IpAddress.parse("198.18.99.9").orElseThrow()));
            byte[] fromA = request(f -> {
                put(f, 6, MAC_A.bytes());
                put(f, 22, MAC_A.bytes());
                f[41] = 9;
            });
            XdpArpResponder.Run run = forB.run(fromA);
            assertThat(run.action()).isEqualTo(XdpArpProgram.XDP_TX);
            assertThat(Arrays.copyOfRange(run.frame(), 0, 6)).isEqualTo(MAC_A.bytes());
            assertThat(Arrays.copyOfRange(run.frame(), 6, 12)).isEqualTo(MAC_B.bytes());
            assertThat(Arrays.copyOfRange(run.frame(), 22, 28)).isEqualTo(MAC_B.bytes());
            assertThat(Arrays.copyOfRange(run.frame(), 32, 38)).isEqualTo(MAC_A.bytes());
        }
    }

    @Test
    void attachingToAMissingInterfaceSaysWhy() {
        LinkInfo missing = new LinkInfo("gone0", 999_999, MAC_A, true, false, Optional.empty(), List.of());
        assertThatThrownBy(() -> XdpArpResponder.attach(missing, Fence.unlimited()))
                .isInstanceOf(NativeIOException.class)
                .hasMessageStartingWith("cannot attach the XDP program for ARP to gone0: ");
    }

    @Test
    void aLapsedFencePassesTheRequestUnchangedAndUncounted() throws Exception {
        Fence fence = fence();
        XdpArpResponder fenced = loadFor(A, fence);
        byte[] request = Fixtures.bytes(Fixtures.ARP_REQUEST);
        XdpArpResponder.Run run = fenced.run(request);
        assertThat(run.action()).isEqualTo(XdpArpProgram.XDP_PASS);
        assertThat(run.frame()).isEqualTo(request);
        fenced.collect(announced);
        assertThat(counts.get(ANNOUNCED)[0]).isZero();
    }

    @Test
    void aFenceRenewedIntoTheFutureGetsTheKernelsReply() throws Exception {
        Fence fence = fence();
        XdpArpResponder fenced = loadFor(A, fence);
        fence.renewUntil(System.nanoTime() + Duration.ofSeconds(10).toNanos());
        XdpArpResponder.Run run = fenced.run(Fixtures.bytes(Fixtures.ARP_REQUEST));
        assertThat(run.action()).isEqualTo(XdpArpProgram.XDP_TX);
        assertThat(Fixtures.hex(run.frame())).isEqualTo(Fixtures.hex(Fixtures.bytes(Fixtures.ARP_REPLY_KERNEL)));
        fenced.collect(announced);
        assertThat(counts.get(ANNOUNCED)[0]).isEqualTo(1);
    }

    @Test
    void aDeadlineInThePastPassesAndSoDoesOneThatPassesWithoutRenewal() throws Exception {
        Fence fence = fence();
        XdpArpResponder fenced = loadFor(A, fence);
        fence.renewUntil(System.nanoTime() - Duration.ofMillis(1).toNanos());
        assertThat(fenced.run(Fixtures.bytes(Fixtures.ARP_REQUEST)).action()).isEqualTo(XdpArpProgram.XDP_PASS);

        long deadline = System.nanoTime() + Duration.ofMillis(200).toNanos();
        fence.renewUntil(deadline);
        assertThat(fenced.run(Fixtures.bytes(Fixtures.ARP_REQUEST)).action()).isEqualTo(XdpArpProgram.XDP_TX);
        Thread.sleep(Duration.ofNanos(deadline - System.nanoTime()).plusMillis(1));
        assertThat(fenced.run(Fixtures.bytes(Fixtures.ARP_REQUEST)).action())
                .as("the deadline passed, nobody renewed")
                .isEqualTo(XdpArpProgram.XDP_PASS);
    }

    @Test
    void lapsingStopsTheKernelsAnswersAtOnce() throws Exception {
        Fence fence = fence();
        XdpArpResponder fenced = loadFor(A, fence);
        fence.renewUntil(System.nanoTime() + Duration.ofSeconds(10).toNanos());
        assertThat(fenced.run(Fixtures.bytes(Fixtures.ARP_REQUEST)).action()).isEqualTo(XdpArpProgram.XDP_TX);
        fence.lapse();
        assertThat(fenced.run(Fixtures.bytes(Fixtures.ARP_REQUEST)).action()).isEqualTo(XdpArpProgram.XDP_PASS);
    }

    /** The program compares unsigned: a negative deadline must not become one in the far future. */
    @Test
    void aNegativeDeadlineIsLapsedInTheKernelToo() throws Exception {
        Fence fence = fence();
        XdpArpResponder fenced = loadFor(A, fence);
        for (long deadline : new long[] {-1, Long.MIN_VALUE}) {
            fence.renewUntil(deadline);
            assertThat(fenced.run(Fixtures.bytes(Fixtures.ARP_REQUEST)).action())
                    .as("deadline " + deadline)
                    .isEqualTo(XdpArpProgram.XDP_PASS);
        }
    }

    @Test
    void anUnlimitedFenceAnswersWhateverIsDoneToIt() throws Exception {
        Fence.unlimited().lapse();
        Fence.unlimited().renewUntil(0);
        XdpArpResponder.Run run = program.run(Fixtures.bytes(Fixtures.ARP_REQUEST));
        assertThat(run.action()).isEqualTo(XdpArpProgram.XDP_TX);
        assertThat(Fixtures.hex(run.frame())).isEqualTo(Fixtures.hex(Fixtures.bytes(Fixtures.ARP_REPLY_KERNEL)));
    }

    @Test
    void everyProgramOfAFenceReadsTheSameDeadline() throws Exception {
        Fence fence = fence();
        XdpArpResponder forA = loadFor(A, fence);
        XdpArpResponder forB = loadFor(new LinkInfo("b0", 2, MAC_B, true, false, Optional.empty(), List.of()), fence);
        byte[] fromA = request(f -> {
            put(f, 6, MAC_A.bytes());
            put(f, 22, MAC_A.bytes());
        });
        fence.renewUntil(System.nanoTime() + Duration.ofSeconds(10).toNanos());
        assertThat(forA.run(Fixtures.bytes(Fixtures.ARP_REQUEST)).action()).isEqualTo(XdpArpProgram.XDP_TX);
        assertThat(forB.run(fromA).action()).isEqualTo(XdpArpProgram.XDP_TX);
        fence.lapse();
        assertThat(forA.run(Fixtures.bytes(Fixtures.ARP_REQUEST)).action()).isEqualTo(XdpArpProgram.XDP_PASS);
        assertThat(forB.run(fromA).action()).isEqualTo(XdpArpProgram.XDP_PASS);
    }

    /**
     * The fence's deadlines are System.nanoTime() values and the program compares them with bpf_ktime_get_ns: the
     * two clocks must be one. A deadline of "now" read just before the run must already have passed in the kernel,
     * one 20 ms later must not have (when the run took less than that). CLOCK_REALTIME would fail the second,
     * CLOCK_BOOTTIME after a suspend too.
     */
    @Test
    void theKernelsClockIsTheClockOfSystemNanoTime() throws Exception {
        Fence fence = fence();
        XdpArpResponder fenced = loadFor(A, fence);
        long margin = Duration.ofMillis(20).toNanos();
        int checkedAhead = 0;
        for (int i = 0; i < 50; i++) {
            fence.renewUntil(System.nanoTime());
            assertThat(fenced.run(Fixtures.bytes(Fixtures.ARP_REQUEST)).action())
                    .as("deadline now, run #" + i)
                    .isEqualTo(XdpArpProgram.XDP_PASS);
            long before = System.nanoTime();
            fence.renewUntil(before + margin);
            int action = fenced.run(Fixtures.bytes(Fixtures.ARP_REQUEST)).action();
            if (System.nanoTime() - before < margin) { // else this thread was descheduled too long to tell
                assertThat(action).as("deadline 20 ms ahead, run #" + i).isEqualTo(XdpArpProgram.XDP_TX);
                checkedAhead++;
            }
        }
        assertThat(checkedAhead)
                .as("runs quick enough to check the deadline ahead")
                .isGreaterThan(10);
    }

    /**
     * A failed write of the kernel's copy (here: a map user space may not write) is recorded, not thrown; the
     * kernel, holding an old deadline (here 0), passes requests on, while the Java side still permits.
     */
    @Test
    void aKernelThatCannotBeRenewedFallsSilentAndTheFailureIsRecorded() throws Exception {
        Fence fence = Fence.renewableWithMapFlags(FenceMap.RDONLY);
        toClose.add(fence);
        XdpArpResponder fenced = loadFor(A, fence);
        fence.renewUntil(System.nanoTime() + Duration.ofSeconds(10).toNanos());
        assertThat(fence.permits()).isTrue();
        assertThat(fence.kernelProblem())
                .hasValueSatisfying(
                        problem -> assertThat(problem)
                                .startsWith(
                                        "cannot write the answer fence's deadline into the kernel: Operation not permitted (EPERM)"));
        assertThat(fenced.run(Fixtures.bytes(Fixtures.ARP_REQUEST)).action()).isEqualTo(XdpArpProgram.XDP_PASS);
    }

    @Test
    void aClosedFenceSilencesItsProgramsAndLoadsNoMore() throws Exception {
        Fence fence = fence();
        XdpArpResponder fenced = loadFor(A, fence);
        fence.renewUntil(System.nanoTime() + Duration.ofSeconds(10).toNanos());
        fence.close();
        assertThat(fence.permits()).isFalse();
        assertThat(fenced.run(Fixtures.bytes(Fixtures.ARP_REQUEST)).action()).isEqualTo(XdpArpProgram.XDP_PASS);
        fence.renewUntil(System.nanoTime() + Duration.ofSeconds(10).toNanos());
        assertThat(fence.permits()).as("renewing a closed fence does nothing").isFalse();
        assertThatThrownBy(() -> XdpArpResponder.loadDetached(A, fence)).hasMessage("the answer fence is closed");
    }

    private Fence fence() {
        Fence fence = Fence.renewable();
        toClose.add(fence);
        return fence;
    }

    /** A program for {@code link} behind {@code fence}, announcing ANNOUNCED; closed after the test. */
    private XdpArpResponder loadFor(LinkInfo link, Fence fence) throws Exception {
        XdpArpResponder loaded = XdpArpResponder.loadDetached(link, fence);
        toClose.add(loaded);
        loaded.sync(AnnouncedSet.EMPTY, announced);
        return loaded;
    }

    private AnnouncedSet set(IpAddress... ips) {
        return AnnouncedSet.of(List.of(ips), ip -> {
            long[] count = counts.computeIfAbsent(ip, i -> new long[1]);
            return n -> count[0] += n;
        });
    }

    private static byte[] request(FrameChange change) {
        byte[] frame = Fixtures.bytes(Fixtures.ARP_REQUEST);
        change.apply(frame);
        return frame;
    }

    @FunctionalInterface
    private interface FrameChange {
        void apply(byte[] frame);
    }

    private static void put(byte[] frame, int offset, byte[] bytes) {
        System.arraycopy(bytes, 0, frame, offset, bytes.length);
    }
}
