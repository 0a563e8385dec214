package io.lbk8s.net.frame;

import io.lbk8s.address.IpAddress;
import java.util.HexFormat;

/** A 48-bit Ethernet address held in the low 48 bits of a long, so that frames can be compared without allocating. */
public record MacAddress(long bits) {

    private static final long MASK = 0xffff_ffff_ffffL;

    public static final MacAddress BROADCAST = new MacAddress(MASK);
    public static final MacAddress ZERO = new MacAddress(0);
    /** 33:33:00:00:00:01, the Ethernet address of ff02::1 (all nodes). */
    public static final MacAddress ALL_NODES = new MacAddress(0x3333_0000_0001L);

    public MacAddress {
        if ((bits & ~MASK) != 0) {
            throw new IllegalArgumentException("a MAC address has 48 bits: " + Long.toHexString(bits));
        }
    }

    /** Parses the colon form {@code 02:00:00:00:00:01} (either case); also accepts dashes as Windows prints them. */
    public static MacAddress parse(String text) {
        String[] parts = text.split("[:-]", -1);
        if (parts.length != 6) {
            throw new IllegalArgumentException("not a MAC address: " + text);
        }
        long bits = 0;
        for (String part : parts) {
            if (part.length() != 2 || !HexFormat.isHexDigit(part.charAt(0)) || !HexFormat.isHexDigit(part.charAt(1))) {
                throw new IllegalArgumentException("not a MAC address: " + text);
            }
            bits = (bits << 8) | HexFormat.fromHexDigits(part);
        }
        return new MacAddress(bits);
    }

    public static MacAddress ofBytes(byte[] b, int offset) {
        if (offset < 0 || b.length - offset < 6) {
            throw new IllegalArgumentException("a MAC address needs 6 bytes at offset " + offset);
        }
        long bits = 0;
        for (int i = offset; i < offset + 6; i++) {
            bits = (bits << 8) | (b[i] & 0xffL);
        }
        return new MacAddress(bits);
    }

    /** 33:33:ff followed by the low 24 bits of the address (RFC 2464 mapping of ff02::1:ffXX:XXXX). */
    public static MacAddress solicitedNodeMulticast(IpAddress v6) {
        requireV6(v6);
        return new MacAddress(solicitedNodeMulticastBits(v6.low()));
    }

    public static long solicitedNodeMulticastBits(long low) {
        return 0x3333_ff00_0000L | (low & 0xff_ffffL);
    }

    /** ff02::1:ffXX:XXXX for the given address. */
    public static IpAddress solicitedNodeGroup(IpAddress v6) {
        requireV6(v6);
        return new IpAddress(v6.family(), 0xff02_0000_0000_0000L, 0x0000_0001_ff00_0000L | (v6.low() & 0xff_ffffL));
    }

    private static void requireV6(IpAddress ip) {
        if (ip.isV4()) {
            throw new IllegalArgumentException("solicited-node multicast exists for IPv6 only, not " + ip);
        }
    }

    public byte[] bytes() {
        byte[] b = new byte[6];
        for (int i = 0; i < 6; i++) {
            b[i] = (byte) (bits >>> (40 - 8 * i));
        }
        return b;
    }

    public boolean isBroadcast() {
        return bits == MASK;
    }

    /** The group bit: the lowest bit of the first octet. */
    public boolean isMulticast() {
        return (bits & 0x0100_0000_0000L) != 0;
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(17);
        HexFormat hex = HexFormat.of();
        for (int i = 0; i < 6; i++) {
            if (i > 0) {
                text.append(':');
            }
            text.append(hex.toHexDigits((byte) (bits >>> (40 - 8 * i))));
        }
        return text.toString();
    }
}
