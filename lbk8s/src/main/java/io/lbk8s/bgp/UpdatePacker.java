package io.lbk8s.bgp;

import io.lbk8s.address.IpFamily;
import io.lbk8s.address.IpPrefix;
import java.util.ArrayList;
import java.util.List;

/** Packs prefixes into as few UPDATEs as fit in 4096 octets each (RFC 4271 4.1). */
final class UpdatePacker {
    /** One octet of headroom: an attribute that grows past 255 octets takes a two-octet length. */
    private static final int BUDGET = MessageDecoder.MAX_LENGTH - 1;

    private UpdatePacker() {}

    static List<Message.Update> withdrawals(List<IpPrefix> prefixes) {
        List<Message.Update> updates = new ArrayList<>();
        List<IpPrefix> v4 =
                prefixes.stream().filter(p -> p.family() == IpFamily.IPv4).toList();
        List<IpPrefix> v6 =
                prefixes.stream().filter(p -> p.family() == IpFamily.IPv6).toList();
        for (List<IpPrefix> chunk : chunks(v4, size(new Message.Update(List.of(), List.of(), List.of())))) {
            updates.add(new Message.Update(chunk, List.of(), List.of()));
        }
        PathAttribute emptyUnreach = new PathAttribute.MpUnreach(Family.IPV6_UNICAST, List.of());
        for (List<IpPrefix> chunk : chunks(v6, size(new Message.Update(List.of(), List.of(emptyUnreach), List.of())))) {
            updates.add(new Message.Update(
                    List.of(), List.of(new PathAttribute.MpUnreach(Family.IPV6_UNICAST, chunk)), List.of()));
        }
        return updates;
    }

    /** @param attributes as {@link RouteAttributes} made them: an IPv6 route's MP_REACH_NLRI gets the prefixes */
    static List<Message.Update> announcements(List<PathAttribute> attributes, List<IpPrefix> prefixes) {
        int base = size(new Message.Update(List.of(), attributes, List.of()));
        List<Message.Update> updates = new ArrayList<>();
        for (List<IpPrefix> chunk : chunks(prefixes, base)) {
            List<PathAttribute> filled = new ArrayList<>();
            boolean multiprotocol = false;
            for (PathAttribute attribute : attributes) {
                if (attribute instanceof PathAttribute.MpReach r) {
                    multiprotocol = true;
                    filled.add(new PathAttribute.MpReach(r.family(), r.nextHop(), r.linkLocalNextHop(), chunk));
                } else {
                    filled.add(attribute);
                }
            }
            updates.add(new Message.Update(List.of(), filled, multiprotocol ? List.of() : chunk));
        }
        return updates;
    }

    private static List<List<IpPrefix>> chunks(List<IpPrefix> prefixes, int base) {
        List<List<IpPrefix>> chunks = new ArrayList<>();
        List<IpPrefix> current = new ArrayList<>();
        int size = base;
        for (IpPrefix prefix : prefixes) {
            int length = MessageEncoder.prefixLength(prefix);
            if (size + length > BUDGET && !current.isEmpty()) {
                chunks.add(current);
                current = new ArrayList<>();
                size = base;
            }
            current.add(prefix);
            size += length;
        }
        if (!current.isEmpty()) {
            chunks.add(current);
        }
        return chunks;
    }

    private static int size(Message.Update update) {
        return MessageEncoder.encode(update, true).length;
    }
}
