package io.lbk8s.bgp;

import io.lbk8s.address.IpAddress;
import io.lbk8s.address.IpFamily;
import io.lbk8s.address.IpPrefix;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Reads BGP messages and checks them as RFC 4271 6.1-6.4 asks. */
public final class MessageDecoder {
    public static final int HEADER = 19;
    public static final int MAX_LENGTH = 4096;

    private MessageDecoder() {}

    /** The whole message's length as its header says; the caller reads that many bytes before decoding. */
    public static int length(byte[] header) {
        return ((header[16] & 0xFF) << 8) | (header[17] & 0xFF);
    }

    /**
     * @param message     the whole message, header included
     * @param fourOctetAs both sides advertised the four-octet AS capability, so AS_PATH holds four-octet ASes
     */
    public static Decoded decode(byte[] message, boolean fourOctetAs) {
        try {
            return decodeOrThrow(message, fourOctetAs);
        } catch (Malformed e) {
            return new Decoded.Invalid(e.notification, e.getMessage(), e.family);
        }
    }

    private static Decoded decodeOrThrow(byte[] message, boolean fourOctetAs) throws Malformed {
        if (message.length < HEADER) {
            throw new Malformed(1, 2, "a message shorter than the 19-octet header");
        }
        for (int i = 0; i < 16; i++) {
            if (message[i] != (byte) 0xFF) {
                throw new Malformed(1, 1, "a message whose marker is not all ones");
            }
        }
        int length = length(message);
        int type = message[18] & 0xFF;
        Octets lengthField = new Octets(Arrays.copyOfRange(message, 16, 18));
        if (length < HEADER || length > MAX_LENGTH || length != message.length) {
            throw new Malformed(1, 2, lengthField, "a message of length " + length);
        }
        int minimum = switch (type) {
            case 1 -> 29;
            case 2 -> 23;
            case 3 -> 21;
            case 4 -> 19;
            case 5 -> 23;
            default -> throw new Malformed(1, 3, new Octets(new byte[] {(byte) type}), "a message of type " + type);
        };
        if (length < minimum || (type == 4 && length != 19) || (type == 5 && length != 23)) {
            throw new Malformed(1, 2, lengthField, "a message of type " + type + " and length " + length);
        }
        ByteBuffer body = ByteBuffer.wrap(message, HEADER, length - HEADER).slice();
        if (type == 2) {
            return UpdateDecoder.decode(body, fourOctetAs);
        }
        return new Decoded.Valid(
                switch (type) {
                    case 1 -> OpenDecoder.decode(body);
                    case 3 -> notification(body);
                    case 4 -> new Message.Keepalive();
                    default -> new Message.RouteRefresh(body.getShort() & 0xFFFF, body.get(3) & 0xFF);
                });
    }

    private static Message.Notification notification(ByteBuffer body) {
        int code = body.get() & 0xFF;
        int subcode = body.get() & 0xFF;
        byte[] data = new byte[body.remaining()];
        body.get(data);
        return new Message.Notification(code, subcode, new Octets(data));
    }

    /** RFC 4271 4.3: a length in bits, then as few octets as hold it. */
    static List<IpPrefix> prefixes(ByteBuffer in, IpFamily family, int code, int subcode) throws Malformed {
        List<IpPrefix> prefixes = new ArrayList<>();
        while (in.hasRemaining()) {
            int length = in.get() & 0xFF;
            int octets = (length + 7) / 8;
            if (length > family.bits() || octets > in.remaining()) {
                throw new Malformed(code, subcode, "a prefix of length " + length + " that does not fit");
            }
            byte[] address = new byte[family.bits() / 8];
            in.get(address, 0, octets);
            prefixes.add(IpPrefix.around(IpAddress.ofBytes(address), length));
        }
        return prefixes;
    }
}
