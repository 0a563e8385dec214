package io.lbk8s.bgp;

import io.lbk8s.address.IpAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Reads an OPEN's fields and capabilities (RFC 4271 4.2, 6.2; RFC 5492). */
final class OpenDecoder {
    private OpenDecoder() {}

    static Message.Open decode(ByteBuffer body) throws Malformed {
        int version = body.get() & 0xFF;
        if (version != 4) {
            throw new Malformed(2, 1, new Octets(new byte[] {0, 4}), "an OPEN of BGP version " + version);
        }
        int myAs = body.getShort() & 0xFFFF;
        int holdTime = body.getShort() & 0xFFFF;
        byte[] id = new byte[4];
        body.get(id);
        IpAddress identifier = IpAddress.ofBytes(id);
        if (identifier.low() == 0) {
            throw new Malformed(2, 3, "an OPEN with BGP identifier 0.0.0.0");
        }
        int parametersLength = body.get() & 0xFF;
        if (parametersLength != body.remaining()) {
            throw new Malformed(2, 0, "an OPEN whose optional parameters' length is wrong");
        }
        List<Capability> capabilities = new ArrayList<>();
        typeLengthValues(body, "optional parameter", (type, parameter) -> {
            if (type != 2) {
                // RFC 4271 6.2: any optional parameter other than Capabilities (RFC 5492) is not one we know
                throw new Malformed(2, 4, "an OPEN with optional parameter type " + type);
            }
            typeLengthValues(parameter, "capability", (code, value) -> capabilities.add(capability(code, value)));
        });
        return new Message.Open(version, myAs, holdTime, identifier, capabilities);
    }

    /** Takes one optional parameter or capability. */
    private interface Each {
        void take(int type, ByteBuffer value) throws Malformed;
    }

    /** Reads {@code in} to its end as one-octet type, one-octet length and value, the layout of both nested lists. */
    private static void typeLengthValues(ByteBuffer in, String what, Each each) throws Malformed {
        while (in.hasRemaining()) {
            if (in.remaining() < 2) {
                throw new Malformed(2, 0, "an OPEN with a truncated " + what);
            }
            int type = in.get() & 0xFF;
            int length = in.get() & 0xFF;
            if (length > in.remaining()) {
                throw new Malformed(2, 0, "an OPEN with a truncated " + what + " " + type);
            }
            ByteBuffer value = in.slice(in.position(), length);
            in.position(in.position() + length);
            each.take(type, value);
        }
    }

    private static Capability capability(int code, ByteBuffer value) throws Malformed {
        int length = value.remaining();
        boolean wellFormed = switch (code) {
            case 1, 65 -> length == 4;
            case 2 -> length == 0;
            case 64 -> length >= 2 && (length - 2) % 4 == 0;
            default -> true;
        };
        if (!wellFormed) {
            throw new Malformed(2, 0, "an OPEN with capability " + code + " of length " + length);
        }
        return switch (code) {
            case 1 -> new Capability.Multiprotocol(value.getShort() & 0xFFFF, value.get(3) & 0xFF);
            case 2 -> new Capability.RouteRefresh();
            case 64 -> gracefulRestart(value);
            case 65 -> new Capability.FourOctetAs(value.getInt() & 0xFFFF_FFFFL);
            default -> {
                byte[] bytes = new byte[length];
                value.get(bytes);
                yield new Capability.Unknown(code, new Octets(bytes));
            }
        };
    }

    private static Capability.GracefulRestart gracefulRestart(ByteBuffer value) {
        int flagsAndTime = value.getShort() & 0xFFFF;
        List<Capability.GracefulRestart.Forwarding> families = new ArrayList<>();
        while (value.hasRemaining()) {
            int afi = value.getShort() & 0xFFFF;
            int safi = value.get() & 0xFF;
            int flags = value.get() & 0xFF;
            families.add(new Capability.GracefulRestart.Forwarding(afi, safi, (flags & 0x80) != 0));
        }
        return new Capability.GracefulRestart((flagsAndTime & 0x8000) != 0, flagsAndTime & 0x0FFF, families);
    }
}
