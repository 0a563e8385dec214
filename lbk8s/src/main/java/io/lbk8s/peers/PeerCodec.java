package io.lbk8s.peers;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The wire form of a {@link PeerMessage}, authenticated with HMAC-SHA256 over everything before the tag:
 * <pre>
 *   0  "LBK8"          4  version (1)   5  kind (1 heartbeat, 2 leaving)   6  flags (1 ready, 2 isolated)
 *   7  name length     8  report count (u16)
 *  10  incarnation    18  sequence      26  sent at (ms since the epoch)
 *  34  name (UTF-8), then per report: peer id (8 bytes) and opinion (1 ok, 2 held, 3 silent), then the 32-byte tag
 * </pre>
 * Decoding checks the tag before it reads any field, so a forged or damaged datagram costs one HMAC and nothing else
 * is believed. Not thread-safe (it keeps its {@link Mac}); one per thread.
 */
public final class PeerCodec {

    public static final int MAX_REPORTS = 1024;
    static final byte[] MAGIC = {'L', 'B', 'K', '8'};
    static final int VERSION = 1;
    static final int HEADER = 34;
    static final int TAG = 32;
    private static final int READY = 1;
    private static final int ISOLATED = 2;
    private static final int REPORT = 9;

    /** Why a datagram was dropped; each is counted. */
    public enum Drop {
        /** Not an lbk8s message, or cut short, or inconsistent. */
        MALFORMED,
        /** Its tag matches none of our keys: a host without the key, or a speaker with another key. */
        FORGED,
        /** Authentic, but already seen or older than one seen (a recorded message sent again). */
        REPLAYED,
        /** Authentic, but its clock is too far from ours to tell a replay from a live message. */
        STALE,
        /** Authentic, from a node that runs no speaker we know of. */
        UNKNOWN_SENDER
    }

    public sealed interface Decoded {
        record Valid(PeerMessage message) implements Decoded {}

        record Rejected(Drop reason, String detail) implements Decoded {}
    }

    private final Mac mac;

    public PeerCodec() {
        try {
            mac = Mac.getInstance(PeerKeys.ALGORITHM);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("every JDK has HmacSHA256", e);
        }
    }

    public byte[] encode(PeerMessage message, PeerKeys keys) {
        byte[] name = message.node().getBytes(StandardCharsets.UTF_8);
        if (name.length == 0 || name.length > 255) {
            throw new IllegalArgumentException("node name of " + name.length + " bytes");
        }
        if (message.reports().size() > MAX_REPORTS) {
            throw new IllegalArgumentException(message.reports().size() + " reports; at most " + MAX_REPORTS);
        }
        ByteBuffer out = ByteBuffer.allocate(
                HEADER + name.length + REPORT * message.reports().size() + TAG);
        out.put(MAGIC)
                .put((byte) VERSION)
                .put((byte) (message.kind() == PeerMessage.Kind.HEARTBEAT ? 1 : 2))
                .put((byte) ((message.ready() ? READY : 0) | (message.isolated() ? ISOLATED : 0)))
                .put((byte) name.length)
                .putShort((short) message.reports().size())
                .putLong(message.incarnation())
                .putLong(message.sequence())
                .putLong(message.sentAtMillis())
                .put(name);
        for (PeerMessage.Report report : message.reports()) {
            out.putLong(report.peer()).put((byte) (report.opinion().ordinal() + 1));
        }
        out.put(tag(keys.signing(), out.array(), out.position()));
        return out.array();
    }

    public Decoded decode(byte[] data, int length, PeerKeys keys) {
        if (length < HEADER + 1 + TAG || length > data.length) {
            return new Decoded.Rejected(Drop.MALFORMED, length + " bytes");
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (data[i] != MAGIC[i]) {
                return new Decoded.Rejected(Drop.MALFORMED, "not an lbk8s peer message");
            }
        }
        if (!authentic(data, length, keys)) {
            return new Decoded.Rejected(Drop.FORGED, "its tag matches none of the keys");
        }
        try {
            return parse(ByteBuffer.wrap(data, 0, length - TAG));
        } catch (BufferUnderflowException | CharacterCodingException e) {
            return new Decoded.Rejected(Drop.MALFORMED, "cut short or not UTF-8");
        }
    }

    private boolean authentic(byte[] data, int length, PeerKeys keys) {
        int body = length - TAG;
        for (SecretKeySpec key : keys.keys()) {
            byte[] expected = tag(key, data, body);
            if (MessageDigest.isEqual(expected, java.util.Arrays.copyOfRange(data, body, length))) {
                return true;
            }
        }
        return false;
    }

    private static Decoded parse(ByteBuffer in) throws CharacterCodingException {
        in.position(MAGIC.length);
        int version = Byte.toUnsignedInt(in.get());
        if (version != VERSION) {
            return new Decoded.Rejected(
                    Drop.MALFORMED, "version " + version + " (this speaker speaks " + VERSION + ")");
        }
        int kind = in.get();
        int flags = in.get();
        int nameLength = Byte.toUnsignedInt(in.get());
        int reportCount = Short.toUnsignedInt(in.getShort());
        long incarnation = in.getLong();
        long sequence = in.getLong();
        long sentAt = in.getLong();
        if ((kind != 1 && kind != 2)
                || nameLength == 0
                || reportCount > MAX_REPORTS
                || in.remaining() != nameLength + REPORT * reportCount) {
            return new Decoded.Rejected(Drop.MALFORMED, "inconsistent header");
        }
        byte[] name = new byte[nameLength];
        in.get(name);
        String node = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(name))
                .toString();
        List<PeerMessage.Report> reports = new ArrayList<>(reportCount);
        for (int i = 0; i < reportCount; i++) {
            long peer = in.getLong();
            int opinion = in.get();
            if (opinion < 1 || opinion > PeerMessage.Opinion.values().length) {
                return new Decoded.Rejected(Drop.MALFORMED, "opinion " + opinion);
            }
            reports.add(new PeerMessage.Report(peer, PeerMessage.Opinion.values()[opinion - 1]));
        }
        return new Decoded.Valid(new PeerMessage(
                kind == 1 ? PeerMessage.Kind.HEARTBEAT : PeerMessage.Kind.LEAVING,
                node,
                incarnation,
                sequence,
                sentAt,
                (flags & READY) != 0,
                (flags & ISOLATED) != 0,
                reports));
    }

    private byte[] tag(SecretKeySpec key, byte[] data, int length) {
        try {
            mac.init(key);
        } catch (InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 refused a key", e);
        }
        mac.update(data, 0, length);
        return mac.doFinal();
    }
}
