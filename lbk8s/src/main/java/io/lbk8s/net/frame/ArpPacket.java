package io.lbk8s.net.frame;

import static io.lbk8s.net.frame.Wire.i32;
import static io.lbk8s.net.frame.Wire.mac;
import static io.lbk8s.net.frame.Wire.putMac;
import static io.lbk8s.net.frame.Wire.putU16;
import static io.lbk8s.net.frame.Wire.putU32;
import static io.lbk8s.net.frame.Wire.putU8;
import static io.lbk8s.net.frame.Wire.u16;
import static io.lbk8s.net.frame.Wire.u8;

import io.lbk8s.address.IpAddress;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * An Ethernet frame carrying ARP for IPv4 over Ethernet (RFC 826), and its codec.
 *
 * <p>The static methods work in place on a frame so that the responder neither copies nor allocates per packet:
 * {@link #check} validates, the accessors read fields as primitives, the encoders write a whole frame and return
 * its length. The record is the allocating, readable form for tests and diagnostics.
 *
 * <p>Frames are written with 42 bytes, not padded to the Ethernet minimum of 60: that is what the Linux kernel hands
 * to a veth or to a NIC driver, which pads on the wire itself (see the captured fixtures in the tests).
 */
public record ArpPacket(
        MacAddress ethernetDestination,
        MacAddress ethernetSource,
        int operation,
        MacAddress senderMac,
        IpAddress senderIp,
        MacAddress targetMac,
        IpAddress targetIp) {

    public static final int ETHERTYPE = 0x0806;
    public static final int REQUEST = 1;
    public static final int REPLY = 2;
    /** Ethernet header (14) + ARP for IPv4 over Ethernet (28). */
    public static final int FRAME_LENGTH = 42;

    static final int HARDWARE_TYPE = 14;
    static final int PROTOCOL_TYPE = 16;
    static final int HARDWARE_LENGTH = 18;
    static final int PROTOCOL_LENGTH = 19;
    public static final int OPERATION = 20;
    static final int SENDER_MAC = 22;
    public static final int SENDER_IP = 28;
    static final int TARGET_MAC = 32;
    public static final int TARGET_IP = 38;

    private static final int HARDWARE_ETHERNET = 1;
    private static final int PROTOCOL_IPV4 = 0x0800;

    /** Why a frame was refused; {@code OK} when it is a well-formed ARP packet for IPv4 over Ethernet. */
    public enum Verdict {
        OK,
        TOO_SHORT,
        NOT_ARP,
        NOT_ETHERNET,
        NOT_IPV4,
        UNKNOWN_OPERATION,
        NOT_A_REQUEST
    }

    /** Validates an ARP frame (request or reply) without allocating. */
    public static Verdict check(MemorySegment frame, int length) {
        if (Wire.usable(frame, length) < FRAME_LENGTH) {
            return Verdict.TOO_SHORT;
        }
        if (u16(frame, Wire.ETHERTYPE_OFFSET) != ETHERTYPE) {
            return Verdict.NOT_ARP;
        }
        if (u16(frame, HARDWARE_TYPE) != HARDWARE_ETHERNET || u8(frame, HARDWARE_LENGTH) != 6) {
            return Verdict.NOT_ETHERNET;
        }
        if (u16(frame, PROTOCOL_TYPE) != PROTOCOL_IPV4 || u8(frame, PROTOCOL_LENGTH) != 4) {
            return Verdict.NOT_IPV4;
        }
        int op = u16(frame, OPERATION);
        return op == REQUEST || op == REPLY ? Verdict.OK : Verdict.UNKNOWN_OPERATION;
    }

    /** Like {@link #check} but also refuses replies: what a responder wants to see. */
    public static Verdict checkRequest(MemorySegment frame, int length) {
        Verdict verdict = check(frame, length);
        if (verdict == Verdict.OK && operation(frame) != REQUEST) {
            return Verdict.NOT_A_REQUEST;
        }
        return verdict;
    }

    public static Optional<ArpPacket> decode(MemorySegment frame, int length) {
        if (check(frame, length) != Verdict.OK) {
            return Optional.empty();
        }
        return Optional.of(new ArpPacket(
                new MacAddress(ethernetDestination(frame)),
                new MacAddress(mac(frame, 6)),
                operation(frame),
                new MacAddress(senderMac(frame)),
                IpAddress.v4(senderIpv4(frame) & 0xffff_ffffL),
                new MacAddress(mac(frame, TARGET_MAC)),
                IpAddress.v4(targetIpv4(frame) & 0xffff_ffffL)));
    }

    // In-place accessors; valid only on a frame that passed check().

    public static long ethernetDestination(MemorySegment frame) {
        return mac(frame, 0);
    }

    public static int operation(MemorySegment frame) {
        return u16(frame, OPERATION);
    }

    public static long senderMac(MemorySegment frame) {
        return mac(frame, SENDER_MAC);
    }

    public static int senderIpv4(MemorySegment frame) {
        return i32(frame, SENDER_IP);
    }

    public static int targetIpv4(MemorySegment frame) {
        return i32(frame, TARGET_IP);
    }

    /**
     * Writes the reply to a checked request, in place from the request's fields: to the requester's MAC, op 2,
     * sender = our MAC + the requested IP, target = the requester's MAC and IP.
     */
    public static int encodeReply(MemorySegment out, MemorySegment request, MacAddress ourMac) {
        long requesterMac = senderMac(request);
        return write(out, requesterMac, ourMac.bits(), REPLY, targetIpv4(request), requesterMac, senderIpv4(request));
    }

    /** The reply to a decoded request. */
    public static int encodeReply(MemorySegment out, ArpPacket request, MacAddress ourMac) {
        return write(
                out,
                request.senderMac.bits(),
                ourMac.bits(),
                REPLY,
                ipv4(request.targetIp),
                request.senderMac.bits(),
                ipv4(request.senderIp));
    }

    /** An ordinary broadcast request "who has target, tell sender", as a client such as arping sends it. */
    public static int encodeRequest(MemorySegment out, MacAddress ourMac, IpAddress ourIp, IpAddress target) {
        return write(out, MacAddress.BROADCAST.bits(), ourMac.bits(), REQUEST, ipv4(ourIp), 0, ipv4(target));
    }

    /**
     * An ARP probe (RFC 5227 section 2.1.1): broadcast, sender MAC ours, sender IP 0.0.0.0 (so that no host updates
     * a cache from it), target MAC 0, target IP the address asked about.
     */
    public static int encodeProbe(MemorySegment out, MacAddress ourMac, IpAddress target) {
        return write(out, MacAddress.BROADCAST.bits(), ourMac.bits(), REQUEST, 0, 0, ipv4(target));
    }

    /** MetalLB's gratuitous request: broadcast, sender IP = target IP = VIP, target MAC 00:00:00:00:00:00. */
    public static int encodeGratuitousRequest(MemorySegment out, MacAddress ourMac, IpAddress vip) {
        int ip = ipv4(vip);
        return write(out, MacAddress.BROADCAST.bits(), ourMac.bits(), REQUEST, ip, 0, ip);
    }

    /**
     * MetalLB's gratuitous reply: broadcast, sender IP = target IP = VIP, target MAC = our own MAC (Linux treats a
     * reply as gratuitous only when both MACs match).
     */
    public static int encodeGratuitousReply(MemorySegment out, MacAddress ourMac, IpAddress vip) {
        int ip = ipv4(vip);
        return write(out, MacAddress.BROADCAST.bits(), ourMac.bits(), REPLY, ip, ourMac.bits(), ip);
    }

    private static int write(
            MemorySegment out, long ethDestination, long ourMac, int op, int senderIp, long targetMac, int targetIp) {
        putMac(out, 0, ethDestination);
        putMac(out, 6, ourMac);
        putU16(out, Wire.ETHERTYPE_OFFSET, ETHERTYPE);
        putU16(out, HARDWARE_TYPE, HARDWARE_ETHERNET);
        putU16(out, PROTOCOL_TYPE, PROTOCOL_IPV4);
        putU8(out, HARDWARE_LENGTH, 6);
        putU8(out, PROTOCOL_LENGTH, 4);
        putU16(out, OPERATION, op);
        putMac(out, SENDER_MAC, ourMac);
        putU32(out, SENDER_IP, senderIp);
        putMac(out, TARGET_MAC, targetMac);
        putU32(out, TARGET_IP, targetIp);
        return FRAME_LENGTH;
    }

    private static int ipv4(IpAddress ip) {
        if (!ip.isV4()) {
            throw new IllegalArgumentException("ARP carries IPv4 addresses only, not " + ip);
        }
        return (int) ip.low();
    }
}
