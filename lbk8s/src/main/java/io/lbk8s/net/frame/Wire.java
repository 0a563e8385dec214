package io.lbk8s.net.frame;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Big-endian (network order) field access on frames, unaligned because Ethernet headers are 14 bytes long. */
public final class Wire {

    public static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    public static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    static final int ETHERNET_HEADER = 14;
    public static final int ETHERTYPE_OFFSET = 12;

    private Wire() {}

    static int u8(MemorySegment s, long offset) {
        return s.get(JAVA_BYTE, offset) & 0xff;
    }

    /** Masked, because Java shorts are signed and 0x86DD would otherwise read as negative. */
    public static int u16(MemorySegment s, long offset) {
        return s.get(U16, offset) & 0xffff;
    }

    static int i32(MemorySegment s, long offset) {
        return s.get(U32, offset);
    }

    static long u64(MemorySegment s, long offset) {
        return s.get(U64, offset);
    }

    public static long mac(MemorySegment s, long offset) {
        return ((long) u16(s, offset) << 32) | (s.get(U32, offset + 2) & 0xffff_ffffL);
    }

    static void putU8(MemorySegment s, long offset, int value) {
        s.set(JAVA_BYTE, offset, (byte) value);
    }

    static void putU16(MemorySegment s, long offset, int value) {
        s.set(U16, offset, (short) value);
    }

    static void putU32(MemorySegment s, long offset, int value) {
        s.set(U32, offset, value);
    }

    static void putU64(MemorySegment s, long offset, long value) {
        s.set(U64, offset, value);
    }

    public static void putMac(MemorySegment s, long offset, long mac) {
        putU16(s, offset, (int) (mac >>> 32));
        putU32(s, offset + 2, (int) mac);
    }

    /** The usable length: what the caller says, but never more than the segment holds. */
    static int usable(MemorySegment frame, int length) {
        return (int) Math.min(Math.max(length, 0), frame.byteSize());
    }
}
