/**
 * @module bench/sandbox
 * What the shell sandbox costs, in one interleaved run: `true` through the whole pipeline sandboxed (survey,
 * placeholders, descriptors, seccomp filter, bwrap, the check inside the namespace, the check after the command)
 * against raw `bwrap` with the very arguments and descriptors the plan makes (its options, the seccomp filter and
 * the opened sources) running `bash -c true` — the anchor doing the same sandbox work without toolgate; goal
 * ≤ 1.3× at p50 and p99. And what the seccomp filter, passing sources as descriptors and the check inside add to
 * bwrap alone: against raw bwrap with the same mounts made from paths, no filter and no check (an absolute
 * target, ≤ 2 ms at p50, measured in alternating pairs so a busy machine's drift falls on both sides).
 * And what a network grant costs: the same `true` granted network (its own namespace, socat and the egress
 * proxy) against the sandboxed `true` without it.
 */
import { spawn } from "node:child_process";
import { readlinkSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_SANDBOX_SETTINGS, prepareSandbox } from "../sandbox/index.js";
import { createToolgate, type Toolgate } from "../toolgate.js";
import { findShell } from "../tools/shell/process-group.js";
import { fmt, measure, report, type Stats } from "./harness.js";

const ROUNDS = 10;
const PER_ROUND = 20;
const PAIRS = 100;

type Fd = { fd: number } | { data: Uint8Array };

/** Spawns `program` with `fds` at 3, 4, … (data written to a pipe and closed) and waits for a 0 exit. */
function spawnAndWait(program: string, args: string[], cwd: string, fds: readonly Fd[] = []): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe", ...fds.map((f) => ("fd" in f ? f.fd : "pipe"))],
    });
    fds.forEach((f, i) => {
      if ("data" in f) (child.stdio[3 + i] as NodeJS.WritableStream).end(f.data);
    });
    let stderr = "";
    child.stdout!.on("data", () => {});
    child.stderr!.on("data", (d) => (stderr += d));
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`${program} exited ${code}: ${stderr}`)),
    );
  });
}

async function gateFor(root: string, grant = ""): Promise<Toolgate> {
  return createToolgate({
    roots: [root],
    policyText: `[[rules]]\ntool = "shell"\ndecision = "allow"\nwhen.command = { equals = "true" }\n${grant}`,
    config: { sandbox: { mode: "workspace-write" } },
    logger: { warn: () => undefined },
  });
}

export default async function run(): Promise<void> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "toolgate-bench-sandbox-")));
  const sealed = await gateFor(root);
  const networked = await gateFor(root, 'sandbox = "network"\n');
  const shell = findShell();
  // The anchor's arguments and descriptors: exactly what a call makes for this root (released after the bench).
  const plan = prepareSandbox(
    { ...DEFAULT_SANDBOX_SETTINGS, mode: "workspace-write" },
    { roots: [root], cwd: root, shell },
  );
  if (!plan.sandboxed) throw new Error("bwrap is not available: the sandbox benchmark needs it");
  // argv: bwrap --args 3 --seccomp 4 -- <the check…>; fds: the arguments, the filter, the sources from 5 on, then
  // the copies bwrap uses up
  const [bwrap, ...withCheck] = plan.argv;
  const [argsFd, filterFd, ...rest] = plan.fds;
  if (!argsFd || !("data" in argsFd) || !filterFd || !("data" in filterFd) || withCheck[2] !== "--seccomp")
    throw new Error("the sandbox plan's arguments or descriptors changed: update this benchmark");
  const sources = rest as { fd: number }[];
  const fds: Fd[] = [argsFd, filterFd, ...sources];
  // Up to `--`: bwrap's own options; after it, the check. The raw anchor runs the shell right after `--`.
  const raw = withCheck.slice(0, withCheck.indexOf("--") + 1);
  // The same mounts from paths, without the filter: each `--bind-fd N` made `--bind <the file's path>`.
  const byPath = Buffer.from(argsFd.data).toString("latin1").split("\0");
  for (let i = 0; i < byPath.length; i++) {
    const fdOption = /^--(ro-)?bind-fd$/.exec(byPath[i]!);
    if (!fdOption) continue;
    const fd = (plan.fds[Number(byPath[i + 1]) - 3] as { fd: number }).fd;
    byPath[i] = fdOption[1] ? "--ro-bind" : "--bind";
    byPath[i + 1] = readlinkSync(`/proc/self/fd/${fd}`, { encoding: "buffer" }).toString("latin1");
  }
  const fromPaths = ["--args", "3", "--", shell, "-c", "true"];
  const pathFds: Fd[] = [{ data: Buffer.from(byPath.join("\0"), "latin1") }];
  try {
    const check = await sealed.execute({ name: "shell", args: { command: "true" } });
    if (check.error || check.sandbox !== "workspace-write")
      throw new Error(`sandboxed call failed: ${check.llmContent}`);
    const granted = await networked.execute({ name: "shell", args: { command: "true" } });
    if (granted.error || granted.sandbox !== "workspace-write+network")
      throw new Error(`network-granted call failed: ${granted.llmContent}`);
    const series = { ours: [] as Stats[], rawBwrap: [] as Stats[], withNetwork: [] as Stats[] };
    for (let round = 0; round < ROUNDS; round++) {
      series.rawBwrap.push(
        await measure(() => spawnAndWait(bwrap!, [...raw, shell, "-c", "true"], root, fds), PER_ROUND, 2),
      );
      series.ours.push(
        await measure(() => sealed.execute({ name: "shell", args: { command: "true" } }), PER_ROUND, 2),
      );
      series.withNetwork.push(
        await measure(() => networked.execute({ name: "shell", args: { command: "true" } }), PER_ROUND, 2),
      );
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const p50 = (s: Stats[]) => median(s.map((x) => x.p50));
    const p99 = (s: Stats[]) => median(s.map((x) => x.p99));
    report({
      name: "sandbox: `true` through the pipeline, sandboxed, vs raw bwrap with the same arguments and descriptors (p50)",
      ours: fmt(p50(series.ours)),
      anchor: `${fmt(p50(series.rawBwrap))} raw bwrap`,
      ratio: p50(series.ours) / p50(series.rawBwrap),
      target: "≤ 1.3×",
      pass: p50(series.ours) / p50(series.rawBwrap) <= 1.3,
    });
    report({
      name: "sandbox: the same, p99",
      ours: fmt(p99(series.ours)),
      anchor: `${fmt(p99(series.rawBwrap))} raw bwrap`,
      ratio: p99(series.ours) / p99(series.rawBwrap),
      target: "≤ 1.3×",
      pass: p99(series.ours) / p99(series.rawBwrap) <= 1.3,
    });
    const pairs: { with: number; without: number }[] = [];
    const checked = () => spawnAndWait(bwrap!, [...withCheck, shell, "-c", "true"], root, fds);
    const paths = () => spawnAndWait(bwrap!, fromPaths, root, pathFds);
    for (let i = 0; i < PAIRS; i++) {
      const first = i % 2 === 0 ? checked : paths;
      const a = (await measure(first, 1, 0)).p50;
      const b = (await measure(first === checked ? paths : checked, 1, 0)).p50;
      pairs.push(first === checked ? { with: a, without: b } : { with: b, without: a });
    }
    const added = median(pairs.map((p) => p.with - p.without));
    const pathsP50 = median(pairs.map((p) => p.without));
    report({
      name: "sandbox: the seccomp filter, descriptors and the check inside, added to raw bwrap (vs the same mounts from paths, neither; median of paired differences; absolute target)",
      ours: fmt(added),
      anchor: `${fmt(pathsP50)} raw bwrap from paths`,
      ratio: median(pairs.map((p) => p.with)) / pathsP50,
      target: "≤ 2 ms added",
      pass: added <= 2,
    });
    // A network grant does more than the sandboxed call (a second, small bwrap for its namespace, socat in it,
    // the proxy, nsenter): no anchor does the same work, so the target is a bound on the ratio.
    for (const q of ["p50", "p99"] as const) {
      const granted = (q === "p50" ? p50 : p99)(series.withNetwork);
      const sandboxed = (q === "p50" ? p50 : p99)(series.ours);
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
    plan.release();
    await sealed.close();
    await networked.close();
    await rm(root, { recursive: true, force: true });
  }
}
