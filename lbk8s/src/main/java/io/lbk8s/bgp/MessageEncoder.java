package io.lbk8s.bgp;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpPrefix;
import java.io.ByteArrayOutputStream;
import java.util.List;

/** Writes BGP messages as RFC 4271 4 lays them out. */
public final class MessageEncoder {
    private MessageEncoder() {}

    /** @param fourOctetAs both sides advertised the four-octet AS capability (AS_PATH ASes take four octets) */
    public static byte[] encode(Message message, boolean fourOctetAs) {
        Out body = new Out();
        switch (message) {
            case Message.Open open -> open(open, body);
            case Message.Update update -> update(update, body, fourOctetAs);
            case Message.Keepalive _ -> {}
            case Message.Notification n -> {
                body.u8(n.code());
                body.u8(n.subcode());
                body.bytes(n.data().bytes());
            }
            case Message.RouteRefresh r -> {
                body.u16(r.afi());
                body.u8(0);
                body.u8(r.safi());
            }
        }
        byte[] payload = body.toByteArray();
        int length = MessageDecoder.HEADER + payload.length;
        if (length > MessageDecoder.MAX_LENGTH) {
            throw new IllegalArgumentException("a BGP message of " + length + " octets exceeds 4096");
        }
        Out out = new Out();
        for (int i = 0; i < 16; i++) {
            out.u8(0xFF);
        }
        out.u16(length);
        out.u8(message.type());
        out.bytes(payload);
        return out.toByteArray();
    }

    /** The encoded size of an UPDATE, to pack routes into messages without encoding them twice. */
    static int prefixLength(IpPrefix prefix) {
        return 1 + (prefix.length() + 7) / 8;
    }

    private static void open(Message.Open open, Out body) {
        body.u8(open.version());
        body.u16(open.myAsField());
        body.u16(open.holdTime());
        body.bytes(open.bgpIdentifier().toBytes());
        Out capabilities = new Out();
        for (Capability capability : open.capabilities()) {
            Out value = new Out();
            switch (capability) {
                case Capability.Multiprotocol mp -> {
                    value.u16(mp.afi());
                    value.u8(0);
                    value.u8(mp.safi());
                }
                case Capability.RouteRefresh _ -> {}
                case Capability.FourOctetAs four -> value.u32(four.asn());
                case Capability.GracefulRestart gr -> {
                    value.u16((gr.restarting() ? 0x8000 : 0) | (gr.restartTimeSeconds() & 0x0FFF));
                    for (var family : gr.families()) {
                        value.u16(family.afi());
                        value.u8(family.safi());
                        value.u8(family.preserved() ? 0x80 : 0);
                    }
                }
                case Capability.Unknown unknown -> value.bytes(unknown.value().bytes());
            }
            byte[] v = value.toByteArray();
            capabilities.u8(capability.code());
            capabilities.u8(v.length);
            capabilities.bytes(v);
        }
        byte[] caps = capabilities.toByteArray();
        // one Capabilities optional parameter (type 2) holding them all, as RFC 5492 allows
        body.u8(caps.length == 0 ? 0 : caps.length + 2);
        if (caps.length > 0) {
            body.u8(2);
            body.u8(caps.length);
            body.bytes(caps);
        }
    }

    private static void update(Message.Update update, Out body, boolean fourOctetAs) {
        byte[] withdrawn = prefixes(update.withdrawn());
        body.u16(withdrawn.length);
        body.bytes(withdrawn);
        Out attributes = new Out();
        for (PathAttribute attribute : update.attributes()) {
            attribute(attribute, attributes, fourOctetAs);
        }
        byte[] attrs = attributes.toByteArray();
        body.u16(attrs.length);
        body.bytes(attrs);
        body.bytes(prefixes(update.nlri()));
    }

    private static void attribute(PathAttribute attribute, Out out, boolean fourOctetAs) {
        Out value = new Out();
        int flags = attribute.flags();
        switch (attribute) {
            case PathAttribute.Origin origin -> value.u8(origin.value());
            case PathAttribute.AsPath path -> {
                for (AsPathSegment segment : path.segments()) {
                    value.u8(segment.type().code());
                    value.u8(segment.asns().size());
                    for (long asn : segment.asns()) {
                        if (fourOctetAs) {
                            value.u32(asn);
                        } else {
                            value.u16(asn > 0xFFFF ? Message.AS_TRANS : (int) asn);
                        }
                    }
                }
            }
            case PathAttribute.NextHop hop -> value.bytes(hop.address().toBytes());
            case PathAttribute.MultiExitDisc med -> value.u32(med.value());
            case PathAttribute.LocalPref pref -> value.u32(pref.value());
            case PathAttribute.Communities c -> c.values().forEach(v -> value.u32(v.value()));
            case PathAttribute.LargeCommunities c ->
                c.values().forEach(v -> {
                    value.u32(v.global());
                    value.u32(v.local1());
                    value.u32(v.local2());
                });
            case PathAttribute.MpReach reach -> {
                value.u16(reach.family().afi());
                value.u8(reach.family().safi());
                byte[] global = reach.nextHop().toBytes();
                byte[] linkLocal =
                        reach.linkLocalNextHop().map(a -> a.toBytes()).orElse(new byte[0]);
                value.u8(global.length + linkLocal.length);
                value.bytes(global);
                value.bytes(linkLocal);
                value.u8(0);
                value.bytes(prefixes(reach.nlri()));
            }
            case PathAttribute.MpUnreach unreach -> {
                value.u16(unreach.family().afi());
                value.u8(unreach.family().safi());
                value.bytes(prefixes(unreach.withdrawn()));
            }
            case PathAttribute.Other other -> value.bytes(other.value().bytes());
        }
        byte[] v = value.toByteArray();
        boolean extended = v.length > 255;
        out.u8((flags & ~PathAttribute.EXTENDED_LENGTH) | (extended ? PathAttribute.EXTENDED_LENGTH : 0));
        out.u8(attribute.typeCode());
        if (extended) {
            out.u16(v.length);
        } else {
            out.u8(v.length);
        }
        out.bytes(v);
    }

    private static byte[] prefixes(List<IpPrefix> prefixes) {
        Out out = new Out();
        for (IpPrefix prefix : prefixes) {
            out.u8(prefix.length());
            // the network's octets straight from the address, host bits cleared: no copies per prefix (a full table
            // writes 10,000 of them)
            IpAddress address = prefix.address();
            for (int i = 0, bits = prefix.length(); bits > 0; i++, bits -= 8) {
                int octet = octet(address, i);
                out.u8(bits >= 8 ? octet : octet & (0xFF00 >>> bits));
            }
        }
        return out.toByteArray();
    }

    /** The {@code i}-th octet of {@code address}, in network order. */
    private static int octet(IpAddress address, int i) {
        if (address.isV4()) {
            return (int) (address.low() >>> (24 - 8 * i)) & 0xFF;
        }
        return (int) ((i < 8 ? address.high() : address.low()) >>> (56 - 8 * (i % 8))) & 0xFF;
    }

    /** A growing buffer with the big-endian writes BGP needs. */
    private static final class Out extends ByteArrayOutputStream {
        void u8(int v) {
            write(v);
        }

        void u16(int v) {
            write(v >>> 8);
            write(v);
        }

        void u32(long v) {
            u16((int) (v >>> 16) & 0xFFFF);
            u16((int) v & 0xFFFF);
        }

        void bytes(byte[] b) {
            write(b, 0, b.length);
        }
    }
}
