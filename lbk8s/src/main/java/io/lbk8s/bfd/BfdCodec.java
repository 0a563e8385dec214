package io.lbk8s.bfd;

import java.nio.ByteBuffer;

/** RFC 5880 control packets to and from bytes, with the checks of 6.8.6 that need no session. */
public final class BfdCodec {

    /** What {@link #decode} made of a datagram. */
    public sealed interface Decoded {}

    public record Valid(BfdPacket packet) implements Decoded {}

    /** @param reason one sentence, for a debug log and for tests */
    public record Invalid(String reason) implements Decoded {}

    private static final int POLL = 0x20;
    private static final int FINAL = 0x10;
    private static final int CONTROL_PLANE_INDEPENDENT = 0x08;
    private static final int AUTHENTICATION = 0x04;
    private static final int DEMAND = 0x02;
    private static final int MULTIPOINT = 0x01;

    private BfdCodec() {}

    public static byte[] encode(BfdPacket packet) {
        return ByteBuffer.allocate(BfdPacket.LENGTH) // network order, ByteBuffer's default
                .put((byte) (BfdPacket.VERSION << 5 | packet.diagnostic().code()))
                .put((byte) (packet.state().ordinal() << 6
                        | (packet.poll() ? POLL : 0)
                        | (packet.fin() ? FINAL : 0)
                        | (packet.controlPlaneIndependent() ? CONTROL_PLANE_INDEPENDENT : 0)
                        | (packet.demand() ? DEMAND : 0)))
                .put((byte) packet.detectMultiplier())
                .put((byte) BfdPacket.LENGTH)
                .putInt(packet.myDiscriminator())
                .putInt(packet.yourDiscriminator())
                .putInt((int) packet.desiredMinTxMicros())
                .putInt((int) packet.requiredMinRxMicros())
                .putInt((int) packet.requiredMinEchoRxMicros())
                .array();
    }

    /** The first {@code length} bytes of {@code bytes} as a control packet, or why it must be discarded. */
    public static Decoded decode(byte[] bytes, int length) {
        if (length < BfdPacket.LENGTH) {
            return new Invalid("a BFD control packet has at least 24 bytes, this one " + length);
        }
        int version = (bytes[0] & 0xff) >>> 5;
        if (version != BfdPacket.VERSION) {
            return new Invalid("BFD version " + version + ", not 1");
        }
        int flags = bytes[1] & 0xff;
        if ((flags & AUTHENTICATION) != 0) {
            return new Invalid("the peer authenticates its BFD packets (A bit), which lbk8s does not support");
        }
        int declared = bytes[3] & 0xff;
        if (declared < BfdPacket.LENGTH || declared > length) {
            return new Invalid("the Length field says " + declared + " bytes, the datagram has " + length);
        }
        ByteBuffer fields = ByteBuffer.wrap(bytes, 0, length);
        int detectMultiplier = bytes[2] & 0xff;
        if (detectMultiplier == 0) {
            return new Invalid("Detect Mult is zero");
        }
        if ((flags & MULTIPOINT) != 0) {
            return new Invalid("the Multipoint bit is set");
        }
        int myDiscriminator = fields.getInt(4);
        if (myDiscriminator == 0) {
            return new Invalid("My Discriminator is zero");
        }
        BfdState state = BfdState.values()[flags >>> 6]; // the enum is in the wire order
        int yourDiscriminator = fields.getInt(8);
        if (yourDiscriminator == 0 && state != BfdState.DOWN && state != BfdState.ADMIN_DOWN) {
            return new Invalid("Your Discriminator is zero in state " + state);
        }
        if ((flags & POLL) != 0 && (flags & FINAL) != 0) {
            return new Invalid("both Poll and Final are set");
        }
        return new Valid(new BfdPacket(
                Diagnostic.of(bytes[0] & 0x1f),
                state,
                (flags & POLL) != 0,
                (flags & FINAL) != 0,
                (flags & CONTROL_PLANE_INDEPENDENT) != 0,
                (flags & DEMAND) != 0,
                detectMultiplier,
                myDiscriminator,
                yourDiscriminator,
                Integer.toUnsignedLong(fields.getInt(12)),
                Integer.toUnsignedLong(fields.getInt(16)),
                Integer.toUnsignedLong(fields.getInt(20))));
    }
}
