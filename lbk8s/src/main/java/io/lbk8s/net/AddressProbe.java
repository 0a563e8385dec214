package io.lbk8s.net;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.bpf.BpfProgram;
import io.lbk8s.net.frame.ArpPacket;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.frame.NdpPacket;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.net.link.PacketSocket;
import io.lbk8s.net.link.SolicitedNodeGroups;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Asks the LAN whether another host answers for addresses before this node starts announcing them: an ARP probe
 * (RFC 5227) for each IPv4 address, a duplicate address detection solicitation (RFC 4862) for each IPv6 one. A
 * speaker taking over a Service address probes first, so that it does not announce what another live node still
 * answers for (a partition, a frozen node whose kernel still answers, a host with the address configured).
 *
 * <p>An address is in use when a host other than ours answers for it (an ARP reply, gratuitous ARP or any ARP frame
 * with it as sender IP; a neighbor advertisement for it), or probes for it at the same moment (an ARP probe or a
 * duplicate address detection solicitation for it): two speakers probing at once must both back off, as RFC 5227
 * and RFC 4862 say.
 *
 * <p>Each probe goes out twice, at the start and half-way through the wait, so that one lost frame, or a snooping
 * switch that has not yet learnt our solicited-node group, does not matter. Between probes the sockets' kernel
 * filters let nothing in; during one they let in only frames about the probed addresses.
 */
public final class AddressProbe implements AutoCloseable {

    /** Sockets need one, but every receive here follows poll(2) and does not block. */
    private static final Duration RECEIVE_TIMEOUT = Duration.ofMillis(100);

    private static final int FRAME_BUFFER = 2048;

    private final LinkInfo link;
    private final PacketSocket arpSocket;
    private final PacketSocket ndpSocket; // null without IPv6
    private final SolicitedNodeGroups groups; // null without IPv6

    private AddressProbe(LinkInfo link, PacketSocket arpSocket, PacketSocket ndpSocket, SolicitedNodeGroups groups) {
        this.link = link;
        this.arpSocket = arpSocket;
        this.ndpSocket = ndpSocket;
        this.groups = groups;
    }

    /** Opens the sockets on {@code link}, listening to nothing until {@link #inUse}; IPv6 only if asked. */
    public static AddressProbe open(LinkInfo link, boolean ipv6) throws IOException {
        PacketSocket arp = null;
        PacketSocket ndp = null;
        SolicitedNodeGroups groups = null;
        try {
            arp = PacketSocket.open(link, ArpPacket.ETHERTYPE, BpfProgram.rejectAll(), RECEIVE_TIMEOUT);
            if (ipv6) {
                ndp = PacketSocket.open(link, NdpPacket.ETHERTYPE, BpfProgram.rejectAll(), RECEIVE_TIMEOUT);
                groups = SolicitedNodeGroups.open(link);
            }
            return new AddressProbe(link, arp, ndp, groups);
        } catch (IOException | RuntimeException e) {
            Opened.closeAfter(e, groups, ndp, arp);
            throw e;
        }
    }

    /**
     * Probes for {@code addresses} and listens for {@code wait}, the whole of it even when every address turned out
     * to be in use: a host that started probing a little later than we did hears us only through our second probe.
     * Returns the addresses some host whose MAC is neither this link's nor in {@code ours} (this node's other
     * interfaces) answered for or probed for, each with that
     * MAC (the first one heard); empty when nobody did. Takes {@code wait} and a few system calls more, whatever
     * arrives.
     *
     * @throws IllegalArgumentException for an IPv6 address on a probe opened without IPv6, or a negative wait
     */
    public synchronized Map<IpAddress, MacAddress> inUse(
            Collection<IpAddress> addresses, Set<MacAddress> ours, Duration wait) throws IOException {
        if (wait.isNegative()) {
            throw new IllegalArgumentException("a negative wait: " + wait);
        }
        Set<IpAddress> asked = new LinkedHashSet<>(addresses);
        List<IpAddress> v4 = asked.stream().filter(IpAddress::isV4).toList();
        List<IpAddress> v6 = asked.stream().filter(ip -> !ip.isV4()).toList();
        if (!v6.isEmpty() && ndpSocket == null) {
            throw new IllegalArgumentException("IPv6 is not enabled on the address probe for " + link.name());
        }
        if (asked.isEmpty()) {
            return Map.of();
        }
        List<IpAddress> joined = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            listenFor(v4, v6);
            for (IpAddress ip : v6) {
                groups.join(ip); // RFC 4862 5.4.2: so that a snooping switch forwards others' probes for it to us
                joined.add(ip);
            }
            Set<MacAddress> notOthers = new java.util.HashSet<>(ours);
            notOthers.add(link.mac()); // our own probes, as the packet socket sees them go out
            return listen(asked, v4, v6, notOthers, wait, arena);
        } finally {
            joined.forEach(ip -> groups.leave(ip)); // a method reference would need groups even with no IPv6 (null)
            arpSocket.replaceFilter(BpfProgram.rejectAll());
            if (ndpSocket != null) {
                ndpSocket.replaceFilter(BpfProgram.rejectAll());
            }
        }
    }

    private void listenFor(List<IpAddress> v4, List<IpAddress> v6) throws IOException {
        arpSocket.replaceFilter(BpfProgram.arpClaimsFor(
                v4.stream().mapToInt(ip -> (int) ip.low()).toArray()));
        arpSocket.discardQueued();
        if (ndpSocket != null) {
            ndpSocket.replaceFilter(BpfProgram.neighborClaimsFor(
                    v6.stream().mapToInt(ip -> (int) ip.low()).toArray()));
            ndpSocket.discardQueued();
        }
    }

    private Map<IpAddress, MacAddress> listen(
            Set<IpAddress> asked,
            List<IpAddress> v4,
            List<IpAddress> v6,
            Set<MacAddress> ours,
            Duration wait,
            Arena arena)
            throws IOException {
        PacketSocket[] sockets =
                ndpSocket == null ? new PacketSocket[] {arpSocket} : new PacketSocket[] {arpSocket, ndpSocket};
        MemorySegment frame = arena.allocate(FRAME_BUFFER, 16);
        Map<IpAddress, MacAddress> found = new HashMap<>();
        long start = System.nanoTime();
        long again = start + wait.toNanos() / 2;
        long end = start + wait.toNanos();
        sendProbes(v4, v6, frame);
        boolean sentAgain = false;
        while (true) {
            long now = System.nanoTime();
            if (!sentAgain && now - again >= 0) {
                sendProbes(v4, v6, frame);
                sentAgain = true;
            }
            if (now - end >= 0) {
                break;
            }
            long until = sentAgain ? end : again;
            int ready = PacketSocket.awaitReadable(sockets, Duration.ofNanos(until - now));
            for (int i = 0; i < sockets.length; i++) {
                if ((ready & (1 << i)) == 0) {
                    continue;
                }
                // bounded by the next event too, so that a flood cannot hold the second probe or the end back
                for (int n; System.nanoTime() - until < 0 && (n = sockets[i].receiveNow(frame)) >= 0; ) {
                    Claim claim = sockets[i] == arpSocket ? Claim.ofArp(frame, n) : Claim.ofNeighborDiscovery(frame, n);
                    if (claim != null && asked.contains(claim.address()) && !ours.contains(claim.mac())) {
                        found.putIfAbsent(claim.address(), claim.mac());
                    }
                }
            }
        }
        return Map.copyOf(found);
    }

    private void sendProbes(List<IpAddress> v4, List<IpAddress> v6, MemorySegment frame) throws IOException {
        for (IpAddress ip : v4) {
            arpSocket.send(frame, ArpPacket.encodeProbe(frame, link.mac(), ip));
        }
        for (IpAddress ip : v6) {
            ndpSocket.send(frame, NdpPacket.encodeDuplicateAddressProbe(frame, ip, link.mac()));
        }
    }

    /** Closes the sockets, after a probe under way has ended. */
    @Override
    public synchronized void close() throws IOException {
        if (groups != null) {
            groups.close();
        }
        if (ndpSocket != null) {
            ndpSocket.close();
        }
        arpSocket.close();
    }

    @Override
    public String toString() {
        return "AddressProbe[" + link.name() + " " + link.mac() + (ndpSocket == null ? "" : " with IPv6") + "]";
    }
}
