package io.lbk8s.bench;

import io.lbk8s.testkit.sandbox.AddressLedger;
import io.lbk8s.testkit.sandbox.ControllerReplica;
import io.lbk8s.testkit.sandbox.ControllerReplicas;
import io.lbk8s.testkit.sandbox.Sandbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * The controller's availability figures, printed as table rows: how soon the standby assigns an address after the
 * leader is killed -9, and many Services created at once while the leader is killed every 10 s. Two replicas run as
 * processes ({@code bin/lbk8s controller}, default election settings) on the test API server in this JVM; an
 * {@link AddressLedger} watches what the Services show. Logs go to a temporary directory, named on stderr.
 */
public final class HaControllerBenchmark {
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final Duration KILL_EVERY = Duration.ofSeconds(10);
    private static final int CREATORS = 16;

    public static void main(String[] args) throws Exception {
        boolean quick = args.length > 0 && args[0].equals("--quick");
        Path logs = Files.createTempDirectory("lbk8s-ha-bench");
        System.err.println("controller logs in " + logs);
        try {
            takeover(quick ? 3 : 10, logs.resolve("takeover"));
        } catch (RuntimeException e) {
            System.out.printf(
                    "| controller HA | leader killed -9 -> next assignment by the standby | failed: %s |%n",
                    oneLine(e));
        }
        try {
            createsWhileKilling(
                    quick ? 300 : 1_000,
                    quick ? Duration.ofSeconds(10) : Duration.ofSeconds(30),
                    logs.resolve("creates"));
        } catch (RuntimeException e) {
            System.out.printf(
                    "| controller HA | concurrent creates, leader killed -9 every 10 s | failed: %s |%n", oneLine(e));
        }
    }

    private static String oneLine(Exception e) {
        String message = String.valueOf(e.getMessage());
        int end = message.indexOf(';');
        return (end < 0 ? message : message.substring(0, end)).replace('|', '/').replace('\n', ' ');
    }

    private static ControllerReplicas twoReplicas(Path logs) throws Exception {
        ControllerReplicas cluster = ControllerReplicas.start(logs);
        cluster.pool("bench", "10.20.0.0/16");
        cluster.startReplica("controller-a", List.of());
        cluster.startReplica("controller-b", List.of());
        return cluster;
    }

    /**
     * {@code kills} times: with the standby ready, the leader is killed -9 and a Service created right after; the
     * time from the kill to that Service's address in status. The killed replica then starts again as a standby.
     */
    static void takeover(int kills, Path logs) throws Exception {
        try (ControllerReplicas cluster = twoReplicas(logs);
                AddressLedger ledger = AddressLedger.watch(cluster.client)) {
            List<Long> millis = new ArrayList<>();
            for (int kill = 0; kill < kills; kill++) {
                ControllerReplica leader = cluster.awaitLeader(PATIENCE, _ -> true);
                Sandbox.poll(
                        "the standby to be ready",
                        PATIENCE,
                        () -> cluster.replicas().stream()
                                .filter(r -> r != leader)
                                .allMatch(r -> r.readyz()
                                        .filter(a -> a.status() == 200)
                                        .isPresent()));
                String name = "after-kill-" + kill;
                long start = System.nanoTime();
                leader.kill();
                cluster.createService(name);
                Sandbox.poll(
                        name + " to get an address",
                        PATIENCE,
                        () -> !ledger.addresses()
                                .getOrDefault("default/" + name, List.of())
                                .isEmpty());
                millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                leader.start();
            }
            Collections.sort(millis);
            System.out.printf(
                    "| controller HA | leader killed -9 -> next assignment by the standby, p50 / max of %d | %.1f s / %.1f s |%n",
                    kills, millis.get(millis.size() / 2) / 1000.0, millis.getLast() / 1000.0);
        }
    }

    /**
     * {@code count} Services created from {@value #CREATORS} threads over {@code spread}, while the leader is killed -9
     * every 10 s (and started again once the standby leads) until every Service shows an address.
     */
    static void createsWhileKilling(int count, Duration spread, Path logs) throws Exception {
        try (ControllerReplicas cluster = twoReplicas(logs);
                AddressLedger ledger = AddressLedger.watch(cluster.client);
                ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            cluster.awaitLeader(PATIENCE, _ -> true);
            List<String> names =
                    IntStream.range(0, count).mapToObj(i -> "svc-" + i).toList();
            Duration gap = spread.multipliedBy(CREATORS).dividedBy(count);
            long start = System.nanoTime();
            Future<?> creating = executor.submit(() -> {
                cluster.createConcurrently(names, CREATORS, gap);
                return null;
            });
            long deadline = start + TimeUnit.MINUTES.toNanos(10);
            long nextKill = start + KILL_EVERY.toNanos();
            int kills = 0;
            while (!(creating.isDone() && ledger.awaitAllAssigned(count, Duration.ZERO))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("not all assigned within 10 min: "
                            + ledger.unassigned().size() + " without an address");
                }
                if (System.nanoTime() >= nextKill) {
                    ControllerReplica leader = cluster.awaitLeader(PATIENCE, _ -> true);
                    leader.kill();
                    kills++;
                    cluster.awaitLeader(PATIENCE, r -> r != leader);
                    leader.start();
                    nextKill += KILL_EVERY.toNanos();
                }
                Thread.sleep(20);
            }
            creating.get(); // a failed create fails the figure
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf(
                    "| controller HA | %d concurrent creates over %d s, leader killed -9 every 10 s (%d kills): duplicates / changed"
                            + " addresses | %d / %d |%n",
                    count,
                    spread.toSeconds(),
                    kills,
                    ledger.duplicates().size(),
                    ledger.changes().size());
            System.out.printf(
                    "| controller HA | %d concurrent creates, leader killed -9 every 10 s: first create -> all assigned | %.1f s |%n",
                    count, seconds);
        }
    }
}
