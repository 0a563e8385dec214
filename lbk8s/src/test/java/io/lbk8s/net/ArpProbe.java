package io.lbk8s.net;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.bpf.BpfProgram;
import io.lbk8s.net.frame.ArpPacket;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.frame.Wire;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.net.link.Links;
import io.lbk8s.net.link.PacketSocket;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A small ARP client for the tests and benchmarks (bench/ takes it from this module's test jar; the shipped jar does
 * not hold it): asks who has an IP, as {@code arping} does, and measures the round trip; or sends a paced series of
 * requests and counts the replies. Every wait is bounded.
 */
public final class ArpProbe implements AutoCloseable {

    public record Reply(MacAddress mac, long roundTripNanos) {}

    public record LoadResult(int sent, int answered, Duration elapsed) {}

    private static final Duration POLL = Duration.ofMillis(50);

    private final PacketSocket socket;
    private final MacAddress ourMac;
    private final IpAddress ourIp;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment request = arena.allocate(64, 16);

    private ArpProbe(PacketSocket socket, MacAddress ourMac, IpAddress ourIp) {
        this.socket = socket;
        this.ourMac = ourMac;
        this.ourIp = ourIp;
    }

    /** A probe on {@code link} that asks with the link's MAC and {@code ourIp} as sender. */
    public static ArpProbe open(LinkInfo link, IpAddress ourIp) throws IOException {
        PacketSocket socket = PacketSocket.open(link, ArpPacket.ETHERTYPE, BpfProgram.arpReplies(), POLL);
        socket.requestReceiveBuffer(4 << 20);
        return new ArpProbe(socket, link.mac(), ourIp);
    }

    /** One request; the first matching reply within {@code timeout}, with its round trip. */
    public Optional<Reply> probe(IpAddress target, Duration timeout) throws IOException {
        return probe(target, MacAddress.BROADCAST, timeout);
    }

    /**
     * One request sent to {@code ethernetDestination} instead of broadcast, as a host refreshing a cached entry
     * does (and to check that a responder ignores requests for other MACs).
     */
    public Optional<Reply> probe(IpAddress target, MacAddress ethernetDestination, Duration timeout)
            throws IOException {
        int length = ArpPacket.encodeRequest(request, ourMac, ourIp, target);
        Wire.putMac(request, 0, ethernetDestination.bits());
        try (Arena local = Arena.ofConfined()) {
            MemorySegment received = local.allocate(2048, 16);
            long sentAt = System.nanoTime();
            socket.send(request, length);
            long deadline = sentAt + timeout.toNanos();
            while (System.nanoTime() - deadline < 0) {
                int n = socket.receive(received);
                if (n > 0 && answers(received, n, (int) target.low())) {
                    return Optional.of(
                            new Reply(new MacAddress(ArpPacket.senderMac(received)), System.nanoTime() - sentAt));
                }
            }
            return Optional.empty();
        }
    }

    /**
     * Sends {@code count} requests at {@code perSecond} and counts the replies that arrive until all are in or
     * {@code drain} has passed after the last request.
     */
    public LoadResult load(IpAddress target, int count, int perSecond, Duration drain) throws IOException {
        return load(target, MacAddress.BROADCAST, count, perSecond, drain);
    }

    /**
     * As {@link #load(IpAddress, int, int, Duration)}, with requests sent to {@code ethernetDestination}: unicast to
     * the responder's MAC, as Linux sends them when it refreshes a neighbor entry, they reach only that node, so the
     * figure measures the responder rather than every node's kernel dropping broadcast copies.
     */
    public LoadResult load(IpAddress target, MacAddress ethernetDestination, int count, int perSecond, Duration drain)
            throws IOException {
        int length = ArpPacket.encodeRequest(request, ourMac, ourIp, target);
        Wire.putMac(request, 0, ethernetDestination.bits());
        AtomicInteger answered = new AtomicInteger();
        long interval = 1_000_000_000L / Math.max(1, perSecond);
        long start = System.nanoTime();
        long sendingEnds = start + interval * count;
        long[] receiveUntil = {sendingEnds + drain.toNanos()};
        Thread receiver = Thread.ofPlatform().name("arp-probe-receive").start(() -> {
            try (Arena local = Arena.ofConfined()) {
                MemorySegment received = local.allocate(2048, 16);
                while (answered.get() < count && System.nanoTime() - receiveUntil[0] < 0) {
                    int n = socket.receive(received);
                    if (n > 0 && answers(received, n, (int) target.low())) {
                        answered.incrementAndGet();
                    }
                }
            } catch (IOException e) {
                // counted as unanswered
            }
        });
        // Paced in batches: send whatever is due, then sleep; spinning for 12 µs gaps would take a whole core
        // from the responder on a small machine.
        int sent = 0;
        while (sent < count) {
            long due = (System.nanoTime() - start) / interval + 1;
            for (long end = Math.min(count, due); sent < end; sent++) {
                socket.send(request, length);
            }
            if (sent < count) {
                LockSupport.parkNanos(Math.min(interval, 200_000));
            }
        }
        try {
            receiver.join(Duration.ofNanos(Math.max(0, receiveUntil[0] - System.nanoTime()))
                    .plus(POLL.multipliedBy(2)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new LoadResult(sent, answered.get(), Duration.ofNanos(System.nanoTime() - start));
    }

    private boolean answers(MemorySegment frame, int length, int target) {
        return ArpPacket.check(frame, length) == ArpPacket.Verdict.OK
                && ArpPacket.operation(frame) == ArpPacket.REPLY
                && ArpPacket.ethernetDestination(frame) == ourMac.bits()
                && ArpPacket.senderIpv4(frame) == target
                && ArpPacket.targetIpv4(frame) == (int) ourIp.low();
    }

    @Override
    public void close() {
        socket.close();
        arena.close();
    }

    /**
     * {@code ArpProbe IFACE OUR_IP TARGET_IP [COUNT [PER_SECOND]]}: with COUNT alone, COUNT probes 10 ms apart and
     * their latency percentiles; with PER_SECOND too, a load run. A leading {@code --to MAC} sends the probes to
     * that Ethernet address instead of broadcast.
     */
    public static void main(String[] arguments) throws IOException {
        MacAddress destination = MacAddress.BROADCAST;
        String[] args = arguments;
        if (args.length > 1 && args[0].equals("--to")) {
            destination = MacAddress.parse(args[1]);
            args = Arrays.copyOfRange(args, 2, args.length);
        }
        if (args.length < 3) {
            System.err.println("usage: ArpProbe [--to MAC] IFACE OUR_IP TARGET_IP [COUNT [PER_SECOND]]");
            System.exit(2);
        }
        String iface = args[0];
        LinkInfo link = Links.byName(iface).orElseThrow(() -> new IllegalArgumentException("no interface " + iface));
        IpAddress ourIp = IpAddress.parse(args[1]).orElseThrow();
        IpAddress target = IpAddress.parse(args[2]).orElseThrow();
        int count = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        try (ArpProbe probe = open(link, ourIp)) {
            if (args.length > 4) {
                System.out.println(
                        probe.load(target, destination, count, Integer.parseInt(args[4]), Duration.ofSeconds(1)));
                return;
            }
            long[] nanos = new long[count];
            int answered = 0;
            for (int i = 0; i < count; i++) {
                Optional<Reply> reply = probe.probe(target, destination, Duration.ofMillis(500));
                if (reply.isPresent()) {
                    nanos[answered++] = reply.get().roundTripNanos();
                    if (i == 0) {
                        System.out.println("reply from " + reply.get().mac());
                    }
                }
                LockSupport.parkNanos(10_000_000);
            }
            long[] sorted = Arrays.copyOf(nanos, answered);
            Arrays.sort(sorted);
            if (answered > 0) {
                System.out.printf(
                        "answered %d/%d p50 %d us p99 %d us%n",
                        answered,
                        count,
                        sorted[answered / 2] / 1000,
                        sorted[Math.min(answered - 1, answered * 99 / 100)] / 1000);
            } else {
                System.out.printf("answered 0/%d%n", count);
            }
        }
    }
}
