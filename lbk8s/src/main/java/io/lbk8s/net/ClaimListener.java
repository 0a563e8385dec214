package io.lbk8s.net;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.bpf.BpfProgram;
import io.lbk8s.net.frame.ArpPacket;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.frame.NdpPacket;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.net.link.PacketSocket;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens on one interface for other hosts using the addresses this node announces: an ARP frame with one of them as
 * sender IP (a gratuitous ARP, a reply to our probe, a request the other host makes), or a neighbor advertisement for
 * one of them, from a MAC that is not the interface's. Probes from others (sender 0.0.0.0, duplicate address
 * detection) are not claims: RFC 5227 lets the owner ignore them, and a speaker taking over probes so. It sees what
 * reaches this interface, broadcast and multicast frames above all, whether ARP is answered by the raw socket or in
 * the kernel (XDP).
 *
 * <p>Its sockets' kernel filters let in only frames about the addresses listened for, so a busy LAN costs nothing.
 */
public final class ClaimListener implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ClaimListener.class);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final int FRAME_BUFFER = 2048;

    /** Told of each claim, on the listener's thread. */
    public interface Heard {
        void claimed(LinkInfo link, IpAddress address, MacAddress mac);
    }

    private final LinkInfo link;
    private final PacketSocket arpSocket;
    private final PacketSocket ndpSocket;
    private final Heard heard;
    private final Thread thread;
    private volatile Set<IpAddress> addresses = Set.of();
    private volatile boolean closed;

    private ClaimListener(LinkInfo link, PacketSocket arpSocket, PacketSocket ndpSocket, Heard heard) {
        this.link = link;
        this.arpSocket = arpSocket;
        this.ndpSocket = ndpSocket;
        this.heard = heard;
        this.thread = Thread.ofPlatform().name("claims-" + link.name()).daemon().start(this::run);
    }

    /** Opens the sockets on {@code link}, listening for nothing until {@link #listenFor}. */
    public static ClaimListener start(LinkInfo link, Heard heard) throws IOException {
        PacketSocket arp = null;
        PacketSocket ndp = null;
        try {
            arp = PacketSocket.open(link, ArpPacket.ETHERTYPE, BpfProgram.rejectAll(), POLL);
            ndp = PacketSocket.open(link, NdpPacket.ETHERTYPE, BpfProgram.rejectAll(), POLL);
            return new ClaimListener(link, arp, ndp, heard);
        } catch (IOException | RuntimeException e) {
            Opened.closeAfter(e, ndp, arp);
            throw e;
        }
    }

    /** Listens for claims on {@code announced} from now on. */
    public synchronized void listenFor(Collection<IpAddress> announced) throws IOException {
        Set<IpAddress> next = Set.copyOf(announced);
        if (next.equals(addresses)) {
            return;
        }
        arpSocket.replaceFilter(
                next.stream().anyMatch(IpAddress::isV4)
                        ? BpfProgram.arpClaimsFor(next.stream()
                                .filter(IpAddress::isV4)
                                .mapToInt(ip -> (int) ip.low())
                                .toArray())
                        : BpfProgram.rejectAll());
        ndpSocket.replaceFilter(
                next.stream().anyMatch(ip -> !ip.isV4())
                        ? BpfProgram.neighborClaimsFor(next.stream()
                                .filter(ip -> !ip.isV4())
                                .mapToInt(ip -> (int) ip.low())
                                .toArray())
                        : BpfProgram.rejectAll());
        addresses = next;
    }

    public LinkInfo link() {
        return link;
    }

    private void run() {
        PacketSocket[] sockets = {arpSocket, ndpSocket};
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment frame = arena.allocate(FRAME_BUFFER, 16);
            while (!closed) {
                int ready = PacketSocket.awaitReadable(sockets, POLL);
                for (int i = 0; i < sockets.length; i++) {
                    if ((ready & (1 << i)) == 0) {
                        continue;
                    }
                    for (int n, count = 0; count < 64 && (n = sockets[i].receiveNow(frame)) >= 0; count++) {
                        Claim claim = i == 0 ? Claim.ofArp(frame, n) : Claim.ofNeighborDiscovery(frame, n);
                        if (claim != null
                                && !claim.probe()
                                && !claim.mac().equals(link.mac())
                                && addresses.contains(claim.address())) {
                            try {
                                heard.claimed(link, claim.address(), claim.mac());
                            } catch (RuntimeException e) {
                                log.warn("handling a claim for {} on {} failed", claim.address(), link.name(), e);
                            }
                        }
                    }
                }
            }
        } catch (IOException e) {
            if (!closed) {
                log.error(
                        "listening for other hosts using our addresses on {} failed: {}", link.name(), e.getMessage());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            thread.join(POLL.multipliedBy(3));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ndpSocket.close();
        arpSocket.close();
    }
}
