package io.lbk8s.net.bpf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes eBPF instructions ({@code struct bpf_insn}: opcode, dst and src registers in one byte, 16-bit offset,
 * 32-bit immediate, in host order) with named jump targets, for the one small program lbk8s loads. Only the opcodes
 * that program uses are named. Not thread-safe; one program per instance.
 */
final class EbpfAssembler {

    static final int R0 = 0, R1 = 1, R2 = 2, R3 = 3, R6 = 6, R7 = 7, R8 = 8, R9 = 9, R10 = 10;

    /** Memory access widths (BPF_W, BPF_H, BPF_B, BPF_DW). */
    enum Width {
        WORD(0x00),
        HALF(0x08),
        BYTE(0x10),
        DOUBLE(0x18);

        final int bits;

        Width(int bits) {
            this.bits = bits;
        }
    }

    /**
     * Conditional jumps, compared on the whole 64-bit register or (the {@code _32} ones) on its low 32 bits. GT and
     * GE compare unsigned.
     */
    enum Condition {
        EQ(0x15),
        NE(0x55),
        GT(0x25),
        GE(0x35),
        EQ_32(0x16),
        NE_32(0x56);

        final int immediateCode;

        Condition(int immediateCode) {
            this.immediateCode = immediateCode;
        }

        int registerCode() {
            return immediateCode | 0x08; // BPF_X: compare with src instead of imm
        }
    }

    private static final int LDX_MEM = 0x61; // | width
    private static final int ST_MEM = 0x62;
    private static final int STX_MEM = 0x63;
    private static final int ATOMIC_ADD_DOUBLE = 0xdb; // BPF_STX | BPF_ATOMIC | BPF_DW, imm BPF_ADD
    private static final int MOV64_IMM = 0xb7;
    private static final int MOV64_REG = 0xbf;
    private static final int ADD64_IMM = 0x07;
    private static final int LD_IMM64 = 0x18;
    private static final int PSEUDO_MAP_FD = 1;
    private static final int JA = 0x05;
    private static final int CALL = 0x85;
    private static final int EXIT = 0x95;

    private record Insn(int code, int dst, int src, int offset, int immediate, String target) {}

    private final List<Insn> program = new ArrayList<>();
    private final Map<String, Integer> labels = new HashMap<>();

    EbpfAssembler load(Width width, int dst, int base, int offset) {
        return add(LDX_MEM | width.bits, dst, base, offset, 0);
    }

    EbpfAssembler store(Width width, int base, int offset, int src) {
        return add(STX_MEM | width.bits, base, src, offset, 0);
    }

    EbpfAssembler storeImmediate(Width width, int base, int offset, int value) {
        return add(ST_MEM | width.bits, base, 0, offset, value);
    }

    /** Copies the 6-byte MAC address at {@code base + from} to {@code base + to}, a word then a half through {@code scratch}. */
    EbpfAssembler copyMac(int base, int from, int to, int scratch) {
        return load(Width.WORD, scratch, base, from)
                .store(Width.WORD, base, to, scratch)
                .load(Width.HALF, scratch, base, from + 4)
                .store(Width.HALF, base, to + 4, scratch);
    }

    /** {@code lock *(u64 *)(base + offset) += src}. */
    EbpfAssembler atomicAdd(int base, int offset, int src) {
        return add(ATOMIC_ADD_DOUBLE, base, src, offset, 0);
    }

    EbpfAssembler move(int dst, int value) {
        return add(MOV64_IMM, dst, 0, 0, value);
    }

    EbpfAssembler moveRegister(int dst, int src) {
        return add(MOV64_REG, dst, src, 0, 0);
    }

    EbpfAssembler addImmediate(int dst, int value) {
        return add(ADD64_IMM, dst, 0, 0, value);
    }

    /** Loads a map's address into {@code dst} (two instruction slots; the kernel swaps the descriptor for it). */
    EbpfAssembler loadMap(int dst, int mapFd) {
        add(LD_IMM64, dst, PSEUDO_MAP_FD, 0, mapFd);
        return add(0, 0, 0, 0, 0);
    }

    EbpfAssembler jumpIf(Condition condition, int register, int value, String target) {
        program.add(new Insn(condition.immediateCode, register, 0, 0, value, target));
        return this;
    }

    EbpfAssembler jumpIfRegister(Condition condition, int register, int other, String target) {
        program.add(new Insn(condition.registerCode(), register, other, 0, 0, target));
        return this;
    }

    EbpfAssembler jump(String target) {
        program.add(new Insn(JA, 0, 0, 0, 0, target));
        return this;
    }

    EbpfAssembler call(int helper) {
        return add(CALL, 0, 0, 0, helper);
    }

    EbpfAssembler exit() {
        return add(EXIT, 0, 0, 0, 0);
    }

    /** Names the next instruction. */
    EbpfAssembler label(String name) {
        if (labels.putIfAbsent(name, program.size()) != null) {
            throw new IllegalArgumentException("label " + name + " defined twice");
        }
        return this;
    }

    int size() {
        return program.size();
    }

    /** The program as the kernel takes it, jumps resolved (eBPF offsets count from the next instruction). */
    byte[] assemble() {
        ByteBuffer out = ByteBuffer.allocate(8 * program.size()).order(ByteOrder.nativeOrder());
        for (int at = 0; at < program.size(); at++) {
            Insn insn = program.get(at);
            int offset = insn.offset();
            if (insn.target() != null) {
                Integer to = labels.get(insn.target());
                if (to == null) {
                    throw new IllegalArgumentException("jump to undefined label " + insn.target());
                }
                offset = to - at - 1;
                if (offset < 0) {
                    throw new IllegalArgumentException(
                            "backward jump to " + insn.target() + ": the verifier refuses loops");
                }
            }
            out.put((byte) insn.code())
                    .put((byte) (insn.src() << 4 | insn.dst()))
                    .putShort((short) offset)
                    .putInt(insn.immediate());
        }
        return out.array();
    }

    private EbpfAssembler add(int code, int dst, int src, int offset, int immediate) {
        if (dst < 0 || dst > 10 || src < 0 || src > 10 || offset != (short) offset) {
            throw new IllegalArgumentException("bad operands: dst " + dst + ", src " + src + ", offset " + offset);
        }
        program.add(new Insn(code, dst, src, offset, immediate, null));
        return this;
    }
}
