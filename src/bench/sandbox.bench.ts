/**
 * @module bench/sandbox
 * What the shell sandbox costs, in one interleaved run: `true` through the whole pipeline sandboxed (survey,
 * placeholders, descriptors, bwrap, the check inside the namespace, the check after the command) against raw
 * `bwrap` with the very arguments and descriptors the plan makes running `bash -c true` (the anchor doing the same
 * sandbox work without toolgate); goal ≤ 1.3× at p50 and p99. And what passing sources as descriptors and checking
 * the mounts inside adds to bwrap alone: raw bwrap with descriptors and the check against raw bwrap with the same
 * mounts made from paths, without the check (an absolute target: ≤ 2 ms at p50).
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

async function gateFor(root: string, mode: "workspace-write" | "off"): Promise<Toolgate> {
  return createToolgate({
    roots: [root],
    policyText: '[[rules]]\ntool = "shell"\ndecision = "allow"\nwhen.command = { equals = "true" }\n',
    config: { sandbox: { mode } },
    logger: { warn: () => undefined },
  });
}

export default async function run(): Promise<void> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "toolgate-bench-sandbox-")));
  const sealed = await gateFor(root, "workspace-write");
  const shell = findShell();
  // The anchor's arguments and descriptors: exactly what a call makes for this root (released after the bench).
  const plan = prepareSandbox(
    { ...DEFAULT_SANDBOX_SETTINGS, mode: "workspace-write" },
    { roots: [root], cwd: root, shell },
  );
  if (!plan.sandboxed) throw new Error("bwrap is not available: the sandbox benchmark needs it");
  const [bwrap, ...withCheck] = plan.argv;
  const argsData = (plan.fds[0] as { data: Uint8Array }).data;
  const sources = plan.fds.slice(1) as { fd: number }[];
  // Up to `--`: bwrap's own options; after it, the check. The raw anchor runs the shell right after `--`.
  const raw = withCheck.slice(0, withCheck.indexOf("--") + 1);
  // The same mounts from paths (as before descriptors): each /proc/self/fd/N replaced by the file's path.
  const byPath = Buffer.from(argsData)
    .toString("latin1")
    .split("\0")
    .map((arg) => {
      const slot = /^\/proc\/self\/fd\/(\d+)$/.exec(arg)?.[1];
      if (slot === undefined) return arg;
      return readlinkSync(`/proc/self/fd/${sources[Number(slot) - 4]!.fd}`, { encoding: "buffer" }).toString(
        "latin1",
      );
    })
    .join("\0");
  const pathFds: Fd[] = [{ data: Buffer.from(byPath, "latin1") }];
  try {
    const check = await sealed.execute({ name: "shell", args: { command: "true" } });
    if (check.error || check.sandbox !== "workspace-write")
      throw new Error(`sandboxed call failed: ${check.llmContent}`);
    const series = {
      ours: [] as Stats[],
      rawBwrap: [] as Stats[],
      checked: [] as Stats[],
      paths: [] as Stats[],
    };
    for (let round = 0; round < ROUNDS; round++) {
      series.rawBwrap.push(
        await measure(
          () => spawnAndWait(bwrap!, [...raw, shell, "-c", "true"], root, [{ data: argsData }, ...sources]),
          PER_ROUND,
          2,
        ),
      );
      series.ours.push(
        await measure(() => sealed.execute({ name: "shell", args: { command: "true" } }), PER_ROUND, 2),
      );
      series.checked.push(
        await measure(
          () =>
            spawnAndWait(bwrap!, [...withCheck, shell, "-c", "true"], root, [{ data: argsData }, ...sources]),
          PER_ROUND,
          2,
        ),
      );
      series.paths.push(
        await measure(() => spawnAndWait(bwrap!, [...raw, shell, "-c", "true"], root, pathFds), PER_ROUND, 2),
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
    const added = p50(series.checked) - p50(series.paths);
    report({
      name: "sandbox: descriptors and the check inside, added to raw bwrap (vs the same mounts from paths, unchecked; p50; absolute target)",
      ours: fmt(added),
      anchor: `${fmt(p50(series.paths))} raw bwrap from paths (${fmt(p50(series.checked))} with descriptors and the check)`,
      ratio: p50(series.checked) / p50(series.paths),
      target: "≤ 2 ms added",
      pass: added <= 2,
    });
  } finally {
    plan.release();
    await sealed.close();
    await rm(root, { recursive: true, force: true });
  }
}
