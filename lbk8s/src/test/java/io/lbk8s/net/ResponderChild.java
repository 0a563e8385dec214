package io.lbk8s.net;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.frame.ArpPacket;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.net.link.Links;
import io.lbk8s.net.link.PacketSocket;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs an InterfaceResponder inside a test namespace, driven over stdin: {@code announce IP}, {@code withdraw IP},
 * {@code join IP}, {@code leave IP}, {@code garp IP} (answers {@code ok sent=true|false}), {@code counts},
 * {@code link NAME}, {@code state NAME} (Links.state), {@code quit}; with a renewable fence also
 * {@code renew MILLIS} (permit that long from now), {@code renew-every PERIOD_MS DEADLINE_MS} (a thread renewing
 * as a failure detector would) and {@code lapse}. {@code probe WAIT_MS OURS IP...} runs an {@link AddressProbe} on
 * the same interface (OURS: comma-separated MACs, or {@code -} for none) and answers {@code ok IP=MAC ... after=MS}
 * or {@code ok none after=MS}. Every command answers one "ok ..." or "error ..." line. Exits on quit, on end of
 * input, and after 180 s regardless. Arguments: the interface, then optionally {@code raw-socket}
 * to keep ARP out of the kernel and {@code fenced} for a renewable fence (lapsed until renewed; otherwise the fence
 * is unlimited). {@code counts} first collects what the kernel answered and counted (arpPackets and arpDrops: since
 * the previous {@code counts}).
 */
public final class ResponderChild {

    private static volatile Set<IpAddress> announced = Set.of();
    private static AddressProbe probe;

    public static void main(String[] args) throws Exception {
        Thread.ofPlatform().daemon().start(() -> {
            try {
                Thread.sleep(180_000);
            } catch (InterruptedException ignored) {
                // exit anyway
            }
            System.exit(3);
        });
        LinkInfo link = Links.byName(args[0]).orElseThrow();
        AtomicLong requests = new AtomicLong();
        AtomicLong responses = new AtomicLong();
        AtomicLong gratuitous = new AtomicLong();
        AtomicLong arpPackets = new AtomicLong(); // since the last counts, as the kernel counted them
        AtomicLong arpDrops = new AtomicLong();
        L2Listener counting = new L2Listener() {
            @Override
            public AddressCounters counters(String iface, IpAddress ip) {
                return count -> {
                    requests.addAndGet(count);
                    responses.addAndGet(count);
                };
            }

            @Override
            public void gratuitousSent(String iface, IpAddress ip) {
                gratuitous.incrementAndGet();
            }

            @Override
            public void received(String iface, int etherType, PacketSocket.Stats counted) {
                if (etherType == ArpPacket.ETHERTYPE) {
                    arpPackets.addAndGet(counted.packets());
                    arpDrops.addAndGet(counted.drops());
                }
            }
        };
        List<String> flags = List.of(args).subList(1, args.length);
        boolean rawSocket = flags.contains("raw-socket");
        Fence fence = flags.contains("fenced") ? Fence.renewable() : Fence.unlimited();
        InterfaceResponder responder = InterfaceResponder.start(
                link,
                counting,
                ResponderOptions.DEFAULTS.withArpInKernel(!rawSocket).withFence(fence));
        System.out.println("ready " + link.name() + " " + link.index() + " " + link.mac() + " forced="
                + responder.receiveBufferForced()
                + " arpInKernel=" + responder.answersArpInKernel() + " problem=" + responder.arpInKernelProblem()
                + " fence=" + fence);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            for (String line; (line = in.readLine()) != null; ) {
                String[] words = line.strip().split("\\s+");
                try {
                    switch (words[0]) {
                        case "announce" -> responder.announce(change(words[1], true));
                        case "withdraw" -> responder.announce(change(words[1], false));
                        case "join" -> responder.joinSolicitedNode(ip(words[1]));
                        case "leave" -> responder.leaveSolicitedNode(ip(words[1]));
                        case "garp" -> {
                            System.out.println("ok sent=" + responder.sendGratuitous(ip(words[1])));
                            continue;
                        }
                        case "renew" -> fence.renewUntil(System.nanoTime() + millis(words[1]));
                        case "renew-every" -> renewEvery(fence, millis(words[1]), millis(words[2]));
                        case "lapse" -> fence.lapse();
                        case "probe" -> {
                            System.out.println("ok " + probe(link, words));
                            continue;
                        }
                        case "state" -> {
                            System.out.println("ok "
                                    + Links.state(words[1])
                                            .map(Object::toString)
                                            .orElse("absent"));
                            continue;
                        }
                        case "counts" -> {
                            responder.collectKernelAnswers();
                            responder.collectStatistics();
                            System.out.println("ok requests=" + requests + " responses=" + responses + " gratuitous="
                                    + gratuitous + " arpPackets=" + arpPackets.getAndSet(0)
                                    + " arpDrops=" + arpDrops.getAndSet(0));
                            continue;
                        }
                        case "link" -> {
                            System.out.println("ok " + Links.byName(words[1]).orElseThrow());
                            continue;
                        }
                        case "quit" -> {
                            long start = System.nanoTime();
                            responder.close();
                            System.out.println("ok closed in " + (System.nanoTime() - start) / 1_000_000 + " ms");
                            return;
                        }
                        default -> throw new IllegalArgumentException("unknown command " + words[0]);
                    }
                    System.out.println("ok");
                } catch (Exception e) {
                    System.out.println("error " + e);
                }
            }
        } finally {
            responder.close();
            if (probe != null) {
                probe.close();
            }
            System.exit(0);
        }
    }

    private static String probe(LinkInfo link, String[] words) throws IOException {
        if (probe == null) {
            probe = AddressProbe.open(link, true);
        }
        Duration wait = Duration.ofMillis(Long.parseLong(words[1]));
        Set<MacAddress> ours = words[2].equals("-")
                ? Set.of()
                : Stream.of(words[2].split(",")).map(MacAddress::parse).collect(Collectors.toSet());
        List<IpAddress> addresses =
                Stream.of(words).skip(3).map(ResponderChild::ip).toList();
        long start = System.nanoTime();
        Map<IpAddress, MacAddress> inUse = probe.inUse(addresses, ours, wait);
        long millis = (System.nanoTime() - start) / 1_000_000;
        String found = inUse.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .sorted()
                .collect(Collectors.joining(" "));
        return (found.isEmpty() ? "none" : found) + " after=" + millis + "ms";
    }

    /** A platform thread renewing as the failure detector will: every period, until now + deadline. */
    private static void renewEvery(Fence fence, long periodNanos, long deadlineNanos) {
        Thread.ofPlatform().daemon().name("renew-fence").start(() -> {
            while (true) {
                fence.renewUntil(System.nanoTime() + deadlineNanos);
                LockSupport.parkNanos(periodNanos);
            }
        });
    }

    private static long millis(String text) {
        return TimeUnit.MILLISECONDS.toNanos(Long.parseLong(text));
    }

    private static Set<IpAddress> change(String text, boolean add) {
        Set<IpAddress> next = new HashSet<>(announced);
        if (add) {
            next.add(ip(text));
        } else {
            next.remove(ip(text));
        }
        announced = Set.copyOf(next);
        return announced;
    }

    private static IpAddress ip(String text) {
        return IpAddress.parse(text).orElseThrow(() -> new IllegalArgumentException("not an IP: " + text));
    }
}
