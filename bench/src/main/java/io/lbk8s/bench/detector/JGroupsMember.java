package io.lbk8s.bench.detector;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jgroups.JChannel;
import org.jgroups.Receiver;
import org.jgroups.View;
import org.jgroups.protocols.FD_ALL3;

/**
 * One speaker's stand-in for the failure-detector comparison: joins a JGroups cluster over TCP or unicast-only UDP
 * with static discovery (TCPPING), FD_ALL3 and VERIFY_SUSPECT2, and prints one line per view it installs and one line
 * of counters every few seconds, both stamped with CLOCK_REALTIME in microseconds (the same clock in every namespace of
 * the host, so the bench can compare them with the instant it froze a node):
 * <pre>
 * VIEW 1764758400123456 node-1|4 node-1,node-3
 * STATS 1764758410000000 suspect_events 2 heartbeats_sent 200
 * </pre>
 * Usage: {@code JGroupsMember NAME BIND_IP PORT PEER_IPS(comma-separated, all members) tcp|udp INTERVAL_MS TIMEOUT_MS
 * VERIFY_MS [--fd-sock2] [--transport-attributes=NAME=VALUE,...]} (extra attributes of the TCP or UDP element, e.g.
 * {@code non_blocking_sends=true}). Runs until killed.
 */
public final class JGroupsMember {

    /** Fast enough that a healed partition (a node back after a trial) merges within a few seconds. */
    private static final String MERGE = "<MERGE3 min_interval=\"1s\" max_interval=\"3s\"/>";

    private static final long STATS_EVERY_SECONDS = 5;

    /** {@code transportAttributes}: extra or overriding attributes of the TCP or UDP element. */
    record Config(
            String name,
            String bindIp,
            int port,
            List<String> peerIps,
            String transport,
            long intervalMs,
            long timeoutMs,
            long verifyMs,
            boolean fdSock2,
            Map<String, String> transportAttributes) {

        private static final String TRANSPORT_ATTRIBUTES = "--transport-attributes=";

        static Config parse(String[] args) {
            if (args.length < 8 || !(args[4].equals("tcp") || args[4].equals("udp"))) {
                throw new IllegalArgumentException("usage: JGroupsMember NAME BIND_IP PORT PEER_IPS tcp|udp INTERVAL_MS"
                        + " TIMEOUT_MS VERIFY_MS [--fd-sock2] [" + TRANSPORT_ATTRIBUTES + "NAME=VALUE,...]; got "
                        + Arrays.toString(args));
            }
            Map<String, String> attributes = new LinkedHashMap<>();
            Arrays.stream(args)
                    .filter(a -> a.startsWith(TRANSPORT_ATTRIBUTES))
                    .flatMap(a -> Arrays.stream(
                            a.substring(TRANSPORT_ATTRIBUTES.length()).split(",")))
                    .map(a -> a.split("=", 2))
                    .forEach(a -> attributes.put(a[0], a[1]));
            return new Config(
                    args[0],
                    args[1],
                    Integer.parseInt(args[2]),
                    List.of(args[3].split(",")),
                    args[4],
                    Long.parseLong(args[5]),
                    Long.parseLong(args[6]),
                    Long.parseLong(args[7]),
                    Arrays.asList(args).contains("--fd-sock2"),
                    attributes);
        }

        /** The protocol stack, bottom first, as JGroups XML: printed at start so every run shows what it measured. */
        String stackXml() {
            Map<String, String> transportXml = new LinkedHashMap<>();
            transportXml.put("bind_addr", bindIp);
            transportXml.put("bind_port", String.valueOf(port));
            transportXml.put("port_range", "0");
            transportXml.put("diag.enabled", "false");
            if (transport.equals("tcp")) {
                transportXml.put("tcp_nodelay", "true");
                transportXml.put("sock_conn_timeout", "300ms"); // as in JGroups' tcp-default.xml (the class says 2 s)
                // A view change closes the connection to the member it removed; the next message to it
                // (VERIFY_SUSPECT2's ARE_YOU_DEAD, say) connects anew and waits sock_conn_timeout. With the default
                // single sender thread, every other member's messages wait too: views arrive 300 ms late, heartbeats
                // stop and survivors exclude each other. One sender thread per destination confines the wait to the
                // dead member.
                transportXml.put("bundler.use_single_sender_thread", "false");
            } else {
                transportXml.put("ip_mcast", "false"); // a "multicast" is one datagram per member, as TCP does
            }
            transportXml.putAll(transportAttributes);
            String hosts = peerIps.stream().map(ip -> ip + "[" + port + "]").collect(Collectors.joining(","));
            return String.join(
                            "\n",
                            "<config xmlns=\"urn:org:jgroups\">",
                            "  <" + transport.toUpperCase(Locale.ROOT)
                                    + transportXml.entrySet().stream()
                                            .map(e -> " " + e.getKey() + "=\"" + e.getValue() + "\"")
                                            .collect(Collectors.joining())
                                    + "/>",
                            "  <TCPPING initial_hosts=\"" + hosts + "\" port_range=\"0\"/>",
                            "  " + MERGE,
                            fdSock2 ? "  <FD_SOCK2/>" : "",
                            "  <FD_ALL3 interval=\"" + intervalMs + "\" timeout=\"" + timeoutMs + "\"/>",
                            "  <VERIFY_SUSPECT2 timeout=\"" + verifyMs + "\"/>",
                            "  <pbcast.NAKACK2 use_mcast_xmit=\"false\"/>",
                            "  <UNICAST3/>",
                            "  <pbcast.STABLE/>",
                            "  <pbcast.GMS join_timeout=\"1s\" print_local_addr=\"false\" print_physical_addrs=\"false\"/>",
                            "</config>")
                    .replace("\n\n", "\n");
        }
    }

    private JGroupsMember() {}

    public static void main(String[] args) throws Exception {
        Config config = Config.parse(args);
        String xml = config.stackXml();
        System.out.println("STACK\n" + xml);
        try (JChannel channel = new JChannel(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)))) {
            channel.name(config.name());
            channel.setReceiver(new Receiver() {
                @Override
                public void viewAccepted(View view) {
                    long micros = nowMicros(); // first: the print below is not part of the detection time
                    String members =
                            view.getMembers().stream().map(Object::toString).collect(Collectors.joining(","));
                    System.out.println("VIEW " + micros + " " + view.getCreator() + "|"
                            + view.getViewId().getId() + " " + members);
                }
            });
            channel.connect("lbk8s-detector-bench");
            printStatsPeriodically(channel);
            new CountDownLatch(1).await(); // until killed
        }
    }

    private static void printStatsPeriodically(JChannel channel) {
        FD_ALL3 detector = channel.getProtocolStack().findProtocol(FD_ALL3.class);
        Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().factory())
                .scheduleAtFixedRate(
                        () -> {
                            System.out.println(
                                    "STATS " + nowMicros() + " suspect_events " + detector.getSuspectEventsSent()
                                            + " heartbeats_sent " + detector.getHeartbeatsSent());
                        },
                        STATS_EVERY_SECONDS,
                        STATS_EVERY_SECONDS,
                        TimeUnit.SECONDS);
    }

    /** CLOCK_REALTIME in microseconds ({@link Instant#now()} reads it with at least that resolution on Linux). */
    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }
}
