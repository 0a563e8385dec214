package io.lbk8s.peers;

import static org.assertj.core.api.Assertions.assertThat;

import io.lbk8s.peers.PeerCodec.Decoded;
import io.lbk8s.peers.PeerCodec.Drop;
import io.lbk8s.peers.PeerMessage.Kind;
import io.lbk8s.peers.PeerMessage.Opinion;
import io.lbk8s.peers.PeerMessage.Report;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PeerCodecTest {
    static final String KEY_A = "a".repeat(64);
    static final String KEY_B = "0123456789abcdef0123456789abcdef";
    static final PeerKeys A = keys(KEY_A);
    static final PeerMessage MESSAGE = new PeerMessage(
            Kind.HEARTBEAT,
            "node-1",
            0x1122334455667788L,
            42,
            1_764_000_000_123L,
            true,
            false,
            List.of(new Report(PeerId.of("node-2"), Opinion.OK), new Report(PeerId.of("node-3"), Opinion.SILENT)));

    final PeerCodec codec = new PeerCodec();

    static PeerKeys keys(String... lines) {
        return ((PeerKeys.Parsed.Valid) PeerKeys.parse(String.join("\n", lines))).keys();
    }

    @Test
    void roundTripKeepsEveryField() {
        byte[] wire = codec.encode(MESSAGE, A);
        assertThat(codec.decode(wire, wire.length, A)).isEqualTo(new Decoded.Valid(MESSAGE));
        PeerMessage leaving = new PeerMessage(Kind.LEAVING, "ñode-ü", -1, Long.MAX_VALUE, 0, false, true, List.of());
        byte[] other = codec.encode(leaving, A);
        assertThat(codec.decode(other, other.length, A)).isEqualTo(new Decoded.Valid(leaving));
    }

    @Test
    void layoutIsTheDocumentedOne() {
        byte[] wire = codec.encode(MESSAGE, A);
        ByteBuffer in = ByteBuffer.wrap(wire);
        assertThat(new String(wire, 0, 4, StandardCharsets.US_ASCII)).isEqualTo("LBK8");
        assertThat(wire[4]).isEqualTo((byte) 1);
        assertThat(wire[5]).as("kind heartbeat").isEqualTo((byte) 1);
        assertThat(wire[6]).as("flags: ready").isEqualTo((byte) 1);
        assertThat(wire[7]).as("name length").isEqualTo((byte) 6);
        assertThat(in.getShort(8)).as("reports").isEqualTo((short) 2);
        assertThat(in.getLong(10)).isEqualTo(0x1122334455667788L);
        assertThat(in.getLong(18)).isEqualTo(42);
        assertThat(in.getLong(26)).isEqualTo(1_764_000_000_123L);
        assertThat(new String(wire, 34, 6, StandardCharsets.UTF_8)).isEqualTo("node-1");
        assertThat(in.getLong(40)).isEqualTo(PeerId.of("node-2"));
        assertThat(wire[48]).as("opinion ok").isEqualTo((byte) 1);
        assertThat(wire[57]).as("opinion silent").isEqualTo((byte) 3);
        assertThat(wire.length).isEqualTo(34 + 6 + 2 * 9 + 32);
        assertThat(Arrays.copyOfRange(wire, 58, 90))
                .as("HMAC-SHA256 of the rest with the first key")
                .isEqualTo(hmac(KEY_A, Arrays.copyOf(wire, 58)));
    }

    @Test
    void anyKeyOfTheRingIsAcceptedButTheFirstSigns() {
        byte[] signedWithB = codec.encode(MESSAGE, keys(KEY_B, KEY_A));
        assertThat(Arrays.copyOfRange(signedWithB, signedWithB.length - 32, signedWithB.length))
                .isEqualTo(hmac(KEY_B, Arrays.copyOf(signedWithB, signedWithB.length - 32)));
        assertThat(codec.decode(signedWithB, signedWithB.length, keys(KEY_A, KEY_B)))
                .isInstanceOf(Decoded.Valid.class);
        assertThat(codec.decode(signedWithB, signedWithB.length, keys(KEY_B))).isInstanceOf(Decoded.Valid.class);
        assertThat(drop(codec.decode(signedWithB, signedWithB.length, A))).isEqualTo(Drop.FORGED);
    }

    static Stream<Arguments> damaged() {
        return Stream.of(
                Arguments.of("a flipped bit in the name", (UnaryOperator<byte[]>) w -> flip(w, 35), Drop.FORGED),
                Arguments.of("a flipped bit in the sequence", (UnaryOperator<byte[]>) w -> flip(w, 25), Drop.FORGED),
                Arguments.of("a flipped bit in a report", (UnaryOperator<byte[]>) w -> flip(w, 48), Drop.FORGED),
                Arguments.of(
                        "a flipped bit in the tag", (UnaryOperator<byte[]>) w -> flip(w, w.length - 1), Drop.FORGED),
                Arguments.of(
                        "the ready flag set by a host without the key",
                        (UnaryOperator<byte[]>) w -> set(w, 6, 0),
                        Drop.FORGED),
                Arguments.of(
                        "the tag cut off",
                        (UnaryOperator<byte[]>) w -> Arrays.copyOf(w, w.length - 32),
                        Drop.MALFORMED),
                Arguments.of(
                        "one byte of the tag missing",
                        (UnaryOperator<byte[]>) w -> Arrays.copyOf(w, w.length - 1),
                        Drop.FORGED),
                Arguments.of("another protocol", (UnaryOperator<byte[]>) w -> set(w, 0, 'X'), Drop.MALFORMED),
                Arguments.of(
                        "shorter than any message", (UnaryOperator<byte[]>) w -> Arrays.copyOf(w, 40), Drop.MALFORMED),
                Arguments.of("empty", (UnaryOperator<byte[]>) w -> new byte[0], Drop.MALFORMED));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("damaged")
    void damagedOrForgedMessagesAreDropped(String what, UnaryOperator<byte[]> damage, Drop expected) {
        byte[] wire = damage.apply(codec.encode(MESSAGE, A));
        assertThat(drop(codec.decode(wire, wire.length, A))).isEqualTo(expected);
    }

    static Stream<Arguments> authenticButMalformed() {
        return Stream.of(
                Arguments.of("version 2", (UnaryOperator<byte[]>) w -> set(w, 4, 2)),
                Arguments.of("kind 3", (UnaryOperator<byte[]>) w -> set(w, 5, 3)),
                Arguments.of("a name length past the end", (UnaryOperator<byte[]>) w -> set(w, 7, 200)),
                Arguments.of("one report more than present", (UnaryOperator<byte[]>) w -> set(w, 9, 3)),
                Arguments.of("opinion 0", (UnaryOperator<byte[]>) w -> set(w, 48, 0)),
                Arguments.of("opinion 4", (UnaryOperator<byte[]>) w -> set(w, 48, 4)),
                Arguments.of("a name that is not UTF-8", (UnaryOperator<byte[]>) w -> set(w, 34, 0xff)));
    }

    /** A speaker with the key that sends nonsense (a bug, another version) is not believed either. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("authenticButMalformed")
    void authenticButMalformedMessagesAreDropped(String what, UnaryOperator<byte[]> damage) {
        byte[] wire = resign(damage.apply(codec.encode(MESSAGE, A)));
        assertThat(drop(codec.decode(wire, wire.length, A))).isEqualTo(Drop.MALFORMED);
    }

    @Test
    void aLengthBeyondTheBufferIsMalformed() {
        byte[] wire = codec.encode(MESSAGE, A);
        assertThat(drop(codec.decode(wire, wire.length + 1, A))).isEqualTo(Drop.MALFORMED);
    }

    @Test
    void keysAreParsedFromTheSecretsField() {
        assertThat(PeerKeys.parse(KEY_A + "\n" + KEY_B + "\n"))
                .isInstanceOfSatisfying(
                        PeerKeys.Parsed.Valid.class,
                        v -> assertThat(v.keys().keys()).hasSize(2));
        assertThat(PeerKeys.parse("\n  " + KEY_B + "  \n\n"))
                .isInstanceOfSatisfying(
                        PeerKeys.Parsed.Valid.class,
                        v -> assertThat(v.keys().keys().getFirst().getEncoded())
                                .isEqualTo(KEY_B.getBytes(StandardCharsets.UTF_8)));
        assertThat(PeerKeys.parse(KEY_A + "\nshort"))
                .isEqualTo(new PeerKeys.Parsed.Invalid(
                        "key on line 2 has 5 characters; at least 32 are needed (e.g. `openssl rand -hex 32`)"));
        assertThat(PeerKeys.parse(" \n"))
                .isEqualTo(new PeerKeys.Parsed.Invalid("no key: the field holds no non-empty line"));
        assertThat(PeerKeys.parse((KEY_A + "\n").repeat(9))).isInstanceOf(PeerKeys.Parsed.Invalid.class);
        assertThat(PeerKeys.generate(new java.security.SecureRandom())).matches("[0-9a-f]{64}");
    }

    static Drop drop(Decoded decoded) {
        return decoded instanceof Decoded.Rejected(Drop reason, String detail) ? reason : null;
    }

    static byte[] flip(byte[] wire, int at) {
        byte[] copy = wire.clone();
        copy[at] ^= 1;
        return copy;
    }

    static byte[] set(byte[] wire, int at, int value) {
        byte[] copy = wire.clone();
        copy[at] = (byte) value;
        return copy;
    }

    static byte[] resign(byte[] wire) {
        byte[] body = Arrays.copyOf(wire, wire.length - 32);
        byte[] tag = hmac(KEY_A, body);
        byte[] out = Arrays.copyOf(body, wire.length);
        System.arraycopy(tag, 0, out, body.length, 32);
        return out;
    }

    static byte[] hmac(String key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal(data);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
