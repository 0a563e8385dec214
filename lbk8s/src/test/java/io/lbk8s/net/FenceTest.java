package io.lbk8s.net;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The Java side of the fence; the kernel side is run in {@link XdpArpProgramTest}. */
class FenceTest {

    @Test
    void anUnlimitedFencePermitsWhateverIsDoneToIt() {
        Fence fence = Fence.unlimited();
        fence.lapse();
        fence.renewUntil(System.nanoTime() - 1);
        fence.close();
        assertThat(fence.permits()).isTrue();
        assertThat(Fence.unlimited()).hasToString("Fence[unlimited]");
    }

    @Test
    void aRenewableFenceStartsLapsedAndPermitsUntilTheDeadlineLastGiven() throws Exception {
        try (Fence fence = Fence.renewable()) {
            assertThat(fence.permits()).as("before any renewal").isFalse();
            fence.renewUntil(System.nanoTime() + Duration.ofSeconds(10).toNanos());
            assertThat(fence.permits()).isTrue();
            fence.renewUntil(System.nanoTime() - 1);
            assertThat(fence.permits())
                    .as("the last deadline counts, even an earlier one")
                    .isFalse();
            long deadline = System.nanoTime() + Duration.ofMillis(100).toNanos();
            fence.renewUntil(deadline);
            assertThat(fence.permits()).isTrue();
            Thread.sleep(Duration.ofNanos(deadline - System.nanoTime()).plusMillis(1));
            assertThat(fence.permits())
                    .as("the deadline passed without renewal")
                    .isFalse();
        }
    }

    @Test
    void lapseAndCloseStopAtOnceAndACloseIsFinal() {
        Fence fence = Fence.renewable();
        fence.renewUntil(System.nanoTime() + Duration.ofSeconds(10).toNanos());
        fence.lapse();
        assertThat(fence.permits()).isFalse();
        assertThat(fence).hasToString("Fence[lapsed]");
        fence.renewUntil(System.nanoTime() + Duration.ofSeconds(10).toNanos());
        assertThat(fence.toString()).startsWith("Fence[permits for ");
        fence.close();
        assertThat(fence.permits()).isFalse();
        fence.renewUntil(System.nanoTime() + Duration.ofSeconds(10).toNanos());
        assertThat(fence.permits()).as("renewed after close").isFalse();
        assertThat(fence.kernelProblem())
                .as("no XDP program, so no kernel copy to fail")
                .isEmpty();
    }

    /**
     * HotSpot on Linux reads CLOCK_MONOTONIC for System.nanoTime(), the clock bpf_ktime_get_ns reads: a reading of
     * it taken between two nanoTime() calls lies between them.
     */
    @Test
    void systemNanoTimeIsClockMonotonic() throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle clockGettime = linker.downcallHandle(
                linker.defaultLookup().findOrThrow("clock_gettime"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        int clockMonotonic = 1;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment timespec = arena.allocate(16, 8);
            for (int i = 0; i < 100; i++) {
                long before = System.nanoTime();
                assertThat((int) clockGettime.invokeExact(clockMonotonic, timespec))
                        .isZero();
                long after = System.nanoTime();
                long monotonic = timespec.get(JAVA_LONG, 0) * 1_000_000_000L + timespec.get(JAVA_LONG, 8);
                assertThat(monotonic).as("reading #" + i).isBetween(before, after);
            }
        }
    }
}
