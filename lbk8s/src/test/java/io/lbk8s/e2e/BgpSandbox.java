package io.lbk8s.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.lbk8s.testkit.net.BgpRouter;
import io.lbk8s.testkit.net.TestNode;
import io.lbk8s.testkit.net.UpstreamRouter;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/** What the BGP end-to-end tests (BgpIT with FRR, BgpBirdIT with BIRD) do to the sandbox, as a user would. */
final class BgpSandbox {

    private BgpSandbox() {}

    /** After a test: its router stopped, every node thawed, every killed speaker started again and Ready. */
    static void restore(Sandbox cluster, UpstreamRouter router) {
        router.running().ifPresent(BgpRouter::close);
        for (TestNode node : cluster.network.nodes()) {
            cluster.network.thaw(node);
            if (!cluster.speaker(node).isAlive()) {
                cluster.startSpeaker(node);
                cluster.awaitSpeakerReadyAndMarkPod(node);
            }
        }
    }

    /** Creates a LoadBalancer Service of {@code family} from {@code pool} and returns its address once assigned. */
    static InetAddress loadBalancer(
            Sandbox cluster, String name, String trafficPolicy, boolean selector, String pool, String family) {
        cluster.client
                .services()
                .resource(new ServiceBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace("default")
                        .withAnnotations(Map.of("metallb.io/address-pool", pool))
                        .endMetadata()
                        .withNewSpec()
                        .withType("LoadBalancer")
                        .withExternalTrafficPolicy(trafficPolicy)
                        .withIpFamilies(family)
                        .withSelector(selector ? Map.of("app", name) : null)
                        .addNewPort()
                        .withName("http")
                        .withPort(80)
                        .withProtocol("TCP")
                        .endPort()
                        .endSpec()
                        .build())
                .create();
        return Sandbox.address(cluster.awaitIngressIps("default", name, 1).getFirst());
    }

    /** Edits the BGPPeer {@code name}'s spec as {@code kubectl edit} would: the speakers restart their sessions. */
    static void editPeer(Sandbox cluster, String name, Consumer<Map<String, Object>> change) {
        cluster.client
                .genericKubernetesResources("metallb.io/v1beta2", "BGPPeer")
                .inNamespace(Sandbox.NAMESPACE)
                .withName(name)
                .edit(peer -> {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> spec =
                            (Map<String, Object>) peer.getAdditionalProperties().get("spec");
                    change.accept(spec);
                    return peer;
                });
    }

    /** The BGPPeer {@code name}'s {@code enableGracefulRestart}, and whether it references BFDProfile {@code bfdProfile}. */
    static void peerWith(Sandbox cluster, String name, boolean gracefulRestart, String bfdProfile, boolean bfd) {
        editPeer(cluster, name, spec -> {
            if (gracefulRestart) {
                spec.put("enableGracefulRestart", true);
            } else {
                spec.remove("enableGracefulRestart");
            }
            if (bfd) {
                spec.put("bfdProfile", bfdProfile);
            } else {
                spec.remove("bfdProfile");
            }
        });
    }

    /**
     * Stops {@code node}'s speaker process alone (SIGSTOP to it and its children) for {@code pause}, then lets it run
     * again (SIGCONT): a speaker starved of CPU, its failure detector silent for that long, the node's other
     * processes running.
     */
    static void pauseSpeaker(Sandbox cluster, TestNode node, Duration pause) throws InterruptedException {
        ProcessHandle speaker = ProcessHandle.of(cluster.speaker(node).pid()).orElseThrow();
        List<String> pids = java.util.stream.Stream.concat(java.util.stream.Stream.of(speaker), speaker.descendants())
                .map(p -> String.valueOf(p.pid()))
                .toList();
        signal("STOP", pids);
        try {
            Thread.sleep(pause);
        } finally {
            signal("CONT", pids);
        }
    }

    private static void signal(String signal, List<String> pids) {
        List<String> command = new java.util.ArrayList<>(List.of("kill", "-" + signal));
        command.addAll(pids);
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!kill.waitFor(5, java.util.concurrent.TimeUnit.SECONDS) || kill.exitValue() != 0) {
                kill.destroyForcibly();
                throw new IllegalStateException(command + " failed");
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(command + " interrupted", e);
        }
    }

    /** How many of {@code count} curls from the remote client through the router to {@code ip} are answered. */
    static int curlsAnswered(UpstreamRouter router, InetAddress ip, int count, Duration timeout) {
        int answered = 0;
        for (int i = 0; i < count; i++) {
            answered += router.remoteClient().curl(ip, timeout).isPresent() ? 1 : 0;
        }
        return answered;
    }

    /**
     * Samples the router's FIB for {@code prefix} on a thread of its own, every 50 ms for at most 3 minutes: how many
     * samples lacked {@code nextHop}, and when (ms after the start) the first and the last of them were taken.
     */
    static final class FibWatch implements AutoCloseable {
        record Seen(int samples, int missing, long firstMissingMillis, long lastMissingMillis) {
            /** Sampled throughout a restart, the node's next hop never left the router's FIB. */
            void assertNeverMissing() {
                assertThat(samples).as("FIB samples during the restart").isGreaterThan(10);
                assertThat(missing)
                        .as("FIB samples without the restarting node's next hop")
                        .isZero();
            }
        }

        private final AtomicBoolean stop = new AtomicBoolean();
        private final List<Long> missing = new CopyOnWriteArrayList<>();
        private final AtomicInteger samples = new AtomicInteger();
        private Thread sampler;

        static FibWatch start(UpstreamRouter router, String prefix, InetAddress nextHop) {
            FibWatch watch = new FibWatch();
            long started = System.nanoTime();
            long deadline = started + Duration.ofMinutes(3).toNanos();
            watch.sampler = Thread.ofPlatform().name("fib-watch").start(() -> {
                while (!watch.stop.get() && System.nanoTime() < deadline) {
                    watch.samples.incrementAndGet();
                    if (!router.fibNextHops(prefix).contains(nextHop)) {
                        watch.missing.add(
                                Duration.ofNanos(System.nanoTime() - started).toMillis());
                    }
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            return watch;
        }

        Seen stop() throws InterruptedException {
            stop.set(true);
            sampler.join(Duration.ofSeconds(10));
            List<Long> when = List.copyOf(missing);
            return new Seen(
                    samples.get(),
                    when.size(),
                    when.isEmpty() ? -1 : when.getFirst(),
                    when.isEmpty() ? -1 : when.getLast());
        }

        @Override
        public void close() throws InterruptedException {
            stop();
        }
    }
}
