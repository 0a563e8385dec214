package io.lbk8s.net;

import io.lbk8s.address.IpAddress;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs an InterfaceResponder inside a test namespace, driven over stdin: {@code announce IP}, {@code withdraw IP},
 * {@code join IP}, {@code leave IP}, {@code garp IP}, {@code counts}, {@code link NAME}, {@code quit}. Every
 * command answers one "ok ..." or "error ..." line. Exits on quit, on end of input, and after 180 s regardless.
 * Arguments: the interface, then optionally {@code raw-socket} to keep ARP out of the kernel. {@code counts} first
 * collects what the kernel answered.
 */
public final class ResponderChild {

    private static volatile Set<IpAddress> announced = Set.of();

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
        };
        boolean rawSocket = args.length > 1 && args[1].equals("raw-socket");
        InterfaceResponder responder = InterfaceResponder.start(link, counting, ResponderOptions.DEFAULTS.withArpInKernel(!rawSocket));
        System.out.println("ready " + link.name() + " " + link.index() + " " + link.mac() + " forced=" + responder.receiveBufferForced()
                + " arpInKernel=" + responder.answersArpInKernel() + " problem=" + responder.arpInKernelProblem());
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
                        case "garp" -> responder.sendGratuitous(ip(words[1]));
                        case "counts" -> {
                            responder.collectKernelAnswers();
                            PacketSocket.Stats stats = responder.arpStatistics();
                            System.out.println("ok requests=" + requests + " responses=" + responses + " gratuitous="
                                    + gratuitous + " arpPackets=" + stats.packets() + " arpDrops=" + stats.drops());
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
            System.exit(0);
        }
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
