package io.lbk8s.net.bpf;

import static io.lbk8s.net.bpf.EbpfAssembler.Condition.EQ;
import static io.lbk8s.net.bpf.EbpfAssembler.Condition.GE;
import static io.lbk8s.net.bpf.EbpfAssembler.Condition.GT;
import static io.lbk8s.net.bpf.EbpfAssembler.Condition.NE;
import static io.lbk8s.net.bpf.EbpfAssembler.Condition.NE_32;
import static io.lbk8s.net.bpf.EbpfAssembler.R0;
import static io.lbk8s.net.bpf.EbpfAssembler.R1;
import static io.lbk8s.net.bpf.EbpfAssembler.R10;
import static io.lbk8s.net.bpf.EbpfAssembler.R2;
import static io.lbk8s.net.bpf.EbpfAssembler.R3;
import static io.lbk8s.net.bpf.EbpfAssembler.R6;
import static io.lbk8s.net.bpf.EbpfAssembler.R7;
import static io.lbk8s.net.bpf.EbpfAssembler.R8;
import static io.lbk8s.net.bpf.EbpfAssembler.R9;
import static io.lbk8s.net.bpf.EbpfAssembler.Width.DOUBLE;
import static io.lbk8s.net.bpf.EbpfAssembler.Width.HALF;
import static io.lbk8s.net.bpf.EbpfAssembler.Width.WORD;

import io.lbk8s.net.frame.MacAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The XDP program that answers ARP requests in the kernel, in the receive path, for the IPv4 addresses held in a
 * hash map (key: the address in network order; value: a 64-bit count of answers). It applies the same rules as
 * {@link io.lbk8s.net.InterfaceResponder}: an Ethernet/IPv4 request (opcode 1), sent to broadcast or to our MAC,
 * not sent by us, not gratuitous (sender IP = target IP), for an address in the map. It turns that frame into the
 * reply in place and sends it back out of the interface (XDP_TX); everything else goes on to the stack and the raw
 * sockets (XDP_PASS).
 *
 * <p>With a {@link io.lbk8s.net.Fence}, it answers only before the fence's deadline, read from the fence's one-entry
 * array map and compared (unsigned) with bpf_ktime_get_ns; at or past it the request passes on, uncounted, as if the
 * address were not announced. A speaker that stops renewing therefore falls silent here without running any code.
 *
 * <p>Packet loads are in host order, so the constants are built from the wire bytes with the host's order.
 */
public final class XdpArpProgram {

    public static final int XDP_PASS = 2;
    public static final int XDP_TX = 3;
    /** For {@link #instructions}: no fence to check (an unlimited one). */
    public static final int NO_FENCE = -1;

    private static final int MAP_LOOKUP_ELEM = 1;
    private static final int KTIME_GET_NS = 5;
    private static final int FRAME = 42; // Ethernet header and the 28-byte Ethernet/IPv4 ARP body
    private static final String PASS = "pass";

    private XdpArpProgram() {}

    /** The program for {@code mac}, answering for the addresses in map {@code mapFd}, fenced by map {@code fenceMapFd}. */
    public static byte[] instructions(MacAddress mac, int mapFd, int fenceMapFd) {
        byte[] m = mac.bytes();
        int macHead = word(m[0], m[1], m[2], m[3]);
        int macTail = half(m[4], m[5]);
        var asm = new EbpfAssembler();
        // r7 = data, r8 = data_end (struct xdp_md); both survive the helper calls
        asm.load(WORD, R7, R1, 0)
                .load(WORD, R8, R1, 4)
                .moveRegister(R2, R7)
                .addImmediate(R2, FRAME)
                .jumpIfRegister(GT, R2, R8, PASS)
                // ethertype ARP; hardware Ethernet, protocol IPv4, lengths 6 and 4, opcode request
                .load(HALF, R2, R7, 12)
                .jumpIf(NE, R2, half(0x08, 0x06), PASS)
                .load(WORD, R2, R7, 14)
                .jumpIf(NE_32, R2, word(0, 1, 0x08, 0), PASS)
                .load(HALF, R2, R7, 18)
                .jumpIf(NE, R2, half(6, 4), PASS)
                .load(HALF, R2, R7, 20)
                .jumpIf(NE, R2, half(0, 1), PASS)
                // to broadcast or to our MAC
                .load(WORD, R2, R7, 0)
                .load(HALF, R3, R7, 4)
                .jumpIf(NE_32, R2, -1, "unicast")
                .jumpIf(EQ, R3, 0xffff, "not-from-us")
                .label("unicast")
                .jumpIf(NE_32, R2, macHead, PASS)
                .jumpIf(NE, R3, macTail, PASS)
                // not our own request (a gratuitous one, or the kernel asking for us)
                .label("not-from-us")
                .load(WORD, R2, R7, 22)
                .load(HALF, R3, R7, 26)
                .jumpIf(NE_32, R2, macHead, "lookup")
                .jumpIf(EQ, R3, macTail, PASS)
                // the target address, kept on the stack as the map key; a gratuitous request (sender IP = target IP)
                // is another host's announcement, not a question: it passes on, to the stack and the claim listener
                .label("lookup")
                .load(WORD, R2, R7, 38)
                .store(WORD, R10, -4, R2)
                .load(WORD, R3, R7, 28)
                .jumpIfRegister(EQ, R2, R3, PASS)
                .loadMap(R1, mapFd)
                .moveRegister(R2, R10)
                .addImmediate(R2, -4)
                .call(MAP_LOOKUP_ELEM)
                .jumpIf(EQ, R0, 0, PASS)
                .moveRegister(R6, R0); // the address's count survives the helper calls of the fence check
        if (fenceMapFd != NO_FENCE) {
            // now >= deadline: pass, as if the address were not announced
            asm.call(KTIME_GET_NS)
                    .moveRegister(R9, R0)
                    .storeImmediate(WORD, R10, -8, 0)
                    .loadMap(R1, fenceMapFd)
                    .moveRegister(R2, R10)
                    .addImmediate(R2, -8)
                    .call(MAP_LOOKUP_ELEM)
                    .jumpIf(EQ, R0, 0, PASS)
                    .load(DOUBLE, R1, R0, 0)
                    .jumpIfRegister(GE, R9, R1, PASS);
        }
        asm.move(R1, 1)
                .atomicAdd(R6, 0, R1)
                // the reply: to the requester, from us; opcode 2; target = the requester; sender = us, the address
                .copyMac(R7, 6, 0, R2)
                .storeImmediate(WORD, R7, 6, macHead)
                .storeImmediate(HALF, R7, 10, macTail)
                .storeImmediate(HALF, R7, 20, half(0, 2))
                .copyMac(R7, 22, 32, R2)
                .load(WORD, R2, R7, 28)
                .store(WORD, R7, 38, R2)
                .storeImmediate(WORD, R7, 22, macHead)
                .storeImmediate(HALF, R7, 26, macTail)
                .load(WORD, R2, R10, -4)
                .store(WORD, R7, 28, R2)
                .move(R0, XDP_TX)
                .exit()
                .label(PASS)
                .move(R0, XDP_PASS)
                .exit();
        return asm.assemble();
    }

    /** Four wire bytes as a host-order 32-bit load sees them. */
    private static int word(int b0, int b1, int b2, int b3) {
        return ByteBuffer.wrap(new byte[] {(byte) b0, (byte) b1, (byte) b2, (byte) b3})
                .order(ByteOrder.nativeOrder())
                .getInt();
    }

    private static int half(int b0, int b1) {
        return Short.toUnsignedInt(ByteBuffer.wrap(new byte[] {(byte) b0, (byte) b1})
                .order(ByteOrder.nativeOrder())
                .getShort());
    }
}
