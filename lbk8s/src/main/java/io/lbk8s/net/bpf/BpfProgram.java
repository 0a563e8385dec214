package io.lbk8s.net.bpf;

import io.lbk8s.net.frame.ArpPacket;
import io.lbk8s.net.frame.NdpPacket;
import io.lbk8s.net.frame.Wire;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A classic BPF socket filter (the {@code struct sock_filter} array of SO_ATTACH_FILTER). Attached to a packet
 * socket it keeps the kernel from copying every IPv6 packet, or every ARP reply, to user space.
 *
 * <p>Pure data: {@link io.lbk8s.net.link.PacketSocket} turns it into native memory.
 */
public record BpfProgram(List<Instruction> instructions) {

    /** One {@code struct sock_filter}: opcode, jump offsets if true / if false, constant. */
    public record Instruction(int code, int jumpTrue, int jumpFalse, int k) {
        public Instruction {
            if ((code & ~0xffff) != 0 || (jumpTrue & ~0xff) != 0 || (jumpFalse & ~0xff) != 0) {
                throw new IllegalArgumentException("opcode is 16 bits, jumps are 8 bits");
            }
        }
    }

    // Opcodes (linux/filter.h): class | size | mode, or class | op | source.
    public static final int LD_W_ABS = 0x20;
    public static final int LD_H_ABS = 0x28;
    public static final int LD_B_ABS = 0x30;
    public static final int JMP_JEQ_K = 0x15;
    public static final int JMP_JA = 0x05;
    public static final int RET_K = 0x06;

    /** Bytes to keep of an accepted packet: all of them (the kernel clamps to the packet length). */
    static final int ACCEPT = 0x0004_0000;

    static final int REJECT = 0;

    /**
     * Beyond this many addresses a filter by target would not fit the kernel's 4096 instructions (or would be slow to
     * run per frame); the responder then filters by protocol only and checks the target in Java.
     */
    public static final int MAX_TARGETS = 3500;
    /** Targets compared in one run of jumps: a jump offset is 8 bits. */
    private static final int TARGETS_PER_BLOCK = 250;

    public BpfProgram {
        instructions = List.copyOf(instructions);
        if (instructions.isEmpty() || instructions.size() > 4096) {
            throw new IllegalArgumentException("a classic BPF program has 1 to 4096 instructions");
        }
    }

    /** ARP requests: ethertype 0x0806 and operation 1. */
    public static BpfProgram arpRequests() {
        return arp(ArpPacket.REQUEST);
    }

    /** ARP replies: ethertype 0x0806 and operation 2 (what an ARP client such as arping waits for). */
    public static BpfProgram arpReplies() {
        return arp(ArpPacket.REPLY);
    }

    private static BpfProgram arp(int operation) {
        return new BpfProgram(List.of(
                load(LD_H_ABS, Wire.ETHERTYPE_OFFSET),
                jumpIfEqual(ArpPacket.ETHERTYPE, 0, 3),
                load(LD_H_ABS, ArpPacket.OPERATION),
                jumpIfEqual(operation, 0, 1),
                ret(ACCEPT),
                ret(REJECT)));
    }

    /**
     * Neighbor solicitations: ethertype 0x86DD, next header 58 (ICMPv6, no extension headers), ICMPv6 type 135,
     * and hop limit 255, as anything else is invalid anyway (RFC 4861 7.1.1).
     */
    public static BpfProgram neighborSolicitations() {
        return new BpfProgram(List.of(
                load(LD_H_ABS, Wire.ETHERTYPE_OFFSET),
                jumpIfEqual(NdpPacket.ETHERTYPE, 0, 7),
                load(LD_B_ABS, NdpPacket.NEXT_HEADER),
                jumpIfEqual(NdpPacket.NEXT_HEADER_ICMPV6, 0, 5),
                load(LD_B_ABS, NdpPacket.ICMP),
                jumpIfEqual(NdpPacket.TYPE_NEIGHBOR_SOLICITATION, 0, 3),
                load(LD_B_ABS, NdpPacket.HOP_LIMIT),
                jumpIfEqual(255, 0, 1),
                ret(ACCEPT),
                ret(REJECT)));
    }

    /**
     * ARP requests whose target IPv4 address (as a big-endian int) is one of {@code targets}: a speaker thread then
     * wakes only for requests it answers, not for every ARP request on the segment. More than {@link #MAX_TARGETS}
     * gives {@link #arpRequests()}.
     */
    public static BpfProgram arpRequestsFor(int[] targets) {
        List<Instruction> code = new ArrayList<>();
        requireOrReject(code, LD_H_ABS, Wire.ETHERTYPE_OFFSET, ArpPacket.ETHERTYPE);
        requireOrReject(code, LD_H_ABS, ArpPacket.OPERATION, ArpPacket.REQUEST);
        return targets.length > MAX_TARGETS ? arpRequests() : acceptIfWordIsAnyOf(code, ArpPacket.TARGET_IP, targets);
    }

    /**
     * Neighbor solicitations (as {@link #neighborSolicitations()}) whose target's last 32 bits are one of
     * {@code targetLowWords}; the whole target is compared in Java. More than {@link #MAX_TARGETS} gives
     * {@link #neighborSolicitations()}.
     */
    public static BpfProgram neighborSolicitationsFor(int[] targetLowWords) {
        List<Instruction> code = new ArrayList<>();
        requireOrReject(code, LD_H_ABS, Wire.ETHERTYPE_OFFSET, NdpPacket.ETHERTYPE);
        requireOrReject(code, LD_B_ABS, NdpPacket.NEXT_HEADER, NdpPacket.NEXT_HEADER_ICMPV6);
        requireOrReject(code, LD_B_ABS, NdpPacket.ICMP, NdpPacket.TYPE_NEIGHBOR_SOLICITATION);
        requireOrReject(code, LD_B_ABS, NdpPacket.HOP_LIMIT, 255);
        return targetLowWords.length > MAX_TARGETS
                ? neighborSolicitations()
                : acceptIfWordIsAnyOf(code, NdpPacket.TARGET + 12, targetLowWords);
    }

    /**
     * ARP frames that claim one of {@code addresses} (big-endian ints) for their sender, what
     * {@link io.lbk8s.net.AddressProbe} listens for: any frame whose sender IP is one of them (a reply, a gratuitous
     * announcement, a request from a host using it), and probes (sender IP 0.0.0.0) whose target is one of them, from
     * a host about to take it. Beyond {@link #MAX_TARGETS}/2 addresses (each is compared twice) every ARP frame is
     * accepted.
     */
    public static BpfProgram arpClaimsFor(int[] addresses) {
        List<Instruction> code = new ArrayList<>();
        requireOrReject(code, LD_H_ABS, Wire.ETHERTYPE_OFFSET, ArpPacket.ETHERTYPE);
        if (addresses.length > MAX_TARGETS / 2) {
            code.add(ret(ACCEPT));
            return new BpfProgram(code);
        }
        code.add(load(LD_W_ABS, ArpPacket.SENDER_IP));
        acceptIfAnyOf(code, addresses);
        code.add(jumpIfEqual(0, 1, 0)); // the accumulator still holds the sender IP: 0.0.0.0 is a probe
        code.add(ret(REJECT));
        return acceptIfWordIsAnyOf(code, ArpPacket.TARGET_IP, addresses);
    }

    /**
     * Neighbor discovery that claims one of the addresses whose last 32 bits are {@code targetLowWords}, what
     * {@link io.lbk8s.net.AddressProbe} listens for: advertisements for them, and duplicate address detection
     * (solicitations from the unspecified address) for them from a host about to take one. Hop limit 255 as RFC 4861
     * requires; the whole target is compared in Java. Beyond {@link #MAX_TARGETS} every such message is accepted.
     */
    public static BpfProgram neighborClaimsFor(int[] targetLowWords) {
        List<Instruction> fromUnspecified = new ArrayList<>();
        for (int word = 0; word < 4; word++) {
            requireOrReject(fromUnspecified, LD_W_ABS, NdpPacket.SOURCE + 4 * word, 0);
        }
        List<Instruction> code = new ArrayList<>();
        requireOrReject(code, LD_H_ABS, Wire.ETHERTYPE_OFFSET, NdpPacket.ETHERTYPE);
        requireOrReject(code, LD_B_ABS, NdpPacket.NEXT_HEADER, NdpPacket.NEXT_HEADER_ICMPV6);
        requireOrReject(code, LD_B_ABS, NdpPacket.HOP_LIMIT, 255);
        code.add(load(LD_B_ABS, NdpPacket.ICMP));
        // an advertisement goes straight to the target, past the solicitation's two instructions and source check
        code.add(jumpIfEqual(NdpPacket.TYPE_NEIGHBOR_ADVERTISEMENT, 2 + fromUnspecified.size(), 0));
        code.add(jumpIfEqual(NdpPacket.TYPE_NEIGHBOR_SOLICITATION, 1, 0));
        code.add(ret(REJECT));
        code.addAll(fromUnspecified);
        if (targetLowWords.length > MAX_TARGETS) {
            code.add(ret(ACCEPT));
            return new BpfProgram(code);
        }
        return acceptIfWordIsAnyOf(code, NdpPacket.TARGET + 12, targetLowWords);
    }

    /** Ends the program: accepts when the 32-bit word at {@code offset} is one of {@code values}, else rejects. */
    private static BpfProgram acceptIfWordIsAnyOf(List<Instruction> code, int offset, int[] values) {
        code.add(load(LD_W_ABS, offset));
        acceptIfAnyOf(code, values);
        code.add(ret(REJECT));
        return new BpfProgram(code);
    }

    private static void requireOrReject(List<Instruction> code, int load, int offset, int value) {
        code.add(load(load, offset));
        code.add(jumpIfEqual(value, 1, 0));
        code.add(ret(REJECT));
    }

    /**
     * Compares the accumulator with each value in blocks of jumps, each block ending in its own accept; when none is
     * equal, the program goes on after them with the accumulator unchanged.
     */
    private static void acceptIfAnyOf(List<Instruction> code, int[] values) {
        int[] distinct = Arrays.stream(values).distinct().toArray();
        for (int start = 0; start < distinct.length; start += TARGETS_PER_BLOCK) {
            int n = Math.min(TARGETS_PER_BLOCK, distinct.length - start);
            for (int i = 0; i < n; i++) {
                code.add(jumpIfEqual(distinct[start + i], n - i, 0)); // to this block's accept, past the `ja`
            }
            code.add(new Instruction(JMP_JA, 0, 0, 1)); // over the accept, to the next block
            code.add(ret(ACCEPT));
        }
    }

    /** Every frame of the socket's protocol; for diagnostics and tests. */
    public static BpfProgram acceptAll() {
        return new BpfProgram(List.of(ret(ACCEPT)));
    }

    /** No frame at all: for a socket kept open while it has nothing to listen for. */
    public static BpfProgram rejectAll() {
        return new BpfProgram(List.of(ret(REJECT)));
    }

    public static Instruction load(int code, int offset) {
        return new Instruction(code, 0, 0, offset);
    }

    public static Instruction jumpIfEqual(int value, int jumpTrue, int jumpFalse) {
        return new Instruction(JMP_JEQ_K, jumpTrue, jumpFalse, value);
    }

    public static Instruction ret(int bytes) {
        return new Instruction(RET_K, 0, 0, bytes);
    }
}
