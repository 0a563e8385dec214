package io.lbk8s.net.bpf;

import static io.lbk8s.net.bpf.EbpfAssembler.R0;
import static io.lbk8s.net.bpf.EbpfAssembler.R1;
import static io.lbk8s.net.bpf.EbpfAssembler.R10;
import static io.lbk8s.net.bpf.EbpfAssembler.R2;
import static io.lbk8s.net.bpf.EbpfAssembler.R6;
import static io.lbk8s.net.bpf.EbpfAssembler.R7;
import static io.lbk8s.net.bpf.EbpfAssembler.R9;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lbk8s.net.bpf.EbpfAssembler.Condition;
import io.lbk8s.net.bpf.EbpfAssembler.Width;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Encodings checked against the kernel's instruction set document (opcode, dst | src << 4, offset, immediate; little-endian host). */
class EbpfAssemblerTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "r7 = *(u32 *)(r1 + 0)        | 61 17 00 00 00 00 00 00",
                "r2 = *(u16 *)(r7 + 12)       | 69 72 0c 00 00 00 00 00",
                "*(u32 *)(r10 - 4) = r2       | 63 2a fc ff 00 00 00 00",
                "*(u16 *)(r7 + 20) = 0x0200   | 6a 07 14 00 00 02 00 00",
                "lock *(u64 *)(r0 + 0) += r1  | db 10 00 00 00 00 00 00",
                "r0 = 3                       | b7 00 00 00 03 00 00 00",
                "r2 = r10                     | bf a2 00 00 00 00 00 00",
                "r2 += -4                     | 07 02 00 00 fc ff ff ff",
                "call 1                       | 85 00 00 00 01 00 00 00",
                "exit                         | 95 00 00 00 00 00 00 00",
                "r1 = map fd 5 (two slots)    | 18 11 00 00 05 00 00 00 00 00 00 00 00 00 00 00",
                "r1 = *(u64 *)(r0 + 0)        | 79 01 00 00 00 00 00 00",
                "*(u32 *)(r10 - 8) = 0        | 62 0a f8 ff 00 00 00 00",
                "r6 = r0                      | bf 06 00 00 00 00 00 00",
                "r9 = r0                      | bf 09 00 00 00 00 00 00",
                "lock *(u64 *)(r6 + 0) += r1  | db 16 00 00 00 00 00 00",
                "call 5                       | 85 00 00 00 05 00 00 00",
            })
    void encodesEachInstruction(String what, String hex) {
        org.junit.jupiter.api.Assumptions.assumeTrue(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN);
        Consumer<EbpfAssembler> write = switch (what.strip()) {
            case "r7 = *(u32 *)(r1 + 0)" -> a -> a.load(Width.WORD, R7, R1, 0);
            case "r2 = *(u16 *)(r7 + 12)" -> a -> a.load(Width.HALF, R2, R7, 12);
            case "*(u32 *)(r10 - 4) = r2" -> a -> a.store(Width.WORD, R10, -4, R2);
            case "*(u16 *)(r7 + 20) = 0x0200" -> a -> a.storeImmediate(Width.HALF, R7, 20, 0x0200);
            case "lock *(u64 *)(r0 + 0) += r1" -> a -> a.atomicAdd(R0, 0, R1);
            case "r0 = 3" -> a -> a.move(R0, 3);
            case "r2 = r10" -> a -> a.moveRegister(R2, R10);
            case "r2 += -4" -> a -> a.addImmediate(R2, -4);
            case "call 1" -> a -> a.call(1);
            case "exit" -> EbpfAssembler::exit;
            case "r1 = map fd 5 (two slots)" -> a -> a.loadMap(R1, 5);
            case "r1 = *(u64 *)(r0 + 0)" -> a -> a.load(Width.DOUBLE, R1, R0, 0);
            case "*(u32 *)(r10 - 8) = 0" -> a -> a.storeImmediate(Width.WORD, R10, -8, 0);
            case "r6 = r0" -> a -> a.moveRegister(R6, R0);
            case "r9 = r0" -> a -> a.moveRegister(R9, R0);
            case "lock *(u64 *)(r6 + 0) += r1" -> a -> a.atomicAdd(R6, 0, R1);
            case "call 5" -> a -> a.call(5);
            default -> throw new IllegalArgumentException(what);
        };
        EbpfAssembler asm = new EbpfAssembler();
        write.accept(asm);
        assertThat(HexFormat.ofDelimiter(" ").formatHex(asm.assemble())).isEqualTo(hex.strip());
    }

    @Test
    void jumpsCountFromTheNextInstructionAndUseTheRightOpcode() {
        org.junit.jupiter.api.Assumptions.assumeTrue(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN);
        byte[] code = new EbpfAssembler()
                .jumpIf(Condition.NE, R2, 0x0608, "out") // 0: 55, offset 2
                .jumpIf(Condition.NE_32, R2, -1, "out") // 1: 56, offset 1
                .jumpIfRegister(Condition.GT, R2, R7, "out") // 2: 2d, offset 0
                .label("out")
                .move(R0, 2)
                .exit()
                .assemble();
        assertThat(HexFormat.ofDelimiter(" ").formatHex(code, 0, 24))
                .isEqualTo("55 02 02 00 08 06 00 00 56 02 01 00 ff ff ff ff 2d 72 00 00 00 00 00 00");
    }

    /** The fence check: "if r9 >= r1 (unsigned, 64 bits) goto pass" is BPF_JMP | BPF_JGE | BPF_X = 0x3d. */
    @Test
    void unsignedGreaterOrEqualComparesRegistersOrAnImmediate() {
        org.junit.jupiter.api.Assumptions.assumeTrue(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN);
        byte[] code = new EbpfAssembler()
                .jumpIfRegister(Condition.GE, R9, R1, "pass") // 0: 3d, dst 9, src 1, offset 1
                .jumpIf(Condition.GE, R9, 7, "pass") // 1: 35, offset 0
                .label("pass")
                .move(R0, 2)
                .exit()
                .assemble();
        assertThat(HexFormat.ofDelimiter(" ").formatHex(code, 0, 16))
                .isEqualTo("3d 19 01 00 00 00 00 00 35 09 00 00 07 00 00 00");
    }

    @Test
    void refusesWhatTheVerifierWouldRefuseOrWhatCannotBeEncoded() {
        assertThatThrownBy(() -> new EbpfAssembler().jump("nowhere").assemble())
                .hasMessage("jump to undefined label nowhere");
        assertThatThrownBy(() ->
                        new EbpfAssembler().label("top").move(R0, 1).jump("top").assemble())
                .hasMessageContaining("backward jump to top");
        assertThatThrownBy(() -> new EbpfAssembler().label("a").label("a")).hasMessage("label a defined twice");
        assertThatThrownBy(() -> new EbpfAssembler().load(Width.WORD, 11, R1, 0))
                .hasMessageContaining("dst 11");
        assertThatThrownBy(() -> new EbpfAssembler().load(Width.WORD, R2, R1, 40_000))
                .hasMessageContaining("offset 40000");
    }
}
