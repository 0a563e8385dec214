package io.lbk8s.bench;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.lbk8s.kube.lean.LeanDecoding;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What decoding the objects a speaker watches costs a fresh JVM, fabric8's whole models against the speaker's lean
 * readers ({@link LeanDecoding}): one Pod, Node, Service and EndpointSlice as kube-apiserver serves them (the test
 * fixtures), decoded once each, in a new JVM per run with the image's collector and compiler flags. Reports the time
 * of that first decoding, the classes loaded by it and the heap it leaves live (after full collections). Medians of
 * five runs per way. Run from the repository's root:
 * <pre>
 *   java -cp bench/target/classes:$(cat bench/target/classpath.txt) io.lbk8s.bench.DecodingBenchmark
 * </pre>
 */
public final class DecodingBenchmark {
    private DecodingBenchmark() {}

    static final int RUNS = 5;
    static final Path FIXTURES = Path.of("lbk8s/src/test/resources/fixtures/objects");

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("child")) {
            child(args[1]);
            return;
        }
        for (String way : List.of("whole", "lean")) {
            List<long[]> runs = new ArrayList<>();
            for (int i = 0; i < RUNS; i++) {
                runs.add(runChild(way));
            }
            System.out.printf(
                    "| kube | decoding a Pod, a Node, a Service and an EndpointSlice as served, first time in a JVM,"
                            + " %s (medians of %d JVMs): time / classes loaded / heap left live | %d ms / %d / %.1f"
                            + " MiB |%n",
                    way.equals("lean") ? "the speaker's lean readers" : "fabric8's models",
                    RUNS,
                    median(runs, 0),
                    median(runs, 1),
                    median(runs, 2) / 1024.0 / 1024.0);
        }
    }

    /** Decodes the four fixtures and prints: milliseconds, classes loaded, live heap bytes added. */
    private static void child(String way) throws IOException {
        List<String> texts = List.of(
                fixture("pod-as-served.json"),
                fixture("node-as-served.json"),
                fixture("service-as-served.json"),
                fixture("endpointslice-as-served.json"));
        KubernetesSerialization serialization =
                way.equals("lean") ? LeanDecoding.serialization() : new KubernetesSerialization();
        serialization.unmarshal("{\"kind\": \"ConfigMap\", \"apiVersion\": \"v1\"}"); // fabric8's own set-up, alike
        long heapBefore = liveHeap();
        int classesBefore = ManagementFactory.getClassLoadingMXBean().getLoadedClassCount();
        long start = System.nanoTime();
        List<Object> decoded = List.of(
                serialization.unmarshal(texts.get(0), Pod.class),
                serialization.unmarshal(texts.get(1), Node.class),
                serialization.unmarshal(texts.get(2), Service.class),
                serialization.unmarshal(texts.get(3), EndpointSlice.class));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        int classes = ManagementFactory.getClassLoadingMXBean().getLoadedClassCount() - classesBefore;
        long heap = liveHeap() - heapBefore;
        if (decoded.size() != 4) {
            throw new IllegalStateException("decoded " + decoded.size());
        }
        System.out.println(millis + " " + classes + " " + heap);
    }

    private static long[] runChild(String way) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        System.getProperty("java.class.path"),
                        DecodingBenchmark.class.getName(),
                        "child",
                        way)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("the " + way + " run failed: " + out);
        }
        String[] fields = out.lines().reduce((a, b) -> b).orElseThrow().split(" ");
        return new long[] {Long.parseLong(fields[0]), Long.parseLong(fields[1]), Long.parseLong(fields[2])};
    }

    private static long median(List<long[]> runs, int field) {
        return runs.stream()
                .mapToLong(r -> r[field])
                .sorted()
                .skip(runs.size() / 2)
                .findFirst()
                .orElseThrow();
    }

    private static String fixture(String name) throws IOException {
        return Files.readString(FIXTURES.resolve(name));
    }

    private static long liveHeap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
