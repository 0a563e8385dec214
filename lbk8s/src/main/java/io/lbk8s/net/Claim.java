package io.lbk8s.net;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.net.frame.ArpPacket;
import io.lbk8s.net.frame.MacAddress;
import io.lbk8s.net.frame.NdpPacket;
import java.lang.foreign.MemorySegment;

/**
 * A host on the LAN claiming an address, as an ARP or neighbor discovery frame says it: the address, the host's MAC,
 * and whether it only probes for it (an ARP probe from 0.0.0.0, a duplicate address detection solicitation) rather
 * than uses it (any ARP frame with it as sender IP, a neighbor advertisement for it).
 */
record Claim(IpAddress address, MacAddress mac, boolean probe) {

    /** The address an ARP frame claims for its sender: its sender IP, or for a probe (sender 0.0.0.0) its target. */
    static Claim ofArp(MemorySegment frame, int length) {
        if (ArpPacket.check(frame, length) != ArpPacket.Verdict.OK) {
            return null;
        }
        int address = ArpPacket.senderIpv4(frame);
        boolean probe = address == 0 && ArpPacket.operation(frame) == ArpPacket.REQUEST;
        if (probe) {
            address = ArpPacket.targetIpv4(frame);
        }
        if (address == 0) {
            return null;
        }
        return new Claim(IpAddress.v4(address & 0xffff_ffffL), new MacAddress(ArpPacket.senderMac(frame)), probe);
    }

    /**
     * The address a neighbor discovery frame claims: an advertisement's target (for the MAC in its target
     * link-layer option, else its Ethernet source), or the target of another host's duplicate address detection.
     */
    static Claim ofNeighborDiscovery(MemorySegment frame, int length) {
        long mac;
        boolean probe;
        if (NdpPacket.checkAdvertisement(frame, length) == NdpPacket.Verdict.OK) {
            long option = NdpPacket.targetLinkLayerAddress(frame);
            mac = option >= 0 ? option : NdpPacket.ethernetSource(frame);
            probe = false;
        } else if (NdpPacket.checkSolicitation(frame, length) == NdpPacket.Verdict.OK
                && NdpPacket.isUnspecifiedSource(frame)) {
            mac = NdpPacket.ethernetSource(frame);
            probe = true;
        } else {
            return null;
        }
        IpAddress target = new IpAddress(IpFamily.IPv6, NdpPacket.targetHigh(frame), NdpPacket.targetLow(frame));
        return new Claim(target, new MacAddress(mac), probe);
    }
}
