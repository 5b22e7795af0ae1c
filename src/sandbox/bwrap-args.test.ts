/** The plan → arguments table (testdata/bwrap-args.json): each case a named test. */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { bwrapArgs, expectedMounts, type SandboxPlan } from "./bwrap-args.js";
import type { Expected } from "./verify.js";

interface Case {
  note: string;
  plan: SandboxPlan;
  contains?: string[][];
  absent?: string[];
  before?: [string[], string[]][];
  expected: Expected[];
}

const here = dirname(fileURLToPath(import.meta.url));
const { cases } = JSON.parse(readFileSync(join(here, "testdata", "bwrap-args.json"), "utf8")) as {
  cases: Case[];
};

/** Index of the first place `run` appears as consecutive arguments, or -1. */
function indexOfRun(args: string[], run: string[]): number {
  for (let i = 0; i + run.length <= args.length; i++) {
    if (run.every((a, k) => args[i + k] === a)) return i;
  }
  return -1;
}

describe("bwrapArgs", () => {
  it.each(cases.map((c) => [c.note, c] as const))("%s", (_note, c) => {
    const args = bwrapArgs(c.plan);
    expect(args.slice(-2)).toEqual(["--chdir", c.plan.cwd]);
    for (const run of c.contains ?? [])
      expect(indexOfRun(args, run), run.join(" ")).toBeGreaterThanOrEqual(0);
    for (const arg of c.absent ?? []) expect(args).not.toContain(arg);
    for (const [a, b] of c.before ?? []) {
      expect(indexOfRun(args, a), `${a.join(" ")} before ${b.join(" ")}`).toBeLessThan(indexOfRun(args, b));
    }
    expect(expectedMounts(c.plan)).toEqual(c.expected);
  });

  it("mounts each descriptor source from a copy bwrap uses up (--bind-fd), in mount order, when given one", () => {
    const plan: SandboxPlan = {
      mode: "workspace-write",
      network: false,
      binds: [
        { path: "/w/a", source: { slot: 6 }, writable: true },
        { path: "/w", source: { slot: 5 }, writable: true },
      ],
      covers: [
        { path: "/w/a/.envrc", source: { slot: 7 }, writable: false },
        { path: "/w/.env", source: { system: "/dev/null" }, writable: false },
      ],
      cwd: "/w",
    };
    const asked: number[] = [];
    const args = bwrapArgs(plan, (slot) => {
      asked.push(slot);
      return 20 + asked.length;
    });
    expect(asked).toEqual([5, 6, 7]);
    for (const run of [
      ["--bind-fd", "21", "/w"],
      ["--bind-fd", "22", "/w/a"],
      ["--ro-bind-fd", "23", "/w/a/.envrc"],
      ["--ro-bind", "/dev/null", "/w/.env"],
    ])
      expect(indexOfRun(args, run), run.join(" ")).toBeGreaterThanOrEqual(0);
    expect(args.some((a) => a.startsWith("/proc/self/fd/"))).toBe(false);
    // The check still compares against the originals.
    expect(expectedMounts(plan).map((e) => e.ref)).toEqual([
      "/proc/self/fd/5",
      "/proc/self/fd/6",
      "/dev/null",
      "/proc/self/fd/7",
    ]);
  });

  it("is pure: the same plan gives the same arguments", () => {
    const plan = cases[3]!.plan;
    expect(bwrapArgs(plan)).toEqual(bwrapArgs(structuredClone(plan)));
  });
});
