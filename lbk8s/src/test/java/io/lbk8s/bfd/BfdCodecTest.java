package io.lbk8s.bfd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BfdCodecTest {

    /** Down, diag 0, multiplier 3, My Discriminator 1, Your 0, 1 s desired TX, 300 ms required RX (RFC 5880 4.1). */
    static final String DOWN_PACKET = "20 40 03 18 00000001 00000000 000f4240 000493e0 00000000";

    @Test
    void decodesTheFieldsOfAControlPacket() {
        BfdPacket packet = valid(DOWN_PACKET);
        assertThat(packet)
                .isEqualTo(new BfdPacket(
                        Diagnostic.NONE, BfdState.DOWN, false, false, false, false, 3, 1, 0, 1_000_000, 300_000, 0));
    }

    @Test
    void encodesWhatItDecodes() {
        BfdPacket up = new BfdPacket(
                Diagnostic.CONTROL_DETECTION_TIME_EXPIRED,
                BfdState.UP,
                true,
                false,
                false,
                false,
                3,
                0x8000_0001,
                0xdead_beef,
                300_000,
                300_000,
                50_000);
        byte[] bytes = BfdCodec.encode(up);
        assertThat(HexFormat.of().formatHex(bytes)).isEqualTo("21e0031880000001deadbeef000493e0000493e00000c350");
        assertThat(BfdCodec.decode(bytes, bytes.length)).isEqualTo(new BfdCodec.Valid(up));
        assertThat(HexFormat.of().formatHex(BfdCodec.encode(valid(DOWN_PACKET))))
                .isEqualTo(DOWN_PACKET.replace(" ", ""));
    }

    @Test
    void aReservedDiagnosticIsKeptApartNotDropped() {
        assertThat(valid("29 40 03 18 00000001 00000000 000f4240 000493e0 00000000")
                        .diagnostic())
                .isEqualTo(Diagnostic.RESERVED);
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "00 40 03 18 00000001 00000000 000f4240 000493e0 00000000 | BFD version 0, not 1",
                "20 44 03 1a 00000001 00000000 000f4240 000493e0 00000000 0000 | the peer authenticates its BFD packets (A bit), which lbk8s does not support",
                "20 40 03 18 00000001 00000000 000f4240 000493e0 000000 | a BFD control packet has at least 24 bytes, this one 23",
                "20 40 03 20 00000001 00000000 000f4240 000493e0 00000000 | the Length field says 32 bytes, the datagram has 24",
                "20 40 03 10 00000001 00000000 000f4240 000493e0 00000000 | the Length field says 16 bytes, the datagram has 24",
                "20 40 00 18 00000001 00000000 000f4240 000493e0 00000000 | Detect Mult is zero",
                "20 41 03 18 00000001 00000000 000f4240 000493e0 00000000 | the Multipoint bit is set",
                "20 40 03 18 00000000 00000000 000f4240 000493e0 00000000 | My Discriminator is zero",
                "20 c0 03 18 00000001 00000000 000f4240 000493e0 00000000 | Your Discriminator is zero in state UP",
                "20 f0 03 18 00000001 00000002 000f4240 000493e0 00000000 | both Poll and Final are set",
            })
    void discardsWhatRfc5880Section686Discards(String hex, String reason) {
        byte[] bytes = bytes(hex);
        assertThat(BfdCodec.decode(bytes, bytes.length)).isEqualTo(new BfdCodec.Invalid(reason));
    }

    static BfdPacket valid(String hex) {
        byte[] bytes = bytes(hex);
        return switch (BfdCodec.decode(bytes, bytes.length)) {
            case BfdCodec.Valid(BfdPacket packet) -> packet;
            case BfdCodec.Invalid(String reason) -> throw new AssertionError(reason);
        };
    }

    static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(hex.replace(" ", ""));
    }
}
