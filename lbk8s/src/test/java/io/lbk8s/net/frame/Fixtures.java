package io.lbk8s.net.frame;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/** The captured frames of src/test/resources/net (see its README for how they were captured). */
public final class Fixtures {

    public static final String ARP_REQUEST = "arp-request-arping";
    public static final String ARP_REPLY_KERNEL = "arp-reply-kernel";
    public static final String ARP_GRATUITOUS_REQUEST = "arp-gratuitous-request-arping-U";
    public static final String ARP_GRATUITOUS_REPLY = "arp-gratuitous-reply-arping-A";
    public static final String NS_NDISC6 = "ndp-ns-ndisc6";
    public static final String NS_DAD = "ndp-ns-dad-kernel";
    public static final String NA_KERNEL = "ndp-na-kernel";
    public static final String NA_UNSOLICITED_KERNEL = "ndp-na-unsolicited-kernel";
    public static final String RS_KERNEL = "ndp-rs-kernel";

    public static final String[] ALL = {
        ARP_REQUEST,
        ARP_REPLY_KERNEL,
        ARP_GRATUITOUS_REQUEST,
        ARP_GRATUITOUS_REPLY,
        NS_NDISC6,
        NS_DAD,
        NA_KERNEL,
        NA_UNSOLICITED_KERNEL,
        RS_KERNEL
    };

    public static final MacAddress MAC_A = MacAddress.parse("02:00:00:00:00:0a");
    public static final MacAddress MAC_B = MacAddress.parse("02:00:00:00:00:0b");
    public static final MacAddress MAC_A_CHANGED = MacAddress.parse("02:00:00:00:00:0c");

    private Fixtures() {}

    public static byte[] bytes(String name) {
        try (InputStream in = Fixtures.class.getResourceAsStream("/net/" + name + ".hex")) {
            if (in == null) {
                throw new IllegalArgumentException("no fixture " + name);
            }
            String hex = new String(in.readAllBytes(), StandardCharsets.US_ASCII).replaceAll("\\s+", "");
            return HexFormat.of().parseHex(hex);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static MemorySegment segment(String name) {
        return MemorySegment.ofArray(bytes(name));
    }

    public static String hex(MemorySegment segment, int length) {
        return HexFormat.ofDelimiter(" ")
                .formatHex(segment.asSlice(0, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }

    public static String hex(byte[] bytes) {
        return HexFormat.ofDelimiter(" ").formatHex(bytes);
    }
}
