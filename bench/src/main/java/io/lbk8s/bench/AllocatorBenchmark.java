package io.lbk8s.bench;

import io.lbk8s.address.IpRange;
import io.lbk8s.config.AddressPool;
import io.lbk8s.config.Config;
import io.lbk8s.config.ConfigOrigin;
import io.lbk8s.ipam.Allocator;
import io.lbk8s.ipam.Outcome;
import io.lbk8s.service.AllocationRequest;
import io.lbk8s.service.ServiceKey;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Allocations per second on one /16 pool (65,536 addresses).
 *
 * <ul>
 *   <li>{@code steadyState}: the pool is half full (32,768 Services); each operation assigns a new Service and
 *       releases the oldest one, so the score is allocations (and releases) per second.
 *   <li>{@code fillFromEmpty}: a fresh allocator takes 65,536 Services until the pool is full; the score is
 *       allocations per second.
 * </ul>
 *
 * Run everything in well under a minute and print the figures:
 * <pre>
 *   ./mvnw -o -q -B -pl bench -am package -DskipTests
 *   java -cp bench/target/classes:$(cat bench/target/classpath.txt) io.lbk8s.bench.AllocatorBenchmark
 * </pre>
 * or through JMH directly, e.g. {@code org.openjdk.jmh.Main AllocatorBenchmark -f 1 -wi 2 -i 3 -w 2s -r 2s}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 3, time = 2)
public class AllocatorBenchmark {

    static final int POOL_SIZE = 1 << 16;

    static Config slash16() {
        IpRange range = ((IpRange.Parsed.Valid) IpRange.parse("10.0.0.0/16")).range();
        AddressPool pool = new AddressPool(
                "bench",
                List.of(range),
                true,
                false,
                Optional.empty(),
                Map.of(),
                new ConfigOrigin(ConfigOrigin.Kind.IPAddressPool, "metallb-system", "bench"));
        return new Config(List.of(pool), List.of());
    }

    static AllocationRequest[] requests(int count) {
        AllocationRequest[] requests = new AllocationRequest[count];
        for (int i = 0; i < count; i++) {
            requests[i] = AllocationRequest.simple(new ServiceKey("ns" + (i % 100), "svc-" + i));
        }
        return requests;
    }

    /** Half-full pool; a ring of requests, the live ones being the {@code POOL_SIZE / 2} before {@code next}. */
    @State(Scope.Thread)
    public static class HalfFull {
        final AllocationRequest[] ring = requests(POOL_SIZE);
        Allocator allocator;
        int next;

        @Setup(Level.Trial)
        public void fill() {
            allocator = new Allocator(slash16());
            for (next = 0; next < POOL_SIZE / 2; next++) {
                if (!(allocator.assign(ring[next]) instanceof Outcome.Assigned)) {
                    throw new IllegalStateException("setup could not allocate");
                }
            }
        }
    }

    @Benchmark
    public Outcome steadyState(HalfFull s) {
        int mask = POOL_SIZE - 1;
        Outcome outcome = s.allocator.assign(s.ring[s.next & mask]);
        s.allocator.release(s.ring[(s.next - POOL_SIZE / 2) & mask].service());
        s.next++;
        return outcome;
    }

    @State(Scope.Thread)
    public static class Empty {
        final AllocationRequest[] requests = requests(POOL_SIZE);
        Allocator allocator;

        @Setup(Level.Invocation)
        public void fresh() {
            allocator = new Allocator(slash16());
        }
    }

    @Benchmark
    @OperationsPerInvocation(POOL_SIZE)
    public void fillFromEmpty(Empty s, Blackhole bh) {
        for (AllocationRequest r : s.requests) {
            bh.consume(s.allocator.assign(r));
        }
    }

    /**
     * Runs both benchmarks (about 30 s) and prints allocations per second. Arguments, if any, are extra JVM
     * options for the forked benchmark JVM (e.g. {@code -Xmn512m}); by default it runs with the JVM's defaults.
     */
    public static void main(String[] args) throws RunnerException {
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                        .include(AllocatorBenchmark.class.getName() + "\\.")
                        .jvmArgsAppend(args)
                        .build())
                .run();
        for (RunResult r : results) {
            String name = r.getParams()
                    .getBenchmark()
                    .substring(r.getParams().getBenchmark().lastIndexOf('.') + 1);
            System.out.printf(
                    "| ipam | allocations/s on a /16 pool, %s (JMH) | %,.0f ± %,.0f |%n",
                    name, r.getPrimaryResult().getScore(), r.getPrimaryResult().getScoreError());
        }
    }
}
