package io.lbk8s.net;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.lbk8s.net.bpf.XdpArpProgram;
import io.lbk8s.net.frame.Wire;
import io.lbk8s.net.link.LinkInfo;
import io.lbk8s.net.link.Native;
import io.lbk8s.net.link.NativeIOException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Answers ARP for the announced IPv4 addresses of one interface in the kernel, with {@link XdpArpProgram}
 * attached to the interface in generic (skb) mode, which works on any device, veth included. The reply leaves from
 * the softirq that received the request, so no thread has to wake: the kernel's own latency.
 *
 * <p>The program is attached through a BPF link, which the kernel detaches when its last descriptor closes. A
 * speaker that exits or is killed therefore stops answering at that moment, like its raw sockets: there is nothing
 * left behind to answer for a node that lost the address. A speaker that is alive but frozen is silenced by its
 * {@link Fence}, which the program reads on every answer.
 *
 * <p>It needs CAP_BPF and CAP_NET_ADMIN; {@link #attach} fails with a sentence saying so, and the raw sockets of
 * {@link InterfaceResponder} then answer instead. Requests the program passes on (addresses not in its map, because
 * the map was full, say) reach those sockets as before.
 */
final class XdpArpResponder implements AutoCloseable {

    /** More addresses than this on one interface are answered from the raw socket (the map is not preallocated). */
    static final int MAX_ADDRESSES = 16_384;

    private static final int MAP_CREATE = 0;
    private static final int MAP_LOOKUP_ELEM = 1;
    private static final int MAP_UPDATE_ELEM = 2;
    private static final int MAP_DELETE_ELEM = 3;
    private static final int PROG_LOAD = 5;
    private static final int PROG_TEST_RUN = 10;
    private static final int LINK_CREATE = 28;
    private static final int MAP_TYPE_HASH = 1;
    private static final int NO_PREALLOC = 1;
    private static final int PROG_TYPE_XDP = 6;
    private static final int ATTACH_XDP = 37;
    private static final int XDP_FLAGS_SKB_MODE = 2;
    private static final long NO_EXIST = 1;
    private static final int LOG_BYTES = 64 * 1024;

    /** What the program did with one frame in a test run: its XDP action and the frame as it left. */
    record Run(int action, byte[] frame) {}

    private final String name;
    private final int mapFd;
    private final int programFd;
    private final int linkFd;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment attributes = arena.allocate(128, 8);
    private final MemorySegment key = arena.allocate(4, 4);
    private final MemorySegment value = arena.allocate(8, 8);
    /** The addresses in the kernel's map (network-order bits), with the count already handed to their counters. */
    private final Map<Integer, Long> inMap = new HashMap<>();

    private boolean closed;

    private XdpArpResponder(String name, int mapFd, int programFd, int linkFd) {
        this.name = name;
        this.mapFd = mapFd;
        this.programFd = programFd;
        this.linkFd = linkFd;
    }

    /**
     * Loads the program for this interface's MAC, answering only while {@code fence} permits, and attaches it; it
     * answers nothing until {@link #sync}.
     */
    static XdpArpResponder attach(LinkInfo link, Fence fence) throws IOException {
        return open(link, fence, true);
    }

    /** Loads the program without attaching it anywhere, for {@link #run}. */
    static XdpArpResponder loadDetached(LinkInfo link, Fence fence) throws IOException {
        return open(link, fence, false);
    }

    private static XdpArpResponder open(LinkInfo link, Fence fence, boolean attach) throws IOException {
        if (!fence.needsKernelCheck()) {
            return open(link, XdpArpProgram.NO_FENCE, attach);
        }
        return fence.withKernelMap(fenceMapFd -> open(link, fenceMapFd, attach));
    }

    private static XdpArpResponder open(LinkInfo link, int fenceMapFd, boolean attach) throws IOException {
        int map = -1;
        int program = -1;
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(128, 8);
            attr.set(JAVA_INT, 0, MAP_TYPE_HASH);
            attr.set(JAVA_INT, 4, 4); // key: the IPv4 address
            attr.set(JAVA_INT, 8, 8); // value: answers sent
            attr.set(JAVA_INT, 12, MAX_ADDRESSES);
            attr.set(JAVA_INT, 16, NO_PREALLOC);
            putName(attr, 28, "lbk8s_arp");
            map = Native.bpf(MAP_CREATE, attr.asSlice(0, 72));
            if (map < 0) {
                throw failure("cannot create the BPF map for ARP on " + link.name(), Native.errno());
            }
            byte[] code = XdpArpProgram.instructions(link.mac(), map, fenceMapFd);
            MemorySegment insns = call.allocate(code.length, 8);
            MemorySegment.copy(code, 0, insns, JAVA_BYTE, 0, code.length);
            MemorySegment log = call.allocate(LOG_BYTES);
            attr.fill((byte) 0);
            attr.set(JAVA_INT, 0, PROG_TYPE_XDP);
            attr.set(JAVA_INT, 4, code.length / 8);
            attr.set(ADDRESS, 8, insns);
            attr.set(ADDRESS, 16, call.allocateFrom("GPL"));
            attr.set(JAVA_INT, 24, 1); // verifier log level, read only when the load fails
            attr.set(JAVA_INT, 28, LOG_BYTES);
            attr.set(ADDRESS, 32, log);
            putName(attr, 48, "lbk8s_arp");
            attr.set(JAVA_INT, 68, ATTACH_XDP);
            program = Native.bpf(PROG_LOAD, attr.asSlice(0, 72));
            if (program < 0) {
                int errno = Native.errno();
                String verifier = log.getString(0).strip();
                throw failure(
                        "the kernel refused the XDP program for ARP on " + link.name()
                                + (verifier.isEmpty() ? "" : " (verifier: " + lastLine(verifier) + ")"),
                        errno);
            }
            int linkFd = -1;
            if (attach) {
                attr.fill((byte) 0);
                attr.set(JAVA_INT, 0, program);
                attr.set(JAVA_INT, 4, link.index());
                attr.set(JAVA_INT, 8, ATTACH_XDP);
                attr.set(JAVA_INT, 12, XDP_FLAGS_SKB_MODE);
                linkFd = Native.bpf(LINK_CREATE, attr.asSlice(0, 64));
                if (linkFd < 0) {
                    int errno = Native.errno();
                    throw failure(
                            "cannot attach the XDP program for ARP to " + link.name()
                                    + (errno == 16 || errno == 17 ? " (another XDP program is attached there)" : ""),
                            errno);
                }
            }
            return new XdpArpResponder(link.name(), map, program, linkFd);
        } catch (IOException | RuntimeException e) {
            closeQuietly(program);
            closeQuietly(map);
            throw e;
        }
    }

    /**
     * Makes the kernel answer for {@code next}'s IPv4 addresses, handing the answers it gave under {@code previous}
     * to that set's counters first. Removals come before additions, so a lost address is silent when this returns.
     * Addresses beyond {@link #MAX_ADDRESSES} stay with the raw socket.
     */
    synchronized void sync(AnnouncedSet previous, AnnouncedSet next) throws IOException {
        if (closed) {
            return;
        }
        collect(previous);
        for (Iterator<Integer> it = inMap.keySet().iterator(); it.hasNext(); ) {
            int address = it.next();
            if (next.v4(address) == null) {
                setKey(address);
                if (call(MAP_DELETE_ELEM, 0) < 0 && Native.errno() != 2) {
                    throw failure("cannot remove an address from the XDP map on " + name, Native.errno());
                }
                it.remove();
            }
        }
        for (int address : next.v4Addresses()) {
            if (inMap.containsKey(address) || inMap.size() >= MAX_ADDRESSES) {
                continue;
            }
            setKey(address);
            value.set(JAVA_LONG, 0, 0);
            if (call(MAP_UPDATE_ELEM, NO_EXIST) < 0) {
                throw failure("cannot add an address to the XDP map on " + name, Native.errno());
            }
            inMap.put(address, 0L);
        }
    }

    /** Hands the answers the kernel sent since the last call to {@code set}'s counters. */
    synchronized void collect(AnnouncedSet set) throws IOException {
        if (closed) {
            return;
        }
        for (Map.Entry<Integer, Long> entry : inMap.entrySet()) {
            setKey(entry.getKey());
            if (call(MAP_LOOKUP_ELEM, 0) < 0) {
                throw failure("cannot read the XDP map on " + name, Native.errno());
            }
            long total = value.get(JAVA_LONG, 0);
            AddressCounters counters = set.v4(entry.getKey());
            if (total > entry.getValue() && counters != null) {
                counters.answered(total - entry.getValue());
            }
            entry.setValue(total);
        }
    }

    /** Runs the program once on {@code frame} in the kernel (BPF_PROG_TEST_RUN), without any interface. */
    synchronized Run run(byte[] frame) throws IOException {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment in = call.allocate(Math.max(frame.length, 1));
            MemorySegment.copy(frame, 0, in, JAVA_BYTE, 0, frame.length);
            MemorySegment out = call.allocate(frame.length + 256);
            MemorySegment attr = call.allocate(80, 8);
            attr.set(JAVA_INT, 0, programFd);
            attr.set(JAVA_INT, 8, frame.length);
            attr.set(JAVA_INT, 12, (int) out.byteSize());
            attr.set(ADDRESS, 16, in);
            attr.set(ADDRESS, 24, out);
            attr.set(JAVA_INT, 32, 1);
            if (Native.bpf(PROG_TEST_RUN, attr) < 0) {
                throw failure("cannot test-run the XDP program", Native.errno());
            }
            byte[] result = out.asSlice(0, attr.get(JAVA_INT, 12)).toArray(JAVA_BYTE);
            return new Run(attr.get(JAVA_INT, 4), result);
        }
    }

    private void setKey(int address) {
        key.set(Wire.U32, 0, address); // network order, as the program reads the frame
    }

    private int call(int command, long flags) {
        attributes.fill((byte) 0);
        attributes.set(JAVA_INT, 0, mapFd);
        attributes.set(ADDRESS, 8, key);
        if (command != MAP_DELETE_ELEM) { // the kernel refuses a delete whose value field is set
            attributes.set(ADDRESS, 16, value);
        }
        attributes.set(JAVA_LONG, 24, flags);
        return Native.bpf(command, attributes.asSlice(0, 32));
    }

    /** Detaches the program (closing the link) and frees the map. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeQuietly(linkFd);
        closeQuietly(programFd);
        closeQuietly(mapFd);
        arena.close();
    }

    static void putName(MemorySegment attr, long offset, String name) {
        byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        MemorySegment.copy(bytes, 0, attr, JAVA_BYTE, offset, Math.min(bytes.length, 15));
    }

    private static String lastLine(String text) {
        String[] lines = text.split("\n");
        return lines[lines.length - 1];
    }

    static void closeQuietly(int fd) {
        if (fd >= 0) {
            Native.close(fd);
        }
    }

    static NativeIOException failure(String whatFailed, int errno) {
        String hint = errno == 1 || errno == 13 ? "; in-kernel ARP answers need CAP_BPF and CAP_NET_ADMIN" : "";
        return new NativeIOException(whatFailed + ": " + Native.describe(errno) + hint, errno);
    }

    @Override
    public String toString() {
        return "XdpArpResponder[" + name + "]";
    }
}
