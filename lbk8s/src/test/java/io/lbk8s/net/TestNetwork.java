package io.lbk8s.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Two throwaway network namespaces joined by a veth pair with fixed MACs and addresses, nothing else: no traffic
 * can leave them. A holds a0 (02:00:00:00:00:0a, 198.18.99.1/24, fd99::1/64) and a bridge br0 with a member d0 (one end of an unused veth pair)
 * (to see LinkInfo.master), B holds b0 (02:00:00:00:00:0b, 198.18.99.2/24, fd99::2/64). Always close().
 *
 * <p>{@link #createBridged()} joins a0 and b0 through a switch instead: bridge br0 in a third namespace S, ports pa
 * and pb, with MLD snooping and the bridge as querier, like a snooping switch. It returns once the bridge filters:
 * multicast to a group no port reported (a solicited-node group nobody joined) then reaches no other port.
 */
final class TestNetwork implements AutoCloseable {

    record Result(int exitCode, String output) {}

    final String a;
    final String b;
    /** The switch's namespace, or null when a0 and b0 are the two ends of one veth. */
    final String s;

    private TestNetwork(String a, String b, String s) {
        this.a = a;
        this.b = b;
        this.s = s;
    }

    static TestNetwork create() {
        return create(false);
    }

    static TestNetwork createBridged() {
        return create(true);
    }

    private static TestNetwork create(boolean bridged) {
        String prefix =
                "lbk8snet-" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000, 0xfffff));
        TestNetwork network = new TestNetwork(prefix + "-a", prefix + "-b", bridged ? prefix + "-s" : null);
        try {
            network.setUp();
            return network;
        } catch (RuntimeException | Error e) {
            network.close();
            throw e;
        }
    }

    private void setUp() {
        must("ip", "netns", "add", a);
        must("ip", "netns", "add", b);
        if (s == null) {
            must(
                    "ip",
                    "link",
                    "add",
                    "a0",
                    "netns",
                    a,
                    "address",
                    "02:00:00:00:00:0a",
                    "type",
                    "veth",
                    "peer",
                    "name",
                    "b0",
                    "netns",
                    b,
                    "address",
                    "02:00:00:00:00:0b");
        } else {
            setUpSwitch();
        }
        for (String ns : List.of(a, b)) {
            must("ip", "-n", ns, "link", "set", "lo", "up");
        }
        must("ip", "-n", a, "addr", "add", "198.18.99.1/24", "dev", "a0");
        must("ip", "-n", a, "addr", "add", "fd99::1/64", "dev", "a0", "nodad");
        must("ip", "-n", b, "addr", "add", "198.18.99.2/24", "dev", "b0");
        must("ip", "-n", b, "addr", "add", "fd99::2/64", "dev", "b0", "nodad");
        must("ip", "-n", a, "link", "add", "br0", "type", "bridge");
        must("ip", "-n", a, "link", "add", "d0", "type", "veth", "peer", "name", "d1"); // no dummy module here
        must("ip", "-n", a, "link", "set", "d0", "master", "br0");
        must("ip", "-n", a, "link", "set", "a0", "up");
        must("ip", "-n", b, "link", "set", "b0", "up");
        awaitNoTentativeAddress(a, "a0");
        awaitNoTentativeAddress(b, "b0");
        if (s != null) {
            awaitSnoopingFilters();
        }
    }

    /**
     * br0 with snooping and its own querier (the Linux bridge floods everything while no querier is known); 1 s
     * intervals instead of 10 s, as in the testkit's network. The querier's two start-up queries need br0's
     * link-local address as their source: without DAD it is usable at once (with DAD both queries went out while
     * it was tentative, and the bridge flooded until the next query, 125 s later). The ports carry no IPv6.
     */
    private void setUpSwitch() {
        must("ip", "netns", "add", s);
        must("ip", "-n", s, "link", "set", "lo", "up");
        must(
                "ip",
                "netns",
                "exec",
                s,
                "sysctl",
                "-qw",
                "net.ipv6.conf.all.accept_dad=0",
                "net.ipv6.conf.default.accept_dad=0");
        must(
                "ip",
                "-n",
                s,
                "link",
                "add",
                "br0",
                "type",
                "bridge",
                "stp_state",
                "0",
                "forward_delay",
                "0",
                "mcast_snooping",
                "1",
                "mcast_mld_version",
                "2",
                "mcast_query_response_interval",
                "100",
                "mcast_startup_query_interval",
                "100");
        must("ip", "netns", "exec", s, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1");
        must(
                "ip",
                "link",
                "add",
                "a0",
                "netns",
                a,
                "address",
                "02:00:00:00:00:0a",
                "type",
                "veth",
                "peer",
                "name",
                "pa",
                "netns",
                s);
        must(
                "ip",
                "link",
                "add",
                "b0",
                "netns",
                b,
                "address",
                "02:00:00:00:00:0b",
                "type",
                "veth",
                "peer",
                "name",
                "pb",
                "netns",
                s);
        for (String port : List.of("pa", "pb")) {
            must("ip", "-n", s, "link", "set", port, "master", "br0", "up");
        }
        must("ip", "-n", s, "link", "set", "br0", "up");
        must("ip", "-n", s, "link", "set", "br0", "type", "bridge", "mcast_querier", "1");
    }

    /**
     * Until the querier's start-up is over the bridge floods like a hub and a missing join would go unnoticed:
     * solicits an address nobody uses from B until port pa (A's) sends nothing for it (at most 10 s).
     */
    private void awaitSnoopingFilters() {
        for (int i = 0; i < 100; i++) {
            long before = framesSentTo("pa");
            run(List.of(
                    "ip", "netns", "exec", b, "ndisc6", "-q", "-n", "-1", "-r", "1", "-w", "50", "fd99::dead", "b0"));
            if (framesSentTo("pa") == before) {
                return;
            }
            sleep(100);
        }
        throw new IllegalStateException("the bridge in " + s + " still floods unjoined IPv6 multicast after 10 s");
    }

    private long framesSentTo(String port) {
        return Long.parseLong(must("ip", "netns", "exec", s, "cat", "/sys/class/net/" + port + "/statistics/tx_packets")
                .strip());
    }

    /** The bridge's multicast database ({@code bridge mdb show}): which port joined which group. */
    String multicastGroups() {
        return must("bridge", "-n", s, "mdb", "show");
    }

    /**
     * Waits (at most 5 s) until duplicate address detection of the link-local addresses is over. One run of the
     * unsolicited-NA test, the first test after setup, failed when it started right after link up; tests now
     * start on a settled link.
     */
    private void awaitNoTentativeAddress(String ns, String device) {
        for (int i = 0; i < 50; i++) {
            if (run(List.of("ip", "-n", ns, "-6", "addr", "show", "dev", device, "tentative"))
                    .output()
                    .isBlank()) {
                return;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        throw new IllegalStateException("IPv6 addresses on " + device + " in " + ns + " still tentative after 5 s");
    }

    /** Runs a command inside a namespace, bounded to 20 s. */
    Result in(String ns, String... command) {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        full.addAll(List.of(command));
        return run(full);
    }

    static Result run(List<String> command) {
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("timed out: " + command);
            }
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new Result(process.exitValue(), output);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static String must(String... command) {
        Result result = run(List.of(command));
        if (result.exitCode() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + result.output());
        }
        return result.output();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while setting up the test network", e);
        }
    }

    @Override
    public void close() {
        // deleting a namespace deletes its veth end, and so the pair
        run(List.of("ip", "netns", "del", a));
        run(List.of("ip", "netns", "del", b));
        if (s != null) {
            run(List.of("ip", "netns", "del", s));
        }
    }
}
