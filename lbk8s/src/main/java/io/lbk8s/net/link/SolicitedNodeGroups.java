package io.lbk8s.net.link;

import io.lbk8s.address.IpAddress;
import io.lbk8s.net.frame.MacAddress;
import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.nio.channels.MembershipKey;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * IPv6 memberships of the solicited-node groups (ff02::1:ffXX:XXXX) of the addresses we announce on one interface.
 *
 * <p>A packet socket's PACKET_ADD_MEMBERSHIP only programs the NIC's filter and sends no MLD report, so a bridge or
 * switch doing MLD snooping would never forward the solicitations for a VIP. An ordinary IPv6 join on a kept-open
 * datagram channel makes the kernel send the report (and answer queries). Several VIPs can share a group (same low
 * 24 bits); the group is left when the last of them is.
 */
public final class SolicitedNodeGroups implements AutoCloseable {

    private final NetworkInterface nic;
    private final DatagramChannel channel;
    private final Map<IpAddress, Membership> groups = new HashMap<>();
    private boolean closed;

    private record Membership(MembershipKey key, Set<IpAddress> addresses) {}

    private SolicitedNodeGroups(NetworkInterface nic, DatagramChannel channel) {
        this.nic = nic;
        this.channel = channel;
    }

    public static SolicitedNodeGroups open(LinkInfo link) throws IOException {
        NetworkInterface nic = NetworkInterface.getByIndex(link.index());
        if (nic == null) {
            throw new IOException(
                    "no interface with index " + link.index() + " (" + link.name() + ") to join groups on");
        }
        return new SolicitedNodeGroups(nic, DatagramChannel.open(StandardProtocolFamily.INET6));
    }

    /** Joins the group of {@code address}; joining twice for one address is a no-op. */
    public synchronized void join(IpAddress address) throws IOException {
        requireOpen();
        IpAddress group = MacAddress.solicitedNodeGroup(address);
        Membership membership = groups.get(group);
        if (membership == null) {
            MembershipKey key = channel.join(InetAddress.getByAddress(group.toBytes()), nic);
            membership = new Membership(key, new HashSet<>());
            groups.put(group, membership);
        }
        membership.addresses().add(address);
    }

    /** Leaves the group of {@code address} once no other joined address shares it; unknown addresses are ignored. */
    public synchronized void leave(IpAddress address) {
        IpAddress group = MacAddress.solicitedNodeGroup(address);
        Membership membership = groups.get(group);
        if (membership != null
                && membership.addresses().remove(address)
                && membership.addresses().isEmpty()) {
            membership.key().drop();
            groups.remove(group);
        }
    }

    /** The groups currently joined. */
    public synchronized Set<IpAddress> groups() {
        return Set.copyOf(groups.keySet());
    }

    @Override
    public synchronized void close() throws IOException {
        if (!closed) {
            closed = true;
            groups.clear();
            channel.close(); // drops every membership
        }
    }

    private void requireOpen() throws IOException {
        if (closed) {
            throw new IOException("solicited-node groups on " + nic.getName() + " are closed");
        }
    }
}
