/**
 * @module sandbox/seccomp/bpf
 * A small assembler for classic BPF as seccomp runs it: the handful of instructions a filter needs, jumps to
 * named labels, and the encoding bwrap reads (`struct sock_filter`: u16 code, u8 jt, u8 jf, u32 k, in the
 * host's byte order). Classic BPF jumps only forward and a conditional jump only 255 instructions far; a label
 * behind the jump or too far away is a build error, never a wrong program.
 */

/** Opcodes used (classic BPF: class | size | mode, or class | operation | source). */
export const OP = {
  /** A = 32-bit word at offset k of `struct seccomp_data`. */
  LD_W_ABS: 0x20,
  /** A &= k. */
  ALU_AND_K: 0x54,
  /** pc += k (unconditional). */
  JA: 0x05,
  JEQ_K: 0x15,
  JGT_K: 0x25,
  JGE_K: 0x35,
  /** Jump if A & k is not zero. */
  JSET_K: 0x45,
  /** Return k: the filter's verdict. */
  RET_K: 0x06,
} as const;

/** Seccomp verdicts (`SECCOMP_RET_*`). */
export const RET = {
  KILL_PROCESS: 0x8000_0000,
  ALLOW: 0x7fff_0000,
  /** The call fails with the errno in the low 16 bits. */
  errno: (errno: number) => (0x0005_0000 | (errno & 0xffff)) >>> 0,
} as const;

/** `struct seccomp_data` offsets: nr (int), arch (u32), instruction_pointer (u64), args[6] (u64). */
export const DATA = {
  nr: 0,
  arch: 4,
  /** The low 32 bits of argument `i` on a little-endian machine. */
  argLow: (i: number) => 16 + 8 * i,
} as const;

/** One instruction. */
export interface Insn {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

type Jump = "eq" | "gt" | "ge" | "set";
const JUMP_OPS: Record<Jump, number> = { eq: OP.JEQ_K, gt: OP.JGT_K, ge: OP.JGE_K, set: OP.JSET_K };
/** `null` as a jump target: the next instruction. */
type Target = string | null;
type Item = { insn: Insn; jt?: Target; jf?: Target } | { label: string };

/** Builds a program instruction by instruction; `assemble()` resolves the labels. */
export class Assembler {
  private readonly items: Item[] = [];

  /** A = the 32-bit word at `offset` of the seccomp data. */
  load(offset: number): this {
    return this.push({ code: OP.LD_W_ABS, jt: 0, jf: 0, k: offset });
  }

  /** A &= mask. */
  and(mask: number): this {
    return this.push({ code: OP.ALU_AND_K, jt: 0, jf: 0, k: mask });
  }

  /** If `A op k` go to `whenTrue`, else to `whenFalse` (`null`: the next instruction). */
  jump(op: Jump, k: number, whenTrue: Target, whenFalse: Target): this {
    this.items.push({ insn: { code: JUMP_OPS[op], jt: 0, jf: 0, k }, jt: whenTrue, jf: whenFalse });
    return this;
  }

  /** Always go to `target`. */
  goto(target: string): this {
    this.items.push({ insn: { code: OP.JA, jt: 0, jf: 0, k: 0 }, jt: target });
    return this;
  }

  /** End with verdict `action`. */
  ret(action: number): this {
    return this.push({ code: OP.RET_K, jt: 0, jf: 0, k: action });
  }

  /** Names the position of the next instruction. */
  label(name: string): this {
    if (this.items.some((item) => "label" in item && item.label === name))
      throw new Error(`BPF label "${name}" defined twice`);
    this.items.push({ label: name });
    return this;
  }

  /** The instructions, with every jump resolved to a forward offset. */
  assemble(): Insn[] {
    const at = new Map<string, number>();
    let count = 0;
    for (const item of this.items) {
      if ("label" in item) at.set(item.label, count);
      else count++;
    }
    const out: Insn[] = [];
    for (const item of this.items) {
      if ("label" in item) continue;
      const pc = out.length;
      const offset = (target: Target | undefined, limit: number): number => {
        if (target === null || target === undefined) return 0;
        const to = at.get(target);
        if (to === undefined) throw new Error(`BPF label "${target}" is never defined`);
        const distance = to - (pc + 1);
        if (distance < 0) throw new Error(`BPF jump to "${target}" goes backwards (classic BPF cannot)`);
        if (distance > limit) throw new Error(`BPF jump to "${target}" is ${distance} instructions far`);
        return distance;
      };
      const { insn } = item;
      if (insn.code === OP.JA) out.push({ ...insn, jt: 0, k: offset(item.jt, 0xffff_ffff) });
      else if ("jt" in item) out.push({ ...insn, jt: offset(item.jt, 255), jf: offset(item.jf, 255) });
      else out.push(insn);
    }
    if (out.length === 0 || out.length > 4096)
      throw new Error(`a BPF program has 1–4096 instructions, not ${out.length}`);
    if (out[out.length - 1]!.code !== OP.RET_K) throw new Error("a BPF program must end with a return");
    return out;
  }

  private push(insn: Insn): this {
    this.items.push({ insn });
    return this;
  }
}

/** The bytes of `struct sock_filter[]` as the kernel reads them, little-endian (the architectures supported). */
export function encode(program: readonly Insn[]): Uint8Array {
  const bytes = new Uint8Array(program.length * 8);
  const view = new DataView(bytes.buffer);
  program.forEach((insn, i) => {
    view.setUint16(i * 8, insn.code, true);
    view.setUint8(i * 8 + 2, insn.jt);
    view.setUint8(i * 8 + 3, insn.jf);
    view.setUint32(i * 8 + 4, insn.k >>> 0, true);
  });
  return bytes;
}
