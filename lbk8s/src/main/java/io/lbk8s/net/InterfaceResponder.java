package io.lbk8s.net;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.frame.ArpPacket;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.frame.NdpPacket;
import io.lbk8s.net.link.FrameBatch;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.net.link.PacketSocket;
import io.lbk8s.net.link.SolicitedNodeGroups;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.locks.LockSupport;

/**
 * Answers ARP requests and IPv6 neighbor solicitations for the announced addresses on one interface, from raw
 * sockets, without the addresses being configured anywhere (MetalLB's layer-2 mode).
 *
 * <p>One platform thread per socket: a blocking native recv pins a virtual thread's carrier. Each thread owns its
 * native buffers, decodes in place, looks the target up in an {@link AnnouncedSet} (sorted primitives, counters
 * attached) and writes the reply over a reused buffer, so the steady state allocates nothing per packet.
 *
 * <p>The sockets' kernel filters name the announced targets ({@link #announce}), so a thread wakes only for requests
 * it answers: not for the node's own addresses, nor for other nodes' Service addresses.
 *
 * <p>Where the kernel allows it, ARP is answered in the kernel instead ({@link XdpArpResponder}): waking a thread
 * costs more than the kernel's own answer on a small virtual machine (decisions 0002 and 0003). The raw ARP socket stays, for
 * gratuitous ARP and for whatever the XDP program passes on; NDP is always answered from its raw socket.
 *
 * <p>What is answered (as MetalLB does): ARP requests to broadcast or to our MAC, not sent by us, whose target IP is
 * announced on this interface; neighbor solicitations to the target's solicited-node MAC or to our MAC, not sent by
 * us, whose target is announced. On veth a packet socket also sees frames to other MACs; those are ignored, as a
 * real NIC would never have delivered them.
 *
 * <p>Nothing is answered or announced while the {@link Fence} of the options does not permit it: not by the sockets,
 * not by the XDP program, not by {@link #sendGratuitous}.
 */
public final class InterfaceResponder implements AutoCloseable {

    private static final int RECEIVE_BUFFER = 2048; // one Ethernet frame; larger ones are truncated and then refused
    private static final int SEND_BUFFER = 128;
    /** Frames taken per system call when requests queue up (a flood); one when they do not. */
    private static final int BATCH = 64;

    private static final Duration BACKOFF_AFTER_ERROR = Duration.ofMillis(100);
    /** How often each receive thread hands the kernel's counts to the listener (the ARP thread: XDP answers too). */
    private static final long COLLECT_EVERY_NANOS = Duration.ofSeconds(1).toNanos();

    private final LinkInfo link;
    private final String name;
    private final int ifindex;
    private final MacAddress mac;
    private volatile AnnouncedSet announced = AnnouncedSet.EMPTY;
    private final L2Listener listener;
    private final Fence fence;
    private final PacketSocket arpSocket;
    private final PacketSocket ndpSocket; // null without IPv6
    private final SolicitedNodeGroups groups; // null without IPv6
    private final boolean receiveBufferForced;
    private final Duration receiveTimeout;
    private volatile XdpArpResponder xdp; // null: ARP is answered from the raw socket
    private volatile String arpInKernelProblem;
    private volatile boolean running = true;
    private Thread arpThread;
    private Thread ndpThread;

    private InterfaceResponder(
            LinkInfo link,
            L2Listener listener,
            Fence fence,
            PacketSocket arpSocket,
            PacketSocket ndpSocket,
            SolicitedNodeGroups groups,
            boolean receiveBufferForced,
            Duration receiveTimeout) {
        this.link = link;
        this.name = link.name();
        this.ifindex = link.index();
        this.mac = link.mac();
        this.listener = listener;
        this.fence = fence;
        this.arpSocket = arpSocket;
        this.ndpSocket = ndpSocket;
        this.groups = groups;
        this.receiveBufferForced = receiveBufferForced;
        this.receiveTimeout = receiveTimeout;
    }

    /** Opens the sockets and starts answering, for nothing yet: {@link #announce} names the addresses. */
    public static InterfaceResponder start(LinkInfo link, L2Listener listener, ResponderOptions options)
            throws IOException {
        PacketSocket arp = null;
        PacketSocket ndp = null;
        SolicitedNodeGroups groups = null;
        try {
            arp = PacketSocket.open(
                    link, ArpPacket.ETHERTYPE, AnnouncedSet.EMPTY.arpFilter(), options.receiveTimeout());
            boolean forced = arp.requestReceiveBuffer(options.receiveBufferBytes());
            if (options.ipv6()) {
                ndp = PacketSocket.open(
                        link, NdpPacket.ETHERTYPE, AnnouncedSet.EMPTY.ndpFilter(), options.receiveTimeout());
                forced &= ndp.requestReceiveBuffer(options.receiveBufferBytes());
                groups = SolicitedNodeGroups.open(link);
            }
            InterfaceResponder responder = new InterfaceResponder(
                    link, listener, options.fence(), arp, ndp, groups, forced, options.receiveTimeout());
            if (options.arpInKernel()) {
                responder.attachXdp();
            } else {
                responder.arpInKernelProblem = "turned off";
            }
            responder.startThreads();
            return responder;
        } catch (IOException | RuntimeException e) {
            Opened.closeAfter(e, groups, ndp, arp);
            throw e;
        }
    }

    private void attachXdp() {
        try {
            xdp = XdpArpResponder.attach(link, fence);
        } catch (IOException | UnsupportedOperationException e) {
            arpInKernelProblem = e.getMessage();
        }
    }

    private void startThreads() {
        arpThread = Thread.ofPlatform().daemon().name("arp-" + name).start(this::arpLoop);
        if (ndpSocket != null) {
            ndpThread = Thread.ofPlatform().daemon().name("ndp-" + name).start(this::ndpLoop);
        }
    }

    /**
     * Makes these the addresses answered on this interface, replacing the previous ones. Leaving an address takes
     * effect at once (the receive threads read the new set with their next frame); the kernel filters follow.
     */
    public synchronized void announce(Collection<IpAddress> ips) throws IOException {
        AnnouncedSet next = AnnouncedSet.of(ips, ip -> listener.counters(name, ip));
        AnnouncedSet previous = announced;
        announced = next;
        XdpArpResponder kernel = xdp;
        if (kernel != null) {
            try {
                kernel.sync(previous, next);
            } catch (IOException e) {
                // the raw socket answers everything from now on; the filters below let it
                xdp = null;
                kernel.close();
                arpInKernelProblem = e.getMessage();
                reportFailure(e);
            }
        }
        arpSocket.replaceFilter(next.arpFilter());
        if (ndpSocket != null) {
            ndpSocket.replaceFilter(next.ndpFilter());
        }
    }

    /** Whether ARP is answered in the kernel here; see {@link #arpInKernelProblem} when it is not. */
    public boolean answersArpInKernel() {
        return xdp != null;
    }

    /** Why ARP is not answered in the kernel here (a sentence from the kernel's refusal), or null when it is. */
    public String arpInKernelProblem() {
        return xdp != null ? null : arpInKernelProblem;
    }

    /** Whether {@code ip} is answered here now. */
    public boolean announces(IpAddress ip) {
        return announced.contains(ip);
    }

    /** Decides on one received frame: encodes the answer into slot {@code slot} of {@code out} and gives the counters of its IP, or null. */
    @FunctionalInterface
    private interface Answerer {
        AddressCounters answer(MemorySegment request, int length, FrameBatch out, int slot);
    }

    private void arpLoop() {
        serve(arpSocket, this::answerArp);
    }

    private void ndpLoop() {
        serve(ndpSocket, this::answerNdp);
    }

    /**
     * Receives what is queued (one system call for a burst), answers each frame, sends the answers together, then
     * counts them: the replies go out before anything else is done.
     */
    private void serve(PacketSocket socket, Answerer answerer) {
        try (Arena arena = Arena.ofConfined()) {
            FrameBatch in = new FrameBatch(arena, BATCH, RECEIVE_BUFFER);
            FrameBatch out = new FrameBatch(arena, BATCH, SEND_BUFFER);
            AddressCounters[] answered = new AddressCounters[BATCH];
            long collectedAt = System.nanoTime();
            while (running) {
                int replies = 0;
                try {
                    int received = socket.receive(in);
                    for (int i = 0; i < received; i++) {
                        AddressCounters counters = answerer.answer(in.frame(i), in.receivedLength(i), out, replies);
                        if (counters != null) {
                            answered[replies++] = counters;
                        }
                    }
                    if (replies > 0) {
                        socket.send(out, replies);
                        for (int i = 0; i < replies; i++) {
                            answered[i].answered(1);
                        }
                    }
                } catch (IOException e) {
                    reportAndPause(e);
                } catch (RuntimeException e) {
                    // counters that throw must not stop the responder; the batch's counts are lost
                }
                if (System.nanoTime() - collectedAt > COLLECT_EVERY_NANOS) {
                    if (socket == arpSocket) {
                        collectKernelAnswers();
                    }
                    reportStatistics(socket);
                    collectedAt = System.nanoTime();
                }
            }
        }
    }

    private AddressCounters answerArp(MemorySegment request, int length, FrameBatch out, int slot) {
        if (!fence.permits() || ArpPacket.checkRequest(request, length) != ArpPacket.Verdict.OK) {
            return null;
        }
        long destination = ArpPacket.ethernetDestination(request);
        if (destination != MacAddress.BROADCAST.bits() && destination != mac.bits()) {
            return null;
        }
        if (ArpPacket.senderMac(request) == mac.bits()) {
            return null; // our own gratuitous request, or the kernel asking on our behalf
        }
        if (ArpPacket.senderIpv4(request) == ArpPacket.targetIpv4(request)) {
            return null; // another host's gratuitous request: an announcement, not a question (and a conflict to
            // notice)
        }
        AddressCounters counters = announced.v4(ArpPacket.targetIpv4(request));
        if (counters == null) {
            return null;
        }
        out.setLength(slot, ArpPacket.encodeReply(out.frame(slot), request, mac));
        return counters;
    }

    private AddressCounters answerNdp(MemorySegment solicitation, int length, FrameBatch out, int slot) {
        if (!fence.permits() || NdpPacket.checkSolicitation(solicitation, length) != NdpPacket.Verdict.OK) {
            return null;
        }
        long targetHigh = NdpPacket.targetHigh(solicitation);
        long targetLow = NdpPacket.targetLow(solicitation);
        long destination = NdpPacket.ethernetDestination(solicitation);
        if (destination != MacAddress.solicitedNodeMulticastBits(targetLow) && destination != mac.bits()) {
            return null;
        }
        if (NdpPacket.ethernetSource(solicitation) == mac.bits()) {
            return null;
        }
        AddressCounters counters = announced.v6(targetHigh, targetLow);
        if (counters == null) {
            return null;
        }
        out.setLength(slot, NdpPacket.encodeSolicitedAdvertisement(out.frame(slot), solicitation, mac));
        return counters;
    }

    /** Hands the answers the XDP program gave to the counters (they move once a second, not per reply). */
    void collectKernelAnswers() {
        XdpArpResponder kernel = xdp;
        if (kernel == null) {
            return;
        }
        try {
            kernel.collect(announced);
        } catch (IOException e) {
            reportFailure(e);
        } catch (RuntimeException e) {
            // as in serve: counters that throw lose their counts, nothing more
        }
    }

    /** Hands the listener what the kernel counted on {@code socket} since the last read (reading resets it). */
    private void reportStatistics(PacketSocket socket) {
        try {
            PacketSocket.Stats counted = socket.statistics();
            if (counted.packets() > 0 || counted.drops() > 0) {
                listener.received(name, socket == arpSocket ? ArpPacket.ETHERTYPE : NdpPacket.ETHERTYPE, counted);
            }
        } catch (IOException e) {
            reportFailure(e);
        } catch (RuntimeException e) {
            // as in serve: a listener that throws loses this report, nothing more
        }
    }

    /** Hands the listener the sockets' counts now rather than at the next collection (for tests). */
    void collectStatistics() {
        reportStatistics(arpSocket);
        if (ndpSocket != null) {
            reportStatistics(ndpSocket);
        }
    }

    private void reportAndPause(IOException e) {
        if (!running) {
            return;
        }
        reportFailure(e);
        LockSupport.parkNanos(BACKOFF_AFTER_ERROR.toNanos()); // a persistent error must not spin a core
    }

    private void reportFailure(IOException e) {
        try {
            listener.failed(name, e);
        } catch (RuntimeException ignored) {
            // see L2Listener
        }
    }

    /**
     * Sends now, for IPv4, MetalLB's gratuitous pair (request then reply, both broadcast), for IPv6 one unsolicited
     * advertisement to ff02::1; nothing while the fence does not permit. Bursts and refreshes are the caller's to
     * schedule.
     *
     * @return whether it sent (false: the fence did not permit)
     */
    public boolean sendGratuitous(IpAddress ip) throws IOException {
        if (!ip.isV4()) {
            requireIpv6();
        }
        if (!fence.permits()) {
            return false;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment frame = arena.allocate(SEND_BUFFER, 16);
            if (ip.isV4()) {
                arpSocket.send(frame, ArpPacket.encodeGratuitousRequest(frame, mac, ip));
                arpSocket.send(frame, ArpPacket.encodeGratuitousReply(frame, mac, ip));
            } else {
                ndpSocket.send(frame, NdpPacket.encodeUnsolicitedAdvertisement(frame, ip, mac));
            }
        }
        listener.gratuitousSent(name, ip);
        return true;
    }

    /** Joins the solicited-node group of an IPv6 address we start announcing (a real MLD report goes out). */
    public void joinSolicitedNode(IpAddress ip) throws IOException {
        requireIpv6();
        groups.join(ip);
    }

    public void leaveSolicitedNode(IpAddress ip) {
        requireIpv6();
        groups.leave(ip);
    }

    public LinkInfo link() {
        return link;
    }

    /** Whether SO_RCVBUFFORCE took the requested receive buffer (it needs CAP_NET_ADMIN). */
    public boolean receiveBufferForced() {
        return receiveBufferForced;
    }

    private void requireIpv6() {
        if (ndpSocket == null) {
            throw new IllegalStateException("IPv6 is not enabled on the responder for " + name);
        }
    }

    /**
     * Stops answering in the kernel at once, then stops both threads (within the receive timeout) and only then
     * closes the sockets.
     */
    @Override
    public void close() throws IOException {
        XdpArpResponder kernel = xdp;
        if (kernel != null) {
            collectKernelAnswers();
            xdp = null;
            kernel.close();
        }
        running = false;
        long waitMillis = receiveTimeout.toMillis() + 250;
        boolean stopped = join(arpThread, waitMillis) & join(ndpThread, waitMillis);
        if (groups != null) {
            groups.close();
        }
        if (stopped) {
            arpSocket.close();
            if (ndpSocket != null) {
                ndpSocket.close();
            }
        } // else leave the descriptors open rather than let a still-running recv read a reused one
    }

    private static boolean join(Thread thread, long millis) {
        if (thread == null) {
            return true;
        }
        try {
            return thread.join(Duration.ofMillis(millis));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public String toString() {
        return "InterfaceResponder[" + name + " #" + ifindex + " " + mac + "]";
    }
}
