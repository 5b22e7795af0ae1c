/**
 * @module bench/hooks
 * What hooks cost a call (issue 32). A pre-tool hook's added cost (a call with the hook minus the same call
 * without) against spawning the same script directly with the same stdin: ≤ 1.2× at p50. Four matching hooks
 * of 50 ms each run in parallel: they add ≤ 70 ms. And the matching when no hook matches the call (twenty
 * hooks, toolgate patterns and host matchers, none for this tool) against a gate without hooks: ≤ 10 µs p50.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HookSet } from "../hooks/index.js";
import { createToolgate, type Toolgate } from "../toolgate.js";
import { fmt, interleaved, p50p99, report, stats } from "./harness.js";
import { NOOP_CALL, noopTool } from "./noop-gate.js";

const noop = noopTool();

const call = NOOP_CALL;

async function gateWith(root: string, home: string, hooks: object[]): Promise<Toolgate> {
  const gate = await createToolgate({
    roots: [root],
    builtins: false,
    tools: [noop],
    policy: false,
    config: { hooks } as never,
    hooks: { home },
    logger: { warn: () => undefined },
  });
  const check = await gate.execute(call);
  if (!check.ok || check.decision !== "allow")
    throw new Error(`the benchmark call failed: ${check.llmContent}`);
  return gate;
}

/** Runs `/bin/sh -c command` with `input` on stdin, as a person would test their hook by hand. */
function spawnDirect(command: string, input: string, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", command], { cwd, stdio: ["pipe", "ignore", "ignore"] });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
    child.stdin.end(input);
  });
}

export default async function run(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "tg-bench-hooks-"));
  const home = await mkdtemp(join(tmpdir(), "tg-bench-hooks-home-"));
  const script = join(root, "hook.sh");
  await writeFile(script, "#!/bin/sh\ncat >/dev/null\n", { mode: 0o755 });
  const bare = await gateWith(root, home, []);
  const one = await gateWith(root, home, [{ event: "pre_tool", tools: ["noop"], command: script }]);
  const input = JSON.stringify({
    event: "pre_tool",
    tool: "noop",
    args: call.args,
    cwd: root,
    session_id: "s",
    call_id: "c",
  });

  // One hook: the call with it, the call without, and the script spawned directly.
  const [hooked, plain, directOrNone] = await interleaved(
    () => one.execute(call),
    () => bare.execute(call),
    150,
    () => spawnDirect(script, input, root),
  );
  const direct = directOrNone!;
  const added = hooked.p50 - plain.p50;
  report({
    name: "one pre-tool hook: added cost per call vs spawning the script directly (p50)",
    ours: `added ${fmt(added)} (call with hook ${p50p99(hooked)}; without ${p50p99(plain)})`,
    anchor: `direct spawn ${p50p99(direct)}`,
    ratio: added / direct.p50,
    target: "≤ 1.2× at p50",
    pass: added / direct.p50 <= 1.2,
  });

  // Four hooks of 50 ms each, in parallel.
  const sleepy = Array.from({ length: 4 }, () => ({
    event: "pre_tool",
    tools: ["noop"],
    command: "cat >/dev/null; sleep 0.05",
  }));
  const four = await gateWith(root, home, sleepy);
  const [fourStats, plain4, parallelOrNone] = await interleaved(
    () => four.execute(call),
    () => bare.execute(call),
    30,
    () => Promise.all(sleepy.map((h) => spawnDirect(h.command, input, root))),
  );
  const parallel = parallelOrNone!;
  const added4 = fourStats.p50 - plain4.p50;
  report({
    name: "four matching 50 ms hooks: added cost per call (p50)",
    ours: `added ${fmt(added4)} (call ${p50p99(fourStats)})`,
    anchor: `the four scripts spawned directly in parallel ${p50p99(parallel)}`,
    ratio: added4 / parallel.p50,
    target: "≤ 70 ms",
    pass: added4 <= 70,
  });

  // Twenty hooks, none for this tool: the cost of finding that out on every call.
  await mkdir(join(home, ".claude"));
  const matchers = [
    "Bash",
    "Edit|Write|MultiEdit",
    "mcp__github__.*",
    "Read",
    "WebFetch",
    "Glob|Grep",
    "Task",
    "LS",
    "TodoWrite",
    "NotebookEdit",
  ];
  await writeFile(
    join(home, ".claude", "settings.json"),
    JSON.stringify({
      hooks: {
        PreToolUse: matchers.map((matcher) => ({ matcher, hooks: [{ type: "command", command: "exit 2" }] })),
      },
    }),
  );
  const patterns = [
    "shell",
    "write_file",
    "edit_file",
    "mcp__*",
    "read_*",
    "web_*",
    "glob",
    "grep",
    "ls",
    "memory",
  ];
  const none = await gateWith(
    root,
    home,
    patterns.map((p) => ({ event: "pre_tool", tools: [p], command: "exit 2" })),
  );
  if (none.hooks.hooks.length !== 20) throw new Error(`expected 20 hooks, got ${none.hooks.hooks.length}`);
  const [noMatch, noHooks] = await perCallPair(
    () => none.execute(call),
    () => bare.execute(call),
  );
  const matching = noMatch.p50 - noHooks.p50;
  report({
    name: "twenty hooks, none matching: cost per call (p50)",
    ours: `${fmt(matching)} (call ${p50p99(noMatch)})`,
    anchor: `gate without hooks ${p50p99(noHooks)}`,
    ratio: noMatch.p50 / noHooks.p50,
    target: "≤ 10 µs",
    pass: matching <= 0.01,
  });

  // The matching alone, without a call around it: the difference above is two noisy ~0.1 ms figures apart.
  const set = new HookSet({ hooks: none.hooks.hooks, cwd: root, mayAllow: false, failOpen: false });
  const batch = 1000;
  const matchingOnly = perBatch(() => set.matching("pre_tool", call.name, call.args), batch);
  if (set.matching("pre_tool", call.name, call.args).length !== 0) throw new Error("a hook matched noop");
  report({
    name: "twenty hooks, none matching: the matching alone per call (p50)",
    ours: p50p99(matchingOnly),
    anchor: `gate without hooks, whole call ${p50p99(noHooks)}`,
    ratio: matchingOnly.p50 / noHooks.p50,
    target: "≤ 10 µs",
    pass: matchingOnly.p50 <= 0.01,
  });

  for (const gate of [bare, one, four, none]) await gate.close();
  await rm(root, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
}

/**
 * Per-call time of two functions from alternating batches (single calls are too quick for the timer, and
 * alternating lets machine noise fall on both alike).
 */
async function perCallPair(ours: () => Promise<unknown>, anchor: () => Promise<unknown>) {
  for (let i = 0; i < 1000; i++) {
    await ours();
    await anchor();
  }
  const samples: [number[], number[]] = [[], []];
  for (let b = 0; b < 200; b++) {
    for (const [k, fn] of [ours, anchor].entries()) {
      const t0 = performance.now();
      for (let i = 0; i < 100; i++) await fn();
      samples[k]!.push((performance.now() - t0) / 100);
    }
  }
  return [stats(samples[0]), stats(samples[1])] as const;
}

/** Per-call time of a synchronous function, from batches of `size` calls (one call is below the timer's grain). */
function perBatch(fn: () => unknown, size: number) {
  for (let i = 0; i < size * 10; i++) fn();
  const samples: number[] = [];
  for (let b = 0; b < 200; b++) {
    const t0 = performance.now();
    for (let i = 0; i < size; i++) fn();
    samples.push((performance.now() - t0) / size);
  }
  return stats(samples);
}
