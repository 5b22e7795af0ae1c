/**
 * The seccomp filter as bytes, run through a BPF interpreter written apart from the assembler: every row of
 * testdata/verdicts.json on every architecture it names, and, exhaustively, every syscall of each table against
 * a plain reading of rules.json. The real kernel's verdicts are in live.test.ts.
 */
import { describe, expect, it } from "vitest";
import { runBpf, type Verdict } from "../../test-support/bpf-interpreter.js";
import { ABIS, type Abi } from "./abi.js";
import { Assembler, encode } from "./bpf.js";
import {
  buildProgram,
  SECCOMP_RULES,
  type SeccompRule,
  SeccompUnsupportedError,
  seccompProgram,
} from "./program.js";
import VERDICTS from "./testdata/verdicts.json" with { type: "json" };

interface Row {
  note: string;
  arches?: string[];
  syscall?: string;
  nr?: number;
  audit?: string;
  args?: (number | string)[];
  want: string;
}

const rows = VERDICTS.cases as Row[];
const bytesFor = (abi: Abi) => encode(buildProgram(abi));

function argValue(abi: Abi, arg: number | string): bigint {
  if (typeof arg === "number") return BigInt(arg);
  if (arg.startsWith("0x")) return BigInt(arg);
  const value = abi.constants[arg];
  if (value === undefined) throw new Error(`test row uses unknown constant ${arg}`);
  return BigInt(value);
}

function show(v: Verdict, abi: Abi): string {
  if (v.action !== "errno") return v.action;
  const name = Object.entries(abi.constants).find(([k, n]) => k.startsWith("E") && n === v.errno)?.[0];
  return name ?? `errno ${v.errno}`;
}

describe.each([...ABIS.values()].map((abi) => [abi.arch, abi] as const))("seccomp filter on %s", (_, abi) => {
  const bytes = bytesFor(abi);
  const mine = rows.filter((row) => !row.arches || row.arches.includes(abi.arch));

  it.each(mine.map((row) => [row.note, row] as const))("%s", (_note, row) => {
    const nr = row.syscall !== undefined ? abi.syscalls[row.syscall] : row.nr;
    expect(nr, `${row.syscall} is missing from ${abi.arch}'s table`).toBeDefined();
    const verdict = runBpf(bytes, {
      nr: nr!,
      arch: row.audit !== undefined ? Number(row.audit) : abi.audit,
      args: (row.args ?? []).map((a) => argValue(abi, a)),
    });
    expect(show(verdict, abi)).toBe(row.want);
  });

  it("gives every syscall in the table the verdict rules.json reads as", () => {
    const probes = argProbes(abi);
    const wrong: string[] = [];
    for (const [name, nr] of Object.entries(abi.syscalls)) {
      for (const args of probes) {
        const got = show(runBpf(bytes, { nr, arch: abi.audit, args }), abi);
        const want = readRules(abi, SECCOMP_RULES, name, args);
        if (got !== want) wrong.push(`${name}(${args.join(", ")}): ${got}, rules say ${want}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("refuses every syscall it names on this architecture: none is missing from the table", () => {
    const named = SECCOMP_RULES.flatMap((rule) => rule.syscalls);
    expect(named.filter((name) => abi.syscalls[name] === undefined)).toEqual([]);
  });
});

describe("seccompProgram", () => {
  it("builds this machine's filter once and hands out copies", () => {
    const first = seccompProgram();
    first[0] = 0xff;
    const second = seccompProgram();
    expect(second[0]).not.toBe(0xff);
    expect(second.length % 8).toBe(0);
    expect(second).toEqual(seccompProgram());
  });

  it("fails closed, naming the architecture, where there is no table", () => {
    expect(() => seccompProgram("riscv64")).toThrow(SeccompUnsupportedError);
    expect(() => seccompProgram("riscv64")).toThrow(
      /no seccomp syscall table for riscv64 \(LE; tables: little-endian x86_64 and aarch64\)/,
    );
  });

  it("refuses rules it cannot turn into a filter", () => {
    const abi = ABIS.get("x86_64")!;
    const rule = (r: Partial<SeccompRule>): SeccompRule[] => [
      { syscalls: ["ioctl"], errno: "EPERM", why: "", ...r },
    ];
    expect(() => buildProgram(abi, rule({ syscalls: ["no_such_call"] }))).toThrow(/name no_such_call/);
    expect(() => buildProgram(abi, rule({ errno: "ENOPE" }))).toThrow(/use ENOPE/);
    expect(() => buildProgram(abi, rule({ when: [{ arg: 6, in: ["TIOCSTI"] }] }))).toThrow(/bad condition/);
    expect(() =>
      buildProgram(abi, rule({ when: [{ arg: 1, in: ["TIOCSTI"], notIn: ["TIOCSTI"] }] })),
    ).toThrow(/bad condition/);
    expect(() => buildProgram(abi, [...rule({}), ...rule({ when: [{ arg: 1, in: ["TIOCSTI"] }] })])).toThrow(
      /could never apply/,
    );
  });
});

describe("Assembler", () => {
  it("resolves forward labels and refuses backward, far and missing ones", () => {
    expect(new Assembler().jump("eq", 1, "yes", null).ret(0).label("yes").ret(1).assemble()[0]).toMatchObject(
      {
        jt: 1,
        jf: 0,
      },
    );
    expect(() => new Assembler().label("up").ret(0).jump("eq", 1, "up", null).ret(0).assemble()).toThrow(
      /backwards/,
    );
    const far = new Assembler().jump("eq", 1, "end", null);
    for (let i = 0; i < 256; i++) far.ret(0);
    expect(() => far.label("end").ret(1).assemble()).toThrow(/256 instructions far/);
    expect(() => new Assembler().jump("eq", 1, "nowhere", null).ret(0).assemble()).toThrow(/never defined/);
    expect(() => new Assembler().load(0).assemble()).toThrow(/must end with a return/);
  });
});

/** Argument vectors that exercise each rule's conditions both ways: zeros, each constant, high bits. */
function argProbes(abi: Abi): bigint[][] {
  const values = [0n, ...Object.values(abi.constants).map(BigInt), 0x1_0000_0001n, 0xffff_ffff_ffff_ffffn];
  const probes: bigint[][] = [[]];
  for (const a0 of values) probes.push([a0, 0n]);
  for (const a1 of values) {
    probes.push([BigInt(abi.constants.AF_UNIX!), a1]);
    probes.push([0n, a1 | 0x80800n]);
  }
  return probes;
}

/** What rules.json says for one call, read plainly (the same semantics, no BPF). */
function readRules(abi: Abi, rules: readonly SeccompRule[], name: string, args: bigint[]): string {
  const low = (i: number) => Number(BigInt.asUintN(32, args[i] ?? 0n));
  const c = (n: string) => abi.constants[n]!;
  for (const rule of rules.filter((r) => r.syscalls.includes(name))) {
    const holds = (rule.when ?? []).every((cond) => {
      const value = cond.mask ? (low(cond.arg) & c(cond.mask)) >>> 0 : low(cond.arg);
      if (cond.in) return cond.in.some((n) => c(n) === value);
      if (cond.notIn) return !cond.notIn.some((n) => c(n) === value);
      return cond.anyBit!.some((n) => (value & c(n)) !== 0);
    });
    if (holds) return rule.errno;
  }
  return "allow";
}
