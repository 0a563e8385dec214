package io.lbk8s.bench;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import io.lbk8s.bgp.AdjRibOut;
import io.lbk8s.bgp.Family;
import io.lbk8s.bgp.Message;
import io.lbk8s.bgp.MessageEncoder;
import io.lbk8s.bgp.Route;
import io.lbk8s.bgp.SessionContext;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The speaker's side of a full table, alone: 10,000 routes (one attribute set, as BgpBenchmark's Services) planned
 * for a new session ({@link AdjRibOut#everything}), encoded, and written to a loopback socket as PeerSession writes
 * them (one write and flush per message), timed and with this thread's allocated bytes, {@code rounds} times. Run it
 * with the speaker's JVM flags and heap to see what a collection adds.
 * <pre>
 *   java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx64m -cp bench/target/classes:$(cat bench/target/classpath.txt) \
 *     io.lbk8s.bench.FullTableHarness [routes] [rounds] [ballast MiB]
 * </pre>
 */
public final class FullTableHarness {
    private FullTableHarness() {}

    public static void main(String[] args) throws Exception {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        // live data kept meanwhile, as the speaker's informer stores: near the limit, collections are full ones
        byte[][] ballast = new byte[args.length > 2 ? Integer.parseInt(args[2]) * 16 : 0][];
        for (int i = 0; i < ballast.length; i++) {
            ballast[i] = new byte[64 * 1024];
        }
        Set<Route> wanted = routes(count);
        SessionContext context = new SessionContext(
                64512,
                false,
                true,
                Set.of(Family.IPV4_UNICAST),
                IpAddress.parse("198.18.0.2").orElseThrow(),
                Optional.empty(),
                Optional.empty(),
                false);
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
                Socket peer = server.accept()) {
            Thread drain = Thread.ofPlatform().daemon().start(() -> drain(peer));
            OutputStream out = client.getOutputStream();
            for (int round = 0; round < rounds; round++) {
                long allocated = threads.getCurrentThreadAllocatedBytes();
                long start = System.nanoTime();
                AdjRibOut.Plan plan = AdjRibOut.everything(wanted, context);
                long planned = System.nanoTime();
                List<byte[]> encoded = new ArrayList<>();
                long bytes = 0;
                for (Message.Update update : plan.updates()) {
                    byte[] message = MessageEncoder.encode(update, true);
                    encoded.add(message);
                    bytes += message.length;
                }
                long encodedAt = System.nanoTime();
                for (byte[] message : encoded) {
                    out.write(message);
                    out.flush();
                }
                long written = System.nanoTime();
                System.out.printf(
                        Locale.ROOT,
                        "round %d: %d routes -> %d UPDATEs, %,d bytes; plan %.1f ms, encode %.1f ms, write %.1f ms;"
                                + " allocated %,d KiB%n",
                        round,
                        plan.sent().size(),
                        plan.updates().size(),
                        bytes,
                        (planned - start) / 1e6,
                        (encodedAt - planned) / 1e6,
                        (written - encodedAt) / 1e6,
                        (threads.getCurrentThreadAllocatedBytes() - allocated) / 1024);
            }
            client.shutdownOutput();
            System.out.println("ballast kept: " + ballast.length / 16 + " MiB");
            drain.join(5_000);
        }
    }

    /** {@code count} /32 routes from 198.19.64.1 on, as BgpBenchmark's bulk pool. */
    static Set<Route> routes(int count) {
        IpAddress base = IpAddress.parse("198.19.64.0").orElseThrow();
        Set<Route> routes = new HashSet<>();
        for (int i = 1; i <= count; i++) {
            routes.add(Route.of(new IpPrefix(base.plus(i).orElseThrow(), 32)));
        }
        return Set.copyOf(routes);
    }

    private static void drain(Socket peer) {
        byte[] buffer = new byte[65_536];
        try (InputStream in = peer.getInputStream()) {
            while (in.read(buffer) >= 0) {
                // the peer's side only reads
            }
        } catch (java.io.IOException e) {
            // the harness is ending
        }
    }
}
