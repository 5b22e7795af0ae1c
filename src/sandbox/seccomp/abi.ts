/**
 * @module sandbox/seccomp/abi
 * The architectures the seccomp filter knows, as data (abi/*.json): the audit architecture the kernel reports,
 * the other ABIs the same CPU can enter (refused whole), constants, and the syscall numbers. The table is
 * reviewed through its highest number; calls above it (added to the kernel later) are refused with ENOSYS.
 */
import AARCH64 from "./abi/aarch64.json" with { type: "json" };
import X86_64 from "./abi/x86_64.json" with { type: "json" };

/** One architecture, its numbers parsed. */
export interface Abi {
  /** The kernel's name (`x86_64`, `aarch64`). */
  arch: string;
  /** Node's `process.arch` for it. */
  node: string;
  /** `AUDIT_ARCH_*` of the native 64-bit ABI. */
  audit: number;
  /** x86-64 only: the bit that marks an x32 system call number. */
  x32Bit?: number;
  /** ABIs the CPU can also run, killed by the filter; for the docs and tests. */
  otherAbis: readonly { name: string; audit: number; what: string }[];
  constants: Readonly<Record<string, number>>;
  syscalls: Readonly<Record<string, number>>;
  /** The highest syscall number in the table: everything above is unreviewed. */
  reviewedThrough: number;
}

/** A number written in decimal or as a `0x` string in the data. */
type DataNumber = number | string;
interface AbiData {
  arch: string;
  node: string;
  audit: DataNumber;
  x32Bit?: DataNumber;
  otherAbis: { name: string; audit: DataNumber; what: string }[];
  constants: Record<string, DataNumber>;
  syscalls: Record<string, number>;
}

const TABLES: readonly AbiData[] = [X86_64, AARCH64];

/** Every architecture with a table, by kernel name. */
export const ABIS: ReadonlyMap<string, Abi> = new Map(TABLES.map((data) => [data.arch, parseAbi(data)]));

/** The table for a Node `process.arch` value, or undefined when there is none. */
export function abiForNodeArch(nodeArch: string): Abi | undefined {
  return [...ABIS.values()].find((abi) => abi.node === nodeArch);
}

function parseAbi(data: AbiData): Abi {
  const numbers = Object.values(data.syscalls);
  for (const [name, nr] of Object.entries(data.syscalls)) {
    if (!Number.isInteger(nr) || nr < 0 || nr >= 0x4000_0000)
      throw new Error(`seccomp table ${data.arch}: ${name} has a bad number ${nr}`);
  }
  return {
    arch: data.arch,
    node: data.node,
    audit: toNumber(data.audit, `${data.arch} audit`),
    ...(data.x32Bit !== undefined ? { x32Bit: toNumber(data.x32Bit, `${data.arch} x32Bit`) } : {}),
    otherAbis: data.otherAbis.map((o) => ({ ...o, audit: toNumber(o.audit, `${data.arch} ${o.name}`) })),
    constants: Object.fromEntries(
      Object.entries(data.constants).map(([name, value]) => [name, toNumber(value, `${data.arch} ${name}`)]),
    ),
    syscalls: data.syscalls,
    reviewedThrough: Math.max(...numbers),
  };
}

function toNumber(value: DataNumber, what: string): number {
  const n = typeof value === "number" ? value : /^0x[0-9a-f]+$/i.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 0 || n > 0xffff_ffff)
    throw new Error(`seccomp table: ${what} is not a u32: ${value}`);
  return n;
}
