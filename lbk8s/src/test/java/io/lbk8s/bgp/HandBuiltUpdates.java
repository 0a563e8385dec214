package io.lbk8s.bgp;

import java.nio.ByteBuffer;
import java.util.HexFormat;

/** UPDATEs written out octet by octet, malformed ones included, for the tests of RFC 7606's error handling. */
public final class HandBuiltUpdates {
    /** MP_REACH_NLRI's value: IPv6 unicast, next hop fd00::1, fd00::/64 (30 octets). */
    static final String MP_REACH_V6 = "00020110fd00000000000000000000000000000100" + "40fd00000000000000";

    private HandBuiltUpdates() {}

    /**
     * An UPDATE without withdrawn routes, with these path attributes and this NLRI field, in hex (spaces ignored; the
     * word MP_REACH_V6 stands for {@link #MP_REACH_V6}); {@code nlri} may be null for none.
     */
    public static byte[] update(String attributes, String nlri) {
        HexFormat hex = HexFormat.of();
        byte[] attrs =
                hex.parseHex(attributes.replace("MP_REACH_V6", MP_REACH_V6).replace(" ", ""));
        byte[] routes = nlri == null ? new byte[0] : hex.parseHex(nlri.replace(" ", ""));
        int length = MessageDecoder.HEADER + 2 + 2 + attrs.length + routes.length;
        ByteBuffer message = ByteBuffer.allocate(length);
        for (int i = 0; i < 16; i++) {
            message.put((byte) 0xFF);
        }
        message.putShort((short) length).put((byte) 2).putShort((short) 0).putShort((short) attrs.length);
        return message.put(attrs).put(routes).array();
    }
}
