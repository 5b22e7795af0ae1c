/**
 * @module bench/sandbox
 * What the shell sandbox costs, in one interleaved run: `true` through the whole pipeline sandboxed, against the
 * same pipeline unsandboxed, and against spawning raw `bwrap` with the very arguments and descriptors the plan
 * makes (the anchor doing the same sandbox work without toolgate), raw `bwrap` without the seccomp filter and its
 * descriptor, and raw `bash -c true`. Goals: sandboxed call ≤ 1.3× raw bwrap; the seccomp filter and passing it
 * add ≤ 2 ms to raw bwrap; ≤ 15 ms added per command over the unsandboxed call (absolute targets: there is no
 * same-work anchor for "added time"). And what a network grant costs: the same `true` granted network (its own
 * namespace, socat and the egress proxy) against the sandboxed `true` without it.
 */
import { type StdioOptions, spawn } from "node:child_process";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Writable } from "node:stream";
import { DEFAULT_SANDBOX_SETTINGS, prepareSandbox } from "../sandbox/index.js";
import { createToolgate, type Toolgate } from "../toolgate.js";
import { findShell } from "../tools/shell/process-group.js";
import { fmt, measure, report, type Stats } from "./harness.js";

const ROUNDS = 10;
const PER_ROUND = 20;
const PAIRS = 100;

/** Spawns and waits; `data` is written into a pipe at the child's fd 3 (as the shell tool's launcher does). */
function spawnAndWait(program: string, args: string[], cwd: string, data?: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    const stdio: StdioOptions = ["ignore", "pipe", "pipe", ...(data ? ["pipe" as const] : [])];
    const child = spawn(program, args, { cwd, stdio });
    if (data) (child.stdio[3] as Writable).end(data);
    child.stdout?.on("data", () => {});
    child.stderr?.on("data", () => {});
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`${program} exited ${code}`))));
  });
}

async function gateFor(root: string, mode: "workspace-write" | "off", grant = ""): Promise<Toolgate> {
  return createToolgate({
    roots: [root],
    policyText: `[[rules]]\ntool = "shell"\ndecision = "allow"\nwhen.command = { equals = "true" }\n${grant}`,
    config: { sandbox: { mode } },
    logger: { warn: () => undefined },
  });
}

export default async function run(): Promise<void> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "toolgate-bench-sandbox-")));
  const sealed = await gateFor(root, "workspace-write");
  const open = await gateFor(root, "off");
  const networked = await gateFor(root, "workspace-write", 'sandbox = "network"\n');
  const shell = findShell();
  // The anchor's arguments: exactly what a call makes for this root (placeholders released after the bench).
  const plan = prepareSandbox(
    { ...DEFAULT_SANDBOX_SETTINGS, mode: "workspace-write" },
    { roots: [root], cwd: root },
  );
  if (!plan.sandboxed) throw new Error("bwrap is not available: the sandbox benchmark needs it");
  const [bwrap, ...bwrapArgs] = plan.argv;
  // The plan's one descriptor is the seccomp filter, at fd 3: the anchor passes it the same way.
  const filter = plan.fds[0];
  if (plan.fds.length !== 1 || !filter || !("data" in filter) || bwrapArgs.indexOf("--seccomp") !== 0)
    throw new Error("the sandbox plan's descriptors changed: update this benchmark");
  const unfiltered = bwrapArgs.slice(2);
  try {
    const check = await sealed.execute({ name: "shell", args: { command: "true" } });
    if (check.error || check.sandbox !== "workspace-write")
      throw new Error(`sandboxed call failed: ${check.llmContent}`);
    const granted = await networked.execute({ name: "shell", args: { command: "true" } });
    if (granted.error || granted.sandbox !== "workspace-write+network")
      throw new Error(`network-granted call failed: ${granted.llmContent}`);
    const ours = { p50: [] as number[], p99: [] as number[] };
    const plain = { p50: [] as number[], p99: [] as number[] };
    const rawBwrap = { p50: [] as number[], p99: [] as number[] };
    const rawBash = { p50: [] as number[], p99: [] as number[] };
    const withNetwork = { p50: [] as number[], p99: [] as number[] };
    const add = (into: { p50: number[]; p99: number[] }, s: Stats) => {
      into.p50.push(s.p50);
      into.p99.push(s.p99);
    };
    for (let round = 0; round < ROUNDS; round++) {
      add(
        rawBwrap,
        await measure(
          () => spawnAndWait(bwrap!, [...bwrapArgs, shell, "-c", "true"], root, filter.data),
          PER_ROUND,
          2,
        ),
      );
      add(
        ours,
        await measure(() => sealed.execute({ name: "shell", args: { command: "true" } }), PER_ROUND, 2),
      );
      add(
        plain,
        await measure(() => open.execute({ name: "shell", args: { command: "true" } }), PER_ROUND, 2),
      );
      add(rawBash, await measure(() => spawnAndWait(shell, ["-c", "true"], root), PER_ROUND, 2));
      add(
        withNetwork,
        await measure(() => networked.execute({ name: "shell", args: { command: "true" } }), PER_ROUND, 2),
      );
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const p50 = {
      ours: median(ours.p50),
      plain: median(plain.p50),
      bwrap: median(rawBwrap.p50),
      bash: median(rawBash.p50),
    };
    const p99 = { ours: median(ours.p99), plain: median(plain.p99), bwrap: median(rawBwrap.p99) };
    report({
      name: "sandbox: `true` through the pipeline, sandboxed, vs raw bwrap with the same arguments (p50)",
      ours: fmt(p50.ours),
      anchor: `${fmt(p50.bwrap)} raw bwrap (raw bash -c: ${fmt(p50.bash)})`,
      ratio: p50.ours / p50.bwrap,
      target: "≤ 1.3×",
      pass: p50.ours / p50.bwrap <= 1.3,
    });
    report({
      name: "sandbox: the same, p99",
      ours: fmt(p99.ours),
      anchor: `${fmt(p99.bwrap)} raw bwrap`,
      ratio: p99.ours / p99.bwrap,
      target: "≤ 1.3×",
      pass: p99.ours / p99.bwrap <= 1.3,
    });
    // The filter's cost is small beside bwrap's own: measured in pairs (with, without, in alternating order),
    // so a busy machine's drift falls on both sides of each difference.
    const pairs: { with: number; without: number }[] = [];
    const withFilter = () => spawnAndWait(bwrap!, [...bwrapArgs, shell, "-c", "true"], root, filter.data);
    const without = () => spawnAndWait(bwrap!, [...unfiltered, shell, "-c", "true"], root);
    for (let i = 0; i < PAIRS; i++) {
      const first = i % 2 === 0 ? withFilter : without;
      const a = (await measure(first, 1, 0)).p50;
      const b = (await measure(first === withFilter ? without : withFilter, 1, 0)).p50;
      pairs.push(first === withFilter ? { with: a, without: b } : { with: b, without: a });
    }
    const filtering = median(pairs.map((p) => p.with - p.without));
    const unfilteredP50 = median(pairs.map((p) => p.without));
    report({
      name: "sandbox: what the seccomp filter and its descriptor add to raw bwrap (median of paired differences; absolute target)",
      ours: fmt(filtering),
      anchor: `${fmt(unfilteredP50)} raw bwrap without them`,
      ratio: median(pairs.map((p) => p.with)) / unfilteredP50,
      target: "≤ 2 ms added",
      pass: filtering <= 2,
    });
    const added = p50.ours - p50.plain;
    report({
      name: "sandbox: time the sandbox adds to a shell call (sandboxed − unsandboxed pipeline, p50; absolute target)",
      ours: fmt(added),
      anchor: `${fmt(p50.plain)} unsandboxed pipeline`,
      ratio: p50.ours / p50.plain,
      target: "≤ 15 ms added",
      pass: added <= 15,
    });
    // A network grant does more than the sandboxed call (a second, small bwrap for its namespace, socat in it,
    // the proxy, nsenter): no anchor does the same work, so the target is a bound on the ratio.
    for (const q of ["p50", "p99"] as const) {
      const granted = median(withNetwork[q]);
      const sandboxed = q === "p50" ? p50.ours : p99.ours;
      report({
        name:
          q === "p50"
            ? "sandbox: `true` granted network (own namespace, socat, egress proxy) vs sandboxed without network (p50)"
            : "sandbox: the same, p99",
        ours: fmt(granted),
        anchor: `${fmt(sandboxed)} sandboxed, no network`,
        ratio: granted / sandboxed,
        target: "≤ 2×",
        pass: granted / sandboxed <= 2,
      });
    }
  } finally {
    if (plan.sandboxed) plan.release();
    await sealed.close();
    await open.close();
    await networked.close();
    await rm(root, { recursive: true, force: true });
  }
}
