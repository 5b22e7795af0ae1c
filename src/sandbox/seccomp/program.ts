/**
 * @module sandbox/seccomp/program
 * Builds the sandbox's seccomp filter from data: the rule table (rules.json) over one architecture's syscall
 * table (abi/*.json), as classic BPF for bwrap's `--seccomp`. The program checks, in order: the audit
 * architecture (any other ABI the CPU can enter — 32-bit, x32 — is killed, so switching ABI cannot step around
 * a rule), the x32 bit, numbers newer than the table (ENOSYS, as an older kernel answers), then each refused
 * syscall and its argument checks. Built once per process and architecture.
 */
import { endianness } from "node:os";
import { ABIS, type Abi, abiForNodeArch } from "./abi.js";
import { Assembler, DATA, encode, type Insn, RET } from "./bpf.js";
import RULES from "./rules.json" with { type: "json" };

/** A test of one argument's low 32 bits (after `mask`): in / not in a list of constants, or any flag set. */
export interface SeccompCondition {
  arg: number;
  mask?: string;
  in?: string[];
  notIn?: string[];
  anyBit?: string[];
}

/** Refuse `syscalls` with `errno` when every condition holds (no `when`: always). */
export interface SeccompRule {
  syscalls: string[];
  errno: string;
  when?: SeccompCondition[];
  why: string;
}

/** The rule table, as data. */
export const SECCOMP_RULES: readonly SeccompRule[] = RULES.rules;

/** No filter can be built for this machine (no syscall table for its architecture, or a big-endian CPU). */
export class SeccompUnsupportedError extends Error {
  override readonly name = "SeccompUnsupportedError";
}

const cache = new Map<string, Uint8Array>();

/**
 * The filter for this machine (or `nodeArch`), as the bytes bwrap reads from its `--seccomp` descriptor.
 * @throws SeccompUnsupportedError when toolgate has no syscall table for the architecture.
 * @example spawn("bwrap", ["--seccomp", "3", ...], { stdio: ["ignore", "pipe", "pipe", "pipe"] }).stdio[3].end(seccompProgram())
 */
export function seccompProgram(nodeArch: string = process.arch): Uint8Array {
  let bytes = cache.get(nodeArch);
  if (!bytes) {
    const abi = abiForNodeArch(nodeArch);
    if (!abi || endianness() !== "LE") {
      const known = [...ABIS.keys()].join(" and ");
      throw new SeccompUnsupportedError(
        `toolgate has no seccomp syscall table for ${nodeArch} (${endianness()}; tables: little-endian ${known})`,
      );
    }
    bytes = encode(buildProgram(abi));
    cache.set(nodeArch, bytes);
  }
  return bytes.slice();
}

/** The filter's instructions for `abi` (pure; tests run it through an interpreter). */
export function buildProgram(abi: Abi, rules: readonly SeccompRule[] = SECCOMP_RULES): Insn[] {
  const asm = new Assembler();
  const constant = (name: string): number => {
    const value = abi.constants[name];
    if (value === undefined) throw new Error(`seccomp rules use ${name}, which ${abi.arch}'s table lacks`);
    return value;
  };
  asm.load(DATA.arch).jump("eq", abi.audit, "native", null).ret(RET.KILL_PROCESS).label("native");
  asm.load(DATA.nr);
  if (abi.x32Bit !== undefined)
    asm.jump("set", abi.x32Bit, null, "not-x32").ret(RET.KILL_PROCESS).label("not-x32");
  asm
    .jump("gt", abi.reviewedThrough, null, "reviewed")
    .ret(RET.errno(constant("ENOSYS")))
    .label("reviewed");

  let labels = 0;
  const fresh = (what: string) => `${what}-${labels++}`;
  for (const [name, list] of bySyscall(rules)) {
    const nr = abi.syscalls[name];
    if (nr === undefined) throw new Error(`seccomp rules name ${name}, which ${abi.arch}'s table lacks`);
    const next = fresh(`after-${name}`);
    asm.jump("eq", nr, null, next);
    list.forEach((rule, i) => {
      const conditions = rule.when ?? [];
      if (conditions.length === 0 && i < list.length - 1)
        throw new Error(`seccomp rules: a rule after the unconditional one for ${name} could never apply`);
      const skip = fresh(`${name}-no`);
      for (const condition of conditions) emitCondition(asm, condition, skip, constant, fresh);
      asm.ret(RET.errno(constant(rule.errno)));
      if (conditions.length > 0) asm.label(skip);
    });
    if ((list[list.length - 1]!.when ?? []).length > 0) asm.ret(RET.ALLOW);
    asm.label(next);
  }
  asm.ret(RET.ALLOW);
  return asm.assemble();
}

/** Rules grouped by syscall, in the order each syscall first appears. */
function bySyscall(rules: readonly SeccompRule[]): Map<string, SeccompRule[]> {
  const groups = new Map<string, SeccompRule[]>();
  for (const rule of rules) {
    for (const name of rule.syscalls) groups.set(name, [...(groups.get(name) ?? []), rule]);
  }
  return groups;
}

/** Falls through when `condition` holds; jumps to `fails` otherwise. Leaves the argument in A. */
function emitCondition(
  asm: Assembler,
  condition: SeccompCondition,
  fails: string,
  constant: (name: string) => number,
  fresh: (what: string) => string,
): void {
  const kinds = [condition.in, condition.notIn, condition.anyBit].filter((k) => k !== undefined);
  if (kinds.length !== 1 || kinds[0]!.length === 0 || !(condition.arg >= 0 && condition.arg <= 5))
    throw new Error(`seccomp rules: a bad condition ${JSON.stringify(condition)}`);
  asm.load(DATA.argLow(condition.arg));
  if (condition.anyBit) {
    if (condition.mask) throw new Error("seccomp rules: anyBit takes no mask");
    const bits = condition.anyBit.reduce((all, name) => (all | constant(name)) >>> 0, 0);
    asm.jump("set", bits, null, fails);
    return;
  }
  if (condition.mask) asm.and(constant(condition.mask));
  if (condition.notIn) {
    for (const name of condition.notIn) asm.jump("eq", constant(name), fails, null);
    return;
  }
  const values = condition.in!;
  const holds = fresh("holds");
  values.forEach((name, i) => {
    if (i < values.length - 1) asm.jump("eq", constant(name), holds, null);
    else asm.jump("eq", constant(name), null, fails);
  });
  asm.label(holds);
}
