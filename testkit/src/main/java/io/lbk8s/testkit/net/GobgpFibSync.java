package io.lbk8s.testkit.net;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Copies GoBGP's table into the kernel FIB of its namespace, as zebra does for FRR and the kernel protocol for BIRD:
 * every {@link #INTERVAL} it reads {@code gobgp global rib -j} and replaces or deletes the routes that changed
 * (protocol {@code bgp}, so {@link FibRoute#protocol()} reads alike for FRR and GoBGP). With multipath on, every path
 * to a prefix is a next hop (the nodes announce equal paths); without, only the best. Polling, not {@code gobgp monitor}:
 * the monitor reports best-path changes only, and a second node withdrawing an ECMP path changes no best path.
 */
final class GobgpFibSync implements AutoCloseable {

    /** A gobgp CLI call costs about 17 ms of CPU; every 200 ms is a tenth of a CPU for one family. */
    static final Duration INTERVAL = Duration.ofMillis(200);

    private final GobgpRouter router;
    private final String namespace;
    private final Map<String, List<InetAddress>> installed = new HashMap<>();
    private final Thread thread;
    private volatile boolean stopped;
    private volatile String lastError = "";

    private GobgpFibSync(GobgpRouter router, String namespace) {
        this.router = router;
        this.namespace = namespace;
        this.thread = Thread.ofVirtual().name("gobgp-fib-" + namespace).unstarted(this::run);
    }

    static GobgpFibSync start(GobgpRouter router, String namespace) {
        GobgpFibSync sync = new GobgpFibSync(router, namespace);
        sync.thread.start();
        return sync;
    }

    /** The last failure of a round, for a test's message when the FIB does not follow; empty when none. */
    String lastError() {
        return lastError;
    }

    private void run() {
        while (!stopped) {
            try {
                syncOnce();
                lastError = "";
            } catch (RuntimeException e) {
                lastError = e.getMessage(); // gobgpd restarting or stopping; the next round tries again
            }
            try {
                Thread.sleep(INTERVAL);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void syncOnce() {
        Map<String, List<InetAddress>> wanted = new TreeMap<>();
        // only the families the router has peers of: each costs a CLI call per round
        for (String family : router.config().peers().stream()
                .map(p -> p.ipv6() ? "ipv6" : "ipv4")
                .distinct()
                .toList()) {
            wanted.putAll(
                    nextHopsByPrefix(router.allRoutes(family), router.config().multipath()));
        }
        List<String> commands = new ArrayList<>();
        wanted.forEach((prefix, hops) -> {
            if (!Objects.equals(installed.get(prefix), hops)) {
                commands.add(replace(prefix, hops));
            }
        });
        installed.keySet().stream()
                .filter(prefix -> !wanted.containsKey(prefix))
                .forEach(prefix -> commands.add("route del " + prefix + " proto bgp"));
        if (commands.isEmpty()) {
            return;
        }
        CommandResult result = Shell.run(
                Shell.SETUP_TIMEOUT,
                List.of(Tool.IP.path(), "-n", namespace, "-force", "-batch", "-"),
                String.join("\n", commands) + "\n");
        if (!result.ok()) {
            throw new IllegalStateException(
                    "ip -batch in " + namespace + ": " + result.output().strip());
        }
        installed.clear();
        installed.putAll(wanted);
    }

    /** Paths with a next hop of their own (not the ones gobgpd originates, whose next hop is 0.0.0.0 or ::). */
    static Map<String, List<InetAddress>> nextHopsByPrefix(List<RibPath> paths, boolean multipath) {
        Map<String, List<InetAddress>> byPrefix = new LinkedHashMap<>();
        for (RibPath path : paths) {
            if (path.nextHop().isAnyLocalAddress() || !(multipath || path.best())) {
                continue;
            }
            List<InetAddress> hops = byPrefix.computeIfAbsent(path.prefix(), p -> new ArrayList<>());
            if (!hops.contains(path.nextHop())) {
                hops.add(path.nextHop());
            }
        }
        byPrefix.values().forEach(hops -> hops.sort((a, b) -> Addressing.text(a).compareTo(Addressing.text(b))));
        return byPrefix;
    }

    private static String replace(String prefix, List<InetAddress> hops) {
        if (hops.size() == 1) {
            return "route replace " + prefix + " proto bgp via " + Addressing.text(hops.getFirst());
        }
        StringBuilder command = new StringBuilder("route replace " + prefix + " proto bgp");
        hops.forEach(hop -> command.append(" nexthop via ").append(Addressing.text(hop)));
        return command.toString();
    }

    /** Stops copying and removes the routes it installed: a stopped router forwards nothing. */
    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Shell.run(Shell.SETUP_TIMEOUT, List.of(Tool.IP.path(), "-n", namespace, "route", "flush", "proto", "bgp"));
        Shell.run(
                Shell.SETUP_TIMEOUT, List.of(Tool.IP.path(), "-n", namespace, "-6", "route", "flush", "proto", "bgp"));
        installed.clear();
    }
}
