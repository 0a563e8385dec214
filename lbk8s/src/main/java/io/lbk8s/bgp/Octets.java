package io.lbk8s.bgp;

import java.util.Arrays;
import java.util.HexFormat;

/** Bytes kept as they came (a NOTIFICATION's data, an unknown capability or attribute), compared by content. */
public record Octets(byte[] bytes) {
    public static final Octets EMPTY = new Octets(new byte[0]);

    public Octets {
        bytes = bytes.clone();
    }

    public static Octets ofHex(String hex) {
        return new Octets(HexFormat.of().parseHex(hex));
    }

    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    public int length() {
        return bytes.length;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Octets o && Arrays.equals(bytes, o.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return HexFormat.of().formatHex(bytes);
    }
}
