package io.lbk8s.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/** The captured frames of src/test/resources/net (see its README for how they were captured). */
final class Fixtures {

    static final String ARP_REQUEST = "arp-request-arping";
    static final String ARP_REPLY_KERNEL = "arp-reply-kernel";
    static final String ARP_GRATUITOUS_REQUEST = "arp-gratuitous-request-arping-U";
    static final String ARP_GRATUITOUS_REPLY = "arp-gratuitous-reply-arping-A";
    static final String NS_NDISC6 = "ndp-ns-ndisc6";
    static final String NS_DAD = "ndp-ns-dad-kernel";
    static final String NA_KERNEL = "ndp-na-kernel";
    static final String NA_UNSOLICITED_KERNEL = "ndp-na-unsolicited-kernel";
    static final String RS_KERNEL = "ndp-rs-kernel";

    static final String[] ALL = {
        ARP_REQUEST, ARP_REPLY_KERNEL, ARP_GRATUITOUS_REQUEST, ARP_GRATUITOUS_REPLY,
        NS_NDISC6, NS_DAD, NA_KERNEL, NA_UNSOLICITED_KERNEL, RS_KERNEL
    };

    static final MacAddress MAC_A = MacAddress.parse("02:00:00:00:00:0a");
    static final MacAddress MAC_B = MacAddress.parse("02:00:00:00:00:0b");
    static final MacAddress MAC_A_CHANGED = MacAddress.parse("02:00:00:00:00:0c");

    private Fixtures() {}

    static byte[] bytes(String name) {
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

    static MemorySegment segment(String name) {
        return MemorySegment.ofArray(bytes(name));
    }

    static String hex(MemorySegment segment, int length) {
        return HexFormat.ofDelimiter(" ").formatHex(segment.asSlice(0, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }

    static String hex(byte[] bytes) {
        return HexFormat.ofDelimiter(" ").formatHex(bytes);
    }
}
