package io.lbk8s.testkit.net;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The client namespace of a {@link TestNetwork}, as a machine on the same LAN as the nodes: it runs
 * the real tools (arping, ndisc6, ip neigh, curl) there. Every call returns within its timeout plus a
 * moment to start the tool.
 */
public final class TestClient {

    /** Time to start a tool, on top of the time it is given to wait for the network. */
    private static final Duration START_MARGIN = Duration.ofMillis(500);

    private static final Pattern ARPING_REPLY =
            Pattern.compile("reply from \\S+ \\[([0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5})\\]");
    private static final Pattern MAC = Pattern.compile("[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}");

    private final String namespace;
    private final String interfaceName;
    private final String mac;
    private final InetAddress ipv4;
    private final InetAddress ipv6;

    TestClient(String namespace, String interfaceName, String mac, InetAddress ipv4, InetAddress ipv6) {
        this.namespace = namespace;
        this.interfaceName = interfaceName;
        this.mac = mac;
        this.ipv4 = ipv4;
        this.ipv6 = ipv6;
    }

    public String namespace() {
        return namespace;
    }

    public String interfaceName() {
        return interfaceName;
    }

    public String mac() {
        return mac;
    }

    public InetAddress ipv4() {
        return ipv4;
    }

    public InetAddress ipv6() {
        return ipv6;
    }

    /** The MAC (lower case) of the first ARP reply for {@code ip}, empty if none within the timeout. */
    public Optional<String> arping(InetAddress ip, Duration timeout) {
        CommandResult result = run(
                timeout.plus(START_MARGIN),
                Tool.ARPING.path(),
                "-c",
                "1",
                "-w",
                wholeSeconds(timeout),
                "-I",
                interfaceName,
                Addressing.text(ip));
        Matcher m = ARPING_REPLY.matcher(result.stdout());
        return m.find() ? Optional.of(m.group(1).toLowerCase(Locale.ROOT)) : Optional.empty();
    }

    /** Announces {@code ip} as this host's with one gratuitous ARP request (sender and target {@code ip}). */
    public CommandResult gratuitousArp(InetAddress ip) {
        String address = Addressing.text(ip);
        return run(
                Duration.ofSeconds(5),
                Tool.ARPING.path(),
                "-U",
                "-c",
                "1",
                "-w",
                "1",
                "-I",
                interfaceName,
                "-s",
                address,
                address);
    }

    /**
     * Every distinct MAC that answered ARP for {@code ip} during {@code window} (one broadcast request
     * per second, the first at once): more than one means two nodes claim the address.
     */
    public List<String> arpingAll(InetAddress ip, Duration window) {
        CommandResult result = run(
                window.plus(START_MARGIN),
                Tool.ARPING.path(),
                "-b",
                "-w",
                wholeSeconds(window),
                "-I",
                interfaceName,
                Addressing.text(ip));
        List<String> macs = new ArrayList<>();
        Matcher m = ARPING_REPLY.matcher(result.stdout());
        while (m.find()) {
            String found = m.group(1).toLowerCase(Locale.ROOT);
            if (!macs.contains(found)) {
                macs.add(found);
            }
        }
        return List.copyOf(macs);
    }

    /** The MAC (lower case) of the first neighbor advertisement for {@code ip}, empty if none. */
    public Optional<String> ndisc6(InetAddress ip, Duration timeout) {
        requireIpv6(ip);
        // Three solicitations spread over the timeout: one lost frame should not fail a test.
        long waitMillis = Math.max(100, timeout.toMillis() / 3);
        CommandResult result = run(
                timeout.plus(START_MARGIN),
                Tool.NDISC6.path(),
                "-q",
                "-n",
                "-1",
                "-r",
                "3",
                "-w",
                Long.toString(waitMillis),
                Addressing.text(ip),
                interfaceName);
        Matcher m = MAC.matcher(result.stdout());
        return m.find() ? Optional.of(m.group().toLowerCase(Locale.ROOT)) : Optional.empty();
    }

    /** The client's neighbor entry for {@code ip}, empty if it has none. */
    public Optional<Neighbor> neighbor(InetAddress ip) {
        CommandResult result = check(Tool.IP.path(), "neigh", "show", "to", Addressing.text(ip), "dev", interfaceName);
        // "198.18.7.11 lladdr 02:1b:8a:00:00:01 REACHABLE", "198.18.7.99 FAILED"; flags like "router" may precede the
        // state
        return result.stdout()
                .lines()
                .map(String::strip)
                .filter(line -> !line.isEmpty())
                .findFirst()
                .map(line -> {
                    List<String> words = Arrays.asList(line.split("\\s+"));
                    int lladdr = words.indexOf("lladdr");
                    String found = lladdr >= 0 && lladdr + 1 < words.size()
                            ? words.get(lladdr + 1).toLowerCase(Locale.ROOT)
                            : "";
                    return new Neighbor(found, words.getLast());
                });
    }

    /** Forgets the client's entry for {@code ip}, whatever its state; nothing if there is none. */
    public void flushNeighbor(InetAddress ip) {
        run(Shell.SETUP_TIMEOUT, Tool.IP.path(), "neigh", "del", Addressing.text(ip), "dev", interfaceName);
        if (neighbor(ip).isPresent()) {
            check(Tool.IP.path(), "neigh", "flush", "to", Addressing.text(ip), "dev", interfaceName, "nud", "all");
        }
    }

    /**
     * Sets an entry {@code ip -> mac} in state STALE: what a client has after talking to an address
     * before. Gratuitous ARP / unsolicited NA only update entries that exist, so tests of failover need one.
     */
    public void setNeighbor(InetAddress ip, String mac) {
        check(
                Tool.IP.path(),
                "neigh",
                "replace",
                Addressing.text(ip),
                "lladdr",
                mac,
                "dev",
                interfaceName,
                "nud",
                "stale");
    }

    /** GET {@code url}; the body, or empty on any failure (no connection, HTTP status >= 400, timeout). */
    public Optional<String> curl(String url, Duration timeout) {
        CommandResult result = run(
                timeout.plus(START_MARGIN),
                Tool.CURL.path(),
                "-sS",
                "-f",
                "-g",
                "--noproxy",
                "*",
                "--max-time",
                seconds(timeout),
                url);
        return result.ok() ? Optional.of(result.stdout()) : Optional.empty();
    }

    /** GET {@code http://ip/} (port 80, where the kube-proxy stand-in DNATs pool addresses). */
    public Optional<String> curl(InetAddress ip, Duration timeout) {
        return curl(url(ip, 80), timeout);
    }

    public Optional<String> curl(InetAddress ip, int port, Duration timeout) {
        return curl(url(ip, port), timeout);
    }

    /** Any command in the client namespace; a non-zero exit or a timeout is reported, not thrown. */
    public CommandResult run(Duration timeout, String... command) {
        return Shell.run(timeout, Shell.inNamespace(namespace, List.of(command)));
    }

    static String url(InetAddress ip, int port) {
        String host = ip instanceof Inet6Address ? "[" + Addressing.text(ip) + "]" : Addressing.text(ip);
        return "http://" + host + (port == 80 ? "" : ":" + port) + "/";
    }

    private CommandResult check(String... command) {
        CommandResult result = run(Shell.SETUP_TIMEOUT, command);
        if (!result.ok()) {
            throw new IllegalStateException("`" + Shell.commandLine(List.of(command)) + "` in " + namespace
                    + (result.timedOut() ? " timed out" : " exited with " + result.exitCode()) + ": "
                    + result.output().strip());
        }
        return result;
    }

    private static void requireIpv6(InetAddress ip) {
        if (!(ip instanceof Inet6Address)) {
            throw new IllegalArgumentException("ndisc6 needs an IPv6 address: " + Addressing.text(ip));
        }
    }

    /** arping takes whole seconds; rounded up, at least 1 (the process is still stopped at the timeout). */
    private static String wholeSeconds(Duration timeout) {
        return Long.toString(Math.max(1, (timeout.toMillis() + 999) / 1000));
    }

    private static String seconds(Duration timeout) {
        return String.format(Locale.ROOT, "%.3f", timeout.toMillis() / 1000.0);
    }

    @Override
    public String toString() {
        return "client[" + namespace + " " + interfaceName + " " + mac + " " + Addressing.text(ipv4) + " "
                + Addressing.text(ipv6) + "]";
    }
}
