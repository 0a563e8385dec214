package io.lbk8s.bench.detector;

import io.lbk8s.testkit.net.CommandResult;
import io.lbk8s.testkit.net.NamespacedProcess;
import io.lbk8s.testkit.net.TestNetwork;
import io.lbk8s.testkit.net.TestNode;
import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * One {@link JGroupsMember} per node of a namespace network, with what the bench reads from them: the views each
 * installed (from its log), its process for signals, and the node's detector traffic (nft counters on eth0).
 */
final class JGroupsCluster implements AutoCloseable {

    static final int PORT = 7800;
    static final int SIGCONT = 18;
    static final int SIGSTOP = 19;

    private static final Duration START_LIMIT = Duration.ofSeconds(90);
    private static final Duration POLL = Duration.ofMillis(20);
    private static final Duration QUIET = Duration.ofSeconds(3);
    private static final Pattern VIEW = Pattern.compile("^VIEW (\\d+) (\\S+) (\\S+)$", Pattern.MULTILINE);
    private static final Pattern SUSPECTS = Pattern.compile("^STATS \\d+ suspect_events (\\d+)", Pattern.MULTILINE);
    private static final Pattern COUNTER =
            Pattern.compile("counter packets (\\d+) bytes (\\d+) comment \"(sent|received)\"");
    private static final MethodHandle KILL = Linker.nativeLinker()
            .downcallHandle(
                    Linker.nativeLinker().defaultLookup().find("kill").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    /** FD_ALL3 heartbeat interval and timeout, and VERIFY_SUSPECT2's timeout. */
    record Setting(long intervalMs, long timeoutMs, long verifyMs) {
        /** "50/200/100": interval/timeout/verify in ms. */
        static Setting parse(String text) {
            String[] parts = text.split("/");
            return new Setting(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]));
        }

        String label() {
            return "FD_ALL3 " + intervalMs + "/" + timeoutMs + " ms + VERIFY_SUSPECT2 " + verifyMs + " ms";
        }
    }

    /** A view as one member installed it; {@code micros} is the member's CLOCK_REALTIME when it did. */
    record View(long micros, String id, List<String> members) {
        String coordinator() {
            return members.getFirst();
        }
    }

    /** Counters of one node's detector traffic (all TCP and UDP on eth0 but the test backend's port). */
    record Traffic(long sentPackets, long sentBytes, long receivedPackets, long receivedBytes) {
        Traffic minus(Traffic earlier) {
            return new Traffic(
                    sentPackets - earlier.sentPackets,
                    sentBytes - earlier.sentBytes,
                    receivedPackets - earlier.receivedPackets,
                    receivedBytes - earlier.receivedBytes);
        }
    }

    /**
     * What a member process needs: how to start it (JVM, stack settings, {@link JGroupsMember}'s options such as
     * {@code --fd-sock2}) and an optional prefix such as chrt.
     */
    record MemberCommand(
            List<String> prefix, List<String> java, String transport, Setting setting, List<String> memberOptions) {
        List<String> forNode(TestNode node, List<TestNode> all) {
            List<String> command = new ArrayList<>(prefix);
            command.addAll(java);
            command.addAll(List.of(
                    JGroupsMember.class.getName(),
                    node.name(),
                    node.ipv4().getHostAddress(),
                    String.valueOf(PORT),
                    all.stream().map(n -> n.ipv4().getHostAddress()).collect(Collectors.joining(",")),
                    transport,
                    String.valueOf(setting.intervalMs()),
                    String.valueOf(setting.timeoutMs()),
                    String.valueOf(setting.verifyMs())));
            command.addAll(memberOptions);
            return command;
        }
    }

    private final TestNetwork network;
    private final MemberCommand command;
    private final Path logs;
    private final String label;
    private final Map<TestNode, NamespacedProcess> members = new LinkedHashMap<>();

    private JGroupsCluster(TestNetwork network, MemberCommand command, Path logs, String label) {
        this.network = network;
        this.command = command;
        this.logs = logs;
        this.label = label;
    }

    /** Starts node-1's member, then the others at once, and returns when all share one whole view that lasts. */
    static JGroupsCluster start(TestNetwork network, MemberCommand command, Path logs, String label)
            throws IOException {
        JGroupsCluster cluster = new JGroupsCluster(network, command, logs, label);
        try {
            Files.createDirectories(logs);
            List<TestNode> nodes = network.nodes();
            cluster.startMember(nodes.getFirst());
            cluster.await(
                    "node-1's first view",
                    START_LIMIT,
                    () -> cluster.latestView(nodes.getFirst()).isPresent());
            nodes.stream().skip(1).forEach(cluster::startMember);
            cluster.awaitSettled(START_LIMIT);
            return cluster;
        } catch (RuntimeException | IOException e) {
            cluster.close();
            throw e;
        }
    }

    List<TestNode> nodes() {
        return network.nodes();
    }

    NamespacedProcess member(TestNode node) {
        return members.get(node);
    }

    TestNode node(String name) {
        return network.nodes().stream()
                .filter(n -> n.name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    /** Every view this member installed, oldest first. */
    List<View> views(TestNode node) {
        List<View> views = new ArrayList<>();
        Matcher m = VIEW.matcher(members.get(node).log());
        while (m.find()) {
            views.add(new View(
                    Long.parseLong(m.group(1)), m.group(2), List.of(m.group(3).split(","))));
        }
        return views;
    }

    Optional<View> latestView(TestNode node) {
        List<View> views = views(node);
        return views.isEmpty() ? Optional.empty() : Optional.of(views.getLast());
    }

    /** Every member's latest view is the same one, and it holds every node. */
    boolean whole() {
        List<Optional<View>> latest =
                network.nodes().stream().map(this::latestView).toList();
        return latest.stream()
                .allMatch(v -> v.isPresent()
                        && v.get().members().size() == network.nodes().size()
                        && v.get().id().equals(latest.getFirst().get().id()));
    }

    /**
     * Whole, and no member installed a view for {@link #QUIET}: right after a merge, members often exclude each other
     * again on suspicions they raised while apart.
     */
    boolean settled() {
        long quietSince = JGroupsMember.nowMicros() - QUIET.toNanos() / 1000;
        return whole()
                && network.nodes().stream()
                        .allMatch(n -> latestView(n).orElseThrow().micros() <= quietSince);
    }

    void awaitSettled(Duration limit) {
        await("one view of all " + network.nodes().size() + " members, unchanged for " + QUIET, limit, this::settled);
    }

    /** The coordinator of the view all members share. */
    TestNode coordinator() {
        return node(latestView(network.nodes().getFirst()).orElseThrow().coordinator());
    }

    /** A last resort when a node back from a trial does not merge: its member is replaced by a fresh one. */
    void restart(TestNode node) {
        members.remove(node).stop(Duration.ofSeconds(2));
        startMember(node);
    }

    static void signal(long pid, int signal) {
        try {
            int result = (int) KILL.invokeExact((int) pid, signal);
            if (result != 0) {
                throw new IllegalStateException("kill(" + pid + ", " + signal + ") failed");
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** Counts the node's detector traffic from now on, in both directions; reset if it was counted before. */
    static void countTraffic(TestNetwork network, TestNode node) {
        network.run(node.namespace(), Duration.ofSeconds(5), "nft", "delete", "table", "inet", "detector_bench");
        nft(network, node, "add table inet detector_bench");
        for (String[] chain :
                new String[][] {{"out", "output", "oifname", "sent"}, {"in", "input", "iifname", "received"}}) {
            nft(
                    network,
                    node,
                    "add chain inet detector_bench " + chain[0] + " { type filter hook " + chain[1]
                            + " priority 0 ; }");
            nft(
                    network,
                    node,
                    "add rule inet detector_bench " + chain[0] + " " + chain[2] + " " + node.interfaceName()
                            + " meta l4proto { tcp, udp } th sport != " + TestNetwork.BACKEND_PORT + " th dport != "
                            + TestNetwork.BACKEND_PORT + " counter comment \"" + chain[3] + "\"");
        }
    }

    static Traffic traffic(TestNetwork network, TestNode node) {
        Matcher m = COUNTER.matcher(nft(network, node, "list table inet detector_bench"));
        long[] counts = new long[4];
        while (m.find()) {
            int at = m.group(3).equals("sent") ? 0 : 2;
            counts[at] = Long.parseLong(m.group(1));
            counts[at + 1] = Long.parseLong(m.group(2));
        }
        return new Traffic(counts[0], counts[1], counts[2], counts[3]);
    }

    /** Blocks until {@code condition} holds, polling; fails after {@code limit}. */
    void await(String what, Duration limit, BooleanSupplier condition) {
        if (!waitFor(limit, condition)) {
            throw new IllegalStateException("no " + what + " within " + limit + " (" + label + "); latest views: "
                    + network.nodes().stream()
                            .map(n -> n.name() + "="
                                    + latestView(n).map(View::toString).orElse("none"))
                            .collect(Collectors.joining("; "))
                    + "; logs in " + logs);
        }
    }

    /** Polls {@code condition} until it holds (true) or {@code limit} passed (false). */
    static boolean waitFor(Duration limit, BooleanSupplier condition) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            sleep(POLL);
        }
        return true;
    }

    /** The member's FD_ALL3 suspect events so far, from its latest STATS line (printed every few seconds). */
    long suspectEvents(TestNode node) {
        Matcher m = SUSPECTS.matcher(members.get(node).log());
        long latest = 0;
        while (m.find()) {
            latest = Long.parseLong(m.group(1));
        }
        return latest;
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Stops every member (SIGCONT first: a stopped process would not handle SIGTERM). */
    @Override
    public void close() {
        for (NamespacedProcess member : members.values()) {
            if (member.isAlive()) {
                try {
                    signal(member.pid(), SIGCONT);
                } catch (IllegalStateException exitedMeanwhile) {
                    // nothing to wake
                }
            }
            member.stop(Duration.ofSeconds(2));
        }
        members.clear();
    }

    private void startMember(TestNode node) {
        Path log = logs.resolve(label + "-" + node.name() + ".log");
        members.put(node, network.start(node.namespace(), command.forNode(node, network.nodes()), log));
    }

    private static String nft(TestNetwork network, TestNode node, String arguments) {
        List<String> command = new ArrayList<>(List.of("nft"));
        command.addAll(List.of(arguments.split(" ")));
        CommandResult result = network.run(node.namespace(), Duration.ofSeconds(5), command.toArray(String[]::new));
        if (!result.ok()) {
            throw new IllegalStateException("nft " + arguments + " in " + node.namespace() + ": " + result.output());
        }
        return result.stdout();
    }
}
