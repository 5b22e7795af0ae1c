/**
 * The syscall tables against a second source: libseccomp's `scmp_sys_resolver` (Debian's `seccomp` package),
 * name by name, on both architectures. Calls newer than the resolver knows (it stops at Linux 6.5's cachestat)
 * must sit above its range.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ABIS, abiForNodeArch } from "./abi.js";

const NEWEST_RESOLVER_KNOWS = 451;

function resolve(arch: string, names: string[]): Map<string, number> {
  // One shell for all names: a process per name from Node would be slow on a busy machine.
  const script = 'for n in "$@"; do printf "%s %s\\n" "$n" "$(scmp_sys_resolver -a "$ARCH" "$n")"; done';
  const run = spawnSync("sh", ["-c", script, "sh", ...names], {
    encoding: "utf8",
    env: { ...process.env, ARCH: arch },
    maxBuffer: 1 << 22,
  });
  if (run.status !== 0 || run.stdout.includes("not found"))
    throw new Error(`scmp_sys_resolver did not run (install Debian's seccomp package): ${run.stderr}`);
  return new Map(
    run.stdout
      .trim()
      .split("\n")
      .map((line) => line.split(" "))
      .map(([name, nr]) => [name!, Number(nr)]),
  );
}

describe.each([...ABIS.values()].map((abi) => [abi.arch, abi] as const))(
  "the %s syscall table",
  (arch, abi) => {
    it("agrees with libseccomp's resolver on every name it knows", () => {
      const names = Object.keys(abi.syscalls);
      const theirs = resolve(arch, names);
      const wrong: string[] = [];
      for (const name of names) {
        const ours = abi.syscalls[name]!;
        const nr = theirs.get(name);
        if (nr === undefined || Number.isNaN(nr)) wrong.push(`${name}: no answer`);
        else if (nr >= 0 && nr !== ours) wrong.push(`${name}: ours ${ours}, libseccomp ${nr}`);
        else if (nr < 0 && ours <= NEWEST_RESOLVER_KNOWS)
          wrong.push(`${name}: libseccomp does not know it (${nr})`);
      }
      expect(wrong).toEqual([]);
      expect(names.length).toBeGreaterThan(300);
    });

    it("is found by Node's name for the architecture", () => {
      expect(abiForNodeArch(abi.node)).toBe(abi);
    });
  },
);
