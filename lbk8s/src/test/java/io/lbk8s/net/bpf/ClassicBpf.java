package io.lbk8s.net.bpf;

/**
 * A tiny classic-BPF interpreter covering the instructions BpfProgram emits, with the kernel's rule that a load
 * beyond the packet ends the program with 0 (drop). Test code only: it checks our filters against real frames.
 */
final class ClassicBpf {

    private ClassicBpf() {}

    /** The number of bytes the filter keeps (0 = dropped). */
    static int run(BpfProgram program, byte[] packet) {
        int accumulator = 0;
        int pc = 0;
        var code = program.instructions();
        for (int steps = 0; steps < 4096; steps++) {
            if (pc >= code.size()) {
                throw new IllegalStateException("program runs off its end at " + pc);
            }
            BpfProgram.Instruction insn = code.get(pc);
            switch (insn.code()) {
                case BpfProgram.LD_W_ABS -> {
                    if (insn.k() + 4 > packet.length) return 0;
                    accumulator = ((packet[insn.k()] & 0xff) << 24)
                            | ((packet[insn.k() + 1] & 0xff) << 16)
                            | ((packet[insn.k() + 2] & 0xff) << 8)
                            | (packet[insn.k() + 3] & 0xff);
                }
                case BpfProgram.LD_H_ABS -> {
                    if (insn.k() + 2 > packet.length) return 0;
                    accumulator = ((packet[insn.k()] & 0xff) << 8) | (packet[insn.k() + 1] & 0xff);
                }
                case BpfProgram.LD_B_ABS -> {
                    if (insn.k() + 1 > packet.length) return 0;
                    accumulator = packet[insn.k()] & 0xff;
                }
                case BpfProgram.JMP_JA -> pc += insn.k();
                case BpfProgram.JMP_JEQ_K -> pc += accumulator == insn.k() ? insn.jumpTrue() : insn.jumpFalse();
                case BpfProgram.RET_K -> {
                    return Math.min(insn.k(), packet.length);
                }
                default ->
                    throw new IllegalStateException(
                            "opcode 0x" + Integer.toHexString(insn.code()) + " not interpreted");
            }
            pc++;
        }
        throw new IllegalStateException("no return within 4096 steps");
    }
}
