package io.lbk8s.bench;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.ArpProbe;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.net.link.Links;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * The client's side of the layer-2 benchmarks, run inside the client namespace by {@link L2Benchmark}. Prints one
 * result line per mode; every loop is bounded in count and time.
 * <pre>
 *   latency IFACE OUR_IP KERNEL_IP VIP COUNT     alternate ARP requests to a node's own IP and to the VIP
 *   load IFACE OUR_IP VIP MAC COUNT PER_SECOND   send COUNT requests to MAC (or ff:ff:ff:ff:ff:ff) at a rate, count the replies
 *   http IP INTERVAL_MS DURATION_MS [CONNECT_MS] GET / every interval; print "epochMicros body" per answer
 * </pre>
 */
public final class L2ClientProbe {
    private L2ClientProbe() {}

    /** The command that runs this probe with {@code args} in a JVM of its own (inside a namespace, say). */
    static List<String> command(String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                L2ClientProbe.class.getName()));
        command.addAll(Arrays.asList(args));
        return command;
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "latency" -> latency(args[1], ip(args[2]), ip(args[3]), ip(args[4]), Integer.parseInt(args[5]));
            case "load" ->
                load(
                        args[1],
                        ip(args[2]),
                        ip(args[3]),
                        MacAddress.parse(args[4]),
                        Integer.parseInt(args[5]),
                        Integer.parseInt(args[6]));
            case "http" ->
                http(
                        InetAddress.getByName(args[1]),
                        Integer.parseInt(args[2]),
                        Integer.parseInt(args[3]),
                        args.length > 4 ? Integer.parseInt(args[4]) : 50);
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }

    private static IpAddress ip(String text) {
        return IpAddress.parse(text).orElseThrow(() -> new IllegalArgumentException("not an IP address: " + text));
    }

    private static LinkInfo link(String name) {
        return Links.byName(name).orElseThrow(() -> new IllegalArgumentException("no interface " + name));
    }

    /** Kernel and speaker measured in the same run, request by request alternately, so both see the same machine. */
    private static void latency(String iface, IpAddress ourIp, IpAddress kernelIp, IpAddress vip, int count)
            throws IOException {
        long[] kernel = new long[count];
        long[] speaker = new long[count];
        long[] added = new long[count]; // speaker minus kernel within one pair of requests, where both were answered
        int kernelAnswered = 0;
        int speakerAnswered = 0;
        int pairs = 0;
        try (ArpProbe probe = ArpProbe.open(link(iface), ourIp)) {
            for (int i = 0; i < count; i++) {
                Optional<ArpProbe.Reply> k = probe.probe(kernelIp, MacAddress.BROADCAST, Duration.ofMillis(200));
                if (k.isPresent()) {
                    kernel[kernelAnswered++] = k.get().roundTripNanos();
                }
                LockSupport.parkNanos(5_000_000);
                Optional<ArpProbe.Reply> s = probe.probe(vip, MacAddress.BROADCAST, Duration.ofMillis(200));
                if (s.isPresent()) {
                    speaker[speakerAnswered++] = s.get().roundTripNanos();
                    if (k.isPresent()) {
                        added[pairs++] = s.get().roundTripNanos() - k.get().roundTripNanos();
                    }
                }
                LockSupport.parkNanos(5_000_000);
            }
        }
        System.out.println("kernel " + summary(kernel, kernelAnswered, count));
        System.out.println("speaker " + summary(speaker, speakerAnswered, count));
        long[] sortedAdded = Arrays.copyOf(added, pairs);
        Arrays.sort(sortedAdded);
        if (pairs > 0) {
            System.out.printf(Locale.ROOT, "added pairs %d p50 %.1f%n", pairs, sortedAdded[pairs / 2] / 1000.0);
        }
    }

    private static String summary(long[] nanos, int answered, int count) {
        long[] sorted = Arrays.copyOf(nanos, answered);
        Arrays.sort(sorted);
        if (answered == 0) {
            return "answered 0 of " + count;
        }
        return String.format(
                Locale.ROOT,
                "answered %d of %d p50 %.1f p99 %.1f",
                answered,
                count,
                sorted[answered / 2] / 1000.0,
                sorted[Math.min(answered - 1, (int) (answered * 0.99))] / 1000.0);
    }

    private static void load(
            String iface, IpAddress ourIp, IpAddress vip, MacAddress destination, int count, int perSecond)
            throws IOException {
        try (ArpProbe probe = ArpProbe.open(link(iface), ourIp)) {
            ArpProbe.LoadResult result = probe.load(vip, destination, count, perSecond, Duration.ofSeconds(1));
            System.out.printf(
                    Locale.ROOT,
                    "sent %d answered %d seconds %.3f%n",
                    result.sent(),
                    result.answered(),
                    result.elapsed().toNanos() / 1e9);
        }
    }

    /**
     * A connection attempt that goes to a dead node's MAC waits out {@code connectMillis} before the next one starts, so
     * that is the resolution of "the first answer after a failover".
     */
    private static void http(InetAddress ip, int intervalMillis, int durationMillis, int connectMillis) {
        long end = System.nanoTime() + durationMillis * 1_000_000L;
        byte[] request = "GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        while (System.nanoTime() < end) {
            long started = System.nanoTime();
            String body = "-";
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(ip, 80), connectMillis);
                socket.setSoTimeout(200);
                OutputStream out = socket.getOutputStream();
                out.write(request);
                out.flush();
                InputStream in = socket.getInputStream();
                String response = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
                int blank = response.indexOf("\r\n\r\n");
                body = blank < 0 ? "-" : response.substring(blank + 4).strip();
            } catch (IOException e) {
                body = "-";
            }
            Instant now = Instant.now();
            System.out.println(
                    (now.getEpochSecond() * 1_000_000L + now.getNano() / 1000) + " " + (body.isEmpty() ? "-" : body));
            long sleep = intervalMillis * 1_000_000L - (System.nanoTime() - started);
            if (sleep > 0) {
                LockSupport.parkNanos(sleep);
            }
        }
        System.out.flush();
    }
}
