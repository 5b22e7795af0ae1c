/**
 * A classic-BPF interpreter for seccomp programs, written apart from the assembler so the tests check the
 * bytes bwrap would load, not the builder's intent. It accepts only what the kernel's seccomp checker accepts
 * of the instructions our filters use, and refuses anything else (an unknown opcode, a load outside
 * `struct seccomp_data`, a jump past the end, a program that does not return).
 */

/** `struct seccomp_data`: what the kernel hands the filter for one system call. */
export interface SeccompData {
  nr: number;
  arch: number;
  /** Up to six arguments, each a 64-bit value. */
  args?: readonly bigint[];
}

/** A verdict, named. */
export type Verdict = { action: "allow" } | { action: "kill" } | { action: "errno"; errno: number };

interface Insn {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** The instructions in the bytes of `struct sock_filter[]` (little-endian). */
export function decodeBpf(bytes: Uint8Array): Insn[] {
  if (bytes.length === 0 || bytes.length % 8 !== 0)
    throw new Error(`a BPF program is a non-empty multiple of 8 bytes, not ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Insn[] = [];
  for (let at = 0; at < bytes.length; at += 8) {
    out.push({
      code: view.getUint16(at, true),
      jt: view.getUint8(at + 2),
      jf: view.getUint8(at + 3),
      k: view.getUint32(at + 4, true),
    });
  }
  return out;
}

/** The 64 bytes of `struct seccomp_data`, little-endian. */
function dataBytes(data: SeccompData): DataView {
  const view = new DataView(new ArrayBuffer(64));
  view.setInt32(0, data.nr | 0, true);
  view.setUint32(4, data.arch >>> 0, true);
  (data.args ?? []).forEach((arg, i) => {
    view.setBigUint64(16 + 8 * i, BigInt.asUintN(64, arg), true);
  });
  return view;
}

/** Runs the program on one system call and names the verdict. */
export function runBpf(bytes: Uint8Array, data: SeccompData): Verdict {
  const program = decodeBpf(bytes);
  const input = dataBytes(data);
  let a = 0;
  let pc = 0;
  for (let steps = 0; steps <= program.length; steps++) {
    const insn = program[pc];
    if (!insn) throw new Error(`BPF ran past the end at ${pc}`);
    const next = (offset: number) => {
      pc = pc + 1 + offset;
    };
    switch (insn.code) {
      case 0x20: // ld [k]
        if (insn.k % 4 !== 0 || insn.k > 60) throw new Error(`BPF load at a bad offset ${insn.k}`);
        a = input.getUint32(insn.k, true);
        next(0);
        break;
      case 0x54: // and #k
        a = (a & insn.k) >>> 0;
        next(0);
        break;
      case 0x05: // ja
        next(insn.k);
        break;
      case 0x15: // jeq
        next(a === insn.k ? insn.jt : insn.jf);
        break;
      case 0x25: // jgt
        next(a > insn.k ? insn.jt : insn.jf);
        break;
      case 0x35: // jge
        next(a >= insn.k ? insn.jt : insn.jf);
        break;
      case 0x45: // jset
        next((a & insn.k) !== 0 ? insn.jt : insn.jf);
        break;
      case 0x06: // ret #k
        return verdict(insn.k);
      default:
        throw new Error(
          `BPF opcode 0x${insn.code.toString(16)} at ${pc} is not one a seccomp filter here uses`,
        );
    }
  }
  throw new Error("BPF program did not return");
}

function verdict(k: number): Verdict {
  const action = k & 0xffff_0000;
  if (action === 0x7fff_0000) return { action: "allow" };
  if (action === 0x0005_0000) return { action: "errno", errno: k & 0xffff };
  if (k >>> 0 === 0x8000_0000) return { action: "kill" };
  throw new Error(`BPF returned 0x${k.toString(16)}, a verdict these tests do not expect`);
}

/** The program as text, one instruction a line (for failure messages and reading). */
export function disassembleBpf(bytes: Uint8Array): string {
  const names: Record<number, string> = {
    32: "ld",
    84: "and",
    5: "ja",
    21: "jeq",
    37: "jgt",
    53: "jge",
    69: "jset",
    6: "ret",
  };
  return decodeBpf(bytes)
    .map((insn, pc) => {
      const name = names[insn.code] ?? `op${insn.code.toString(16)}`;
      const k = `0x${insn.k.toString(16)}`;
      const jumps =
        (insn.code & 0x07) === 0x05 && insn.code !== 0x05
          ? ` → ${pc + 1 + insn.jt} / ${pc + 1 + insn.jf}`
          : "";
      return `${String(pc).padStart(3)}: ${name} ${k}${jumps}`;
    })
    .join("\n");
}
