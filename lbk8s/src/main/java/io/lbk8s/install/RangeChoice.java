package io.lbk8s.install;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.address.IpPrefix;
import io.lbk8s.address.IpRange;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Picks the pool for a cluster from where its nodes are: per IP family, the nodes' network (a known one, e.g. the
 * Docker network of the node containers, else a /24 around IPv4 nodes and a /64 around IPv6 ones), and in it a
 * range near the top: offsets 200-250 of its last 256 addresses (so {@code 10.5.0.200-10.5.0.250} on 10.5.0.0/24
 * and {@code 172.18.255.200-172.18.255.250} on kind's 172.18.0.0/16), scaled down for small networks, never
 * touching the network and broadcast addresses, the gateway, a node, or an existing pool. Pure.
 */
public final class RangeChoice {
    private RangeChoice() {}

    /** A network known from outside the API (the Docker network of the node containers). */
    public record KnownNetwork(IpPrefix network, Optional<IpAddress> gateway, String source) {}

    /**
     * @param taken  addresses already in other pools; never offered again
     */
    public record Inputs(List<IpAddress> nodeIps, List<KnownNetwork> knownNetworks, List<IpRange> taken) {
        public Inputs {
            nodeIps = List.copyOf(nodeIps);
            knownNetworks = List.copyOf(knownNetworks);
            taken = List.copyOf(taken);
        }
    }

    /** One family's pick: the range and the network it was taken from, with how that network was found. */
    public record Pick(IpRange range, IpPrefix network, String networkSource) {}

    public sealed interface Choice {
        record Chosen(List<Pick> picks) implements Choice {
            public List<String> addresses() {
                return picks.stream().map(p -> p.range().text()).toList();
            }
        }

        record NoRoom(String message) implements Choice {}
    }

    /** Offsets inside the top block of 256 addresses, as in the reference design's 10.5.0.200-10.5.0.250. */
    private static final int BLOCK = 256;

    private static final int WINDOW_FIRST = 200;
    private static final int WINDOW_LAST = 250;
    /** When the window is full, how far below the top to look for room (bounded: IPv6 networks are huge). */
    private static final int FALLBACK_SPAN = 4096;

    public static Choice choose(Inputs inputs) {
        if (inputs.nodeIps().isEmpty()) {
            return new Choice.NoRoom("no node has an InternalIP, so the node network is unknown: pass --addresses");
        }
        List<Pick> picks = new ArrayList<>();
        for (IpFamily family : IpFamily.values()) {
            List<IpAddress> nodes = inputs.nodeIps().stream()
                    .filter(ip -> ip.family() == family)
                    .sorted()
                    .distinct()
                    .toList();
            if (nodes.isEmpty()) {
                continue;
            }
            KnownNetwork network = networkOf(nodes, inputs.knownNetworks());
            switch (pick(network, nodes, inputs.taken())) {
                case Pick p -> picks.add(p);
                case null -> {
                    return new Choice.NoRoom(
                            "the node network " + network.network() + " (" + network.source() + ") has no free "
                                    + "address: every one is the network or broadcast address, the gateway, a node ("
                                    + describe(nodes)
                                    + ") or already in a pool; pass --addresses with a range the nodes can reach");
                }
            }
        }
        return new Choice.Chosen(picks);
    }

    /** A known network holding every node of the family (the smallest such), else one guessed around them. */
    static KnownNetwork networkOf(List<IpAddress> nodes, List<KnownNetwork> known) {
        Optional<KnownNetwork> holding = known.stream()
                .filter(k -> nodes.stream().allMatch(k.network()::contains))
                .max(Comparator.comparingInt(k -> k.network().length()));
        if (holding.isPresent()) {
            return holding.get();
        }
        IpFamily family = nodes.getFirst().family();
        int guess = family == IpFamily.IPv4 ? 24 : 64;
        int prefix = guess;
        while (prefix > 0 && !allIn(IpPrefix.around(nodes.getFirst(), prefix), nodes)) {
            prefix--;
        }
        String why = prefix == guess
                ? "a /" + guess + " around the nodes' InternalIPs"
                : "the smallest network holding every node's InternalIP";
        return new KnownNetwork(IpPrefix.around(nodes.getFirst(), prefix), Optional.empty(), why);
    }

    private static boolean allIn(IpPrefix network, List<IpAddress> nodes) {
        return nodes.stream().allMatch(network::contains);
    }

    private static Pick pick(KnownNetwork known, List<IpAddress> nodes, List<IpRange> taken) {
        IpPrefix network = known.network();
        BigInteger size = network.size();
        IpAddress gateway = known.gateway().orElseGet(() -> network.at(BigInteger.ONE));
        // the lowest and highest offsets an address may have: not the network address, not the broadcast address
        BigInteger lowest = BigInteger.ONE;
        BigInteger highest =
                network.family() == IpFamily.IPv4 ? size.subtract(BigInteger.TWO) : size.subtract(BigInteger.ONE);
        if (highest.compareTo(lowest) < 0) {
            return null;
        }
        BigInteger block = size.min(BigInteger.valueOf(BLOCK));
        BigInteger blockStart = size.subtract(block);
        BigInteger windowFirst =
                blockStart.add(block.multiply(BigInteger.valueOf(WINDOW_FIRST)).divide(BigInteger.valueOf(BLOCK)));
        BigInteger windowLast = blockStart
                .add(block.multiply(BigInteger.valueOf(WINDOW_LAST)).divide(BigInteger.valueOf(BLOCK)))
                .min(highest);
        windowFirst = windowFirst.max(lowest);
        Free free = new Free(network, nodes, gateway, taken);
        Optional<Run> best = free.longestRun(windowFirst, windowLast);
        if (best.isEmpty()) {
            // the usual window is occupied: the highest free run below it, as long as the window would have been
            BigInteger span =
                    windowLast.subtract(windowFirst).add(BigInteger.ONE).max(BigInteger.ONE);
            BigInteger from =
                    highest.subtract(BigInteger.valueOf(FALLBACK_SPAN)).max(lowest);
            best = free.highestRun(from, highest, span);
        }
        return best.map(run -> {
                    IpAddress first = network.at(run.first());
                    IpAddress last = network.at(run.last());
                    String text =
                            first.equals(last) ? first + "/" + first.family().bits() : first + "-" + last;
                    return new Pick(new IpRange(first, last, text), network, known.source());
                })
                .orElse(null);
    }

    private record Run(BigInteger first, BigInteger last) {
        BigInteger length() {
            return last.subtract(first).add(BigInteger.ONE);
        }
    }

    /** Which offsets of a network are free: not a node, not the gateway, not in another pool. */
    private record Free(IpPrefix network, List<IpAddress> nodes, IpAddress gateway, List<IpRange> taken) {
        boolean at(BigInteger offset) {
            IpAddress ip = network.at(offset);
            return !ip.equals(gateway) && !nodes.contains(ip) && taken.stream().noneMatch(r -> r.contains(ip));
        }

        /** The longest free run in [from, to]; ties go to the higher one. */
        Optional<Run> longestRun(BigInteger from, BigInteger to) {
            Optional<Run> best = Optional.empty();
            for (Run run : runs(from, to)) {
                if (best.isEmpty() || run.length().compareTo(best.get().length()) >= 0) {
                    best = Optional.of(run);
                }
            }
            return best;
        }

        /** The highest free run in [from, to], cut to at most {@code span} addresses from its top. */
        Optional<Run> highestRun(BigInteger from, BigInteger to, BigInteger span) {
            List<Run> runs = runs(from, to);
            if (runs.isEmpty()) {
                return Optional.empty();
            }
            Run top = runs.getLast();
            BigInteger first = top.first().max(top.last().subtract(span).add(BigInteger.ONE));
            return Optional.of(new Run(first, top.last()));
        }

        private List<Run> runs(BigInteger from, BigInteger to) {
            List<Run> runs = new ArrayList<>();
            BigInteger start = null;
            for (BigInteger o = from; o.compareTo(to) <= 0; o = o.add(BigInteger.ONE)) {
                if (at(o)) {
                    if (start == null) {
                        start = o;
                    }
                } else if (start != null) {
                    runs.add(new Run(start, o.subtract(BigInteger.ONE)));
                    start = null;
                }
            }
            if (start != null) {
                runs.add(new Run(start, to));
            }
            return runs;
        }
    }

    private static String describe(List<IpAddress> nodes) {
        return nodes.size() <= 4
                ? nodes.toString().replaceAll("[\\[\\]]", "")
                : nodes.getFirst() + " ... " + nodes.getLast() + ", " + nodes.size() + " addresses";
    }
}
