package io.lbk8s.net.frame;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class Icmpv6ChecksumTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                Fixtures.NS_NDISC6,
                Fixtures.NS_DAD,
                Fixtures.NA_KERNEL,
                Fixtures.NA_UNSOLICITED_KERNEL,
                Fixtures.RS_KERNEL
            })
    void checksumsOfCapturedFramesVerify(String fixture) {
        byte[] frame = Fixtures.bytes(fixture);
        MemorySegment segment = MemorySegment.ofArray(frame);
        int stored = ((frame[56] & 0xff) << 8) | (frame[57] & 0xff);
        assertThat(Icmpv6Checksum.compute(segment, 14)).isEqualTo(stored);
        assertThat(Icmpv6Checksum.verify(segment, 14)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(ints = {22, 37, 38, 53, 54, 62, 77, 85})
    void anyFlippedBitInPseudoHeaderOrMessageIsCaught(int offset) {
        byte[] frame = Fixtures.bytes(Fixtures.NA_KERNEL);
        frame[offset] ^= 0x10;
        assertThat(Icmpv6Checksum.verify(MemorySegment.ofArray(frame), 14)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(ints = {15, 21})
    void fieldsOutsideThePseudoHeaderDoNotCount(int offset) {
        byte[] frame = Fixtures.bytes(Fixtures.NA_KERNEL); // traffic class and hop limit are not summed
        frame[offset] ^= 0x10;
        assertThat(Icmpv6Checksum.verify(MemorySegment.ofArray(frame), 14)).isTrue();
    }

    @org.junit.jupiter.api.Test
    void fillWritesWhatComputeSays() {
        byte[] frame = Fixtures.bytes(Fixtures.NS_NDISC6);
        frame[56] = 0;
        frame[57] = 0;
        Icmpv6Checksum.fill(MemorySegment.ofArray(frame), 14);
        assertThat(frame).isEqualTo(Fixtures.bytes(Fixtures.NS_NDISC6));
    }
}
