import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolResult } from "../core/index.js";
import { ToolFailure } from "../core/index.js";
import { BackgroundProcesses } from "./shell/background.js";
import { liveGroupMembers } from "./shell/process-group.js";
import { createShellTool, type ShellParams } from "./shell.js";

let root: string;
let processes: BackgroundProcesses;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "toolgate-shell-")));
  await mkdir(join(root, "sub"));
  processes = new BackgroundProcesses({ killGraceMs: 300 });
});
afterAll(async () => {
  await processes.stopAll();
  await rm(root, { recursive: true, force: true });
});

async function resolveCwd(cwd: string | undefined): Promise<string> {
  const target = resolve(root, cwd ?? ".");
  const rel = relative(root, target);
  if (rel.startsWith("..") || rel.includes(`..${sep}`) || resolve(rel) === rel) {
    throw new ToolFailure("path_not_allowed", `path is outside the workspace: ${cwd}`, { path: cwd });
  }
  return target;
}

function makeTool(extra: Partial<Parameters<typeof createShellTool>[0]> = {}) {
  // These tests check the process-group machinery with host pids, so they run unsandboxed; the sandbox has its
  // own suite (src/sandbox/escapes.test.ts) that runs the same hygiene checks inside bwrap.
  const sandbox = { mode: "off" as const, network: false, writable: [], hidden: [] };
  return createShellTool({ resolveCwd, roots: [root], processes, killGraceMs: 300, sandbox, ...extra });
}
const tool = () => makeTool();

async function run(
  params: ShellParams,
  options: {
    signal?: AbortSignal;
    onOutput?: (chunk: string) => void;
    tool?: ReturnType<typeof makeTool>;
  } = {},
): Promise<ToolResult> {
  const invocation = (options.tool ?? tool()).build(params);
  return invocation.run(options.signal ?? new AbortController().signal, options.onOutput);
}
const data = (r: ToolResult) => r.data as { exitCode: number | null; stdout: string; stderr: string };

/** Process ids a command printed, one `pid=N` per line. */
const pidsIn = (text: string) => [...text.matchAll(/pid=(\d+)/g)].map((m) => Number(m[1]));
/** True when a process is gone or a zombie (an init that does not reap leaves zombies behind). */
function dead(pid: number): boolean {
  const statFile = `/proc/${pid}/stat`;
  if (!existsSync(statFile)) return true;
  try {
    const stat = readFileSync(statFile, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}
async function eventually(check: () => boolean, ms = 60_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

describe("shell tool: declaration", () => {
  it("declares kinds, risk and output mode", () => {
    const t = tool();
    expect(t.name).toBe("shell");
    expect(t.kind).toBe("execute");
    expect(t.risk).toBe("high");
    expect(t.argKinds).toEqual({ command: "command", cwd: "path" });
    expect(t.outputMode).toBe("head-tail");
    expect(t.build({ command: "ls" }).riskFor()).toBe("high");
  });

  it("refuses a blank command", () => {
    expect(() => tool().build({ command: "   " })).toThrow("command must not be blank");
  });

  it("confirmation shows the command with hidden characters made visible", async () => {
    const t = makeTool({ commandNotes: () => ["rm -rf"] });
    const details = await t
      .build({ command: "ls   -la\u202E\nrm -rf x\x1b" })
      .confirmation(new AbortController().signal);
    expect(details).toMatchObject({
      type: "exec",
      risk: "high",
      command: "ls -la<U+202E>\\nrm -rf x\\x1b",
      reason: "rm -rf",
      toolName: "shell",
    });
  });
});

describe("shell tool", () => {
  it("returns output and exit code, stderr kept apart", async () => {
    const result = await run({ command: "echo hello; echo oops >&2" });
    expect(result.error).toBeUndefined();
    expect(result.llmContent).toBe("hello\n[stderr]\noops\n[exit code 0]");
    expect(data(result)).toMatchObject({ exitCode: 0, stdout: "hello\n", stderr: "oops\n" });
  });

  it("streams output while the command runs", async () => {
    // The command waits for a file the test creates only after seeing the first line: without streaming it
    // would never finish before its timeout.
    const go = join(root, "go-signal");
    const chunks: string[] = [];
    const result = await run(
      { command: `echo one; while [ ! -f '${go}' ]; do sleep 0.02; done; echo two`, timeout: 10_000 },
      {
        onOutput: (chunk) => {
          chunks.push(chunk);
          if (chunk.includes("one")) void writeFile(go, "");
        },
      },
    );
    expect(result.error).toBeUndefined();
    expect(chunks.join("")).toBe("one\ntwo\n");
    expect(chunks[0]).toBe("one\n");
  });

  // The three timeout cases wait seconds on the clock by design (a timeout has to pass); their commands are
  // independent processes, so they wait at once rather than one after the other.
  it.concurrent("times out, reports elapsed time and partial output, and kills the whole group", async ({
    expect,
  }) => {
    const result = await run({
      command: "sleep 100 & echo pid=$!; sleep 100 & echo pid=$!; echo pid=$$; wait",
      // Long enough for the sandbox to start and the pids to be printed on a busy machine.
      timeout: 6000,
    });
    expect(result.error?.type).toBe("timeout");
    expect(result.error?.message).toMatch(
      /^command timed out after \d+\.\d s \(timeout 6000 ms\); its process group was stopped$/,
    );
    expect(result.error?.details?.elapsedMs).toBeGreaterThanOrEqual(6000);
    const pids = pidsIn(data(result).stdout);
    expect(pids).toHaveLength(3);
    for (const pid of pids) expect(dead(pid)).toBe(true);
    expect(liveGroupMembers(pids[2]!)).toEqual([]);
  });

  it.concurrent("kills grandchildren that ignore SIGTERM (SIGKILL after the grace period)", async ({
    expect,
  }) => {
    const result = await run({
      command:
        "trap '' TERM; sleep 100 & echo pid=$!; (trap '' TERM; sleep 100) & echo pid=$!; echo pid=$$; wait",
      timeout: 6000,
    });
    expect(result.error?.type).toBe("timeout");
    const pids = pidsIn(data(result).stdout);
    expect(pids).toHaveLength(3);
    for (const pid of pids) expect(dead(pid)).toBe(true);
    expect(liveGroupMembers(pids[2]!)).toEqual([]);
  });

  it.concurrent("stops a command that is silent for the idle timeout", async ({ expect }) => {
    const result = await run({ command: "echo start; sleep 100", idleTimeout: 3000, timeout: 60_000 });
    expect(result.error?.type).toBe("timeout");
    expect(result.error?.message).toMatch(
      /^command produced no output for 3000 ms and was stopped after \d+\.\d s$/,
    );
    expect(data(result).stdout).toBe("start\n");
  });

  it("does not stop a command that keeps talking", async () => {
    const result = await run({
      command: "for i in 1 2 3 4 5; do echo $i; sleep 0.05; done",
      idleTimeout: 2000,
    });
    expect(result.error).toBeUndefined();
    expect(data(result).stdout).toBe("1\n2\n3\n4\n5\n");
  });

  it("a failing command returns its exit code and stderr", async () => {
    const result = await run({ command: "echo out; echo 'bad thing' >&2; exit 3" });
    expect(result.error).toEqual({
      type: "execution_failed",
      message: "command exited with code 3",
      details: { exitCode: 3, stderr: "bad thing\n", elapsedMs: expect.any(Number) },
    });
    expect(result.llmContent).toBe(
      "Error (execution_failed): out\n[stderr]\nbad thing\n[command exited with code 3]",
    );
  });

  it("a command killed by a signal says so", async () => {
    const result = await run({ command: "kill -SEGV $$" });
    expect(result.error?.type).toBe("execution_failed");
    expect(result.error?.message).toBe("command was killed by SIGSEGV");
  });

  it("runs in the given directory", async () => {
    expect(data(await run({ command: "pwd", cwd: "sub" })).stdout).toBe(`${join(root, "sub")}\n`);
    expect(data(await run({ command: "pwd" })).stdout).toBe(`${root}\n`);
  });

  it("a directory outside the roots is refused", async () => {
    const result = await run({ command: "pwd", cwd: "../.." });
    expect(result.error?.type).toBe("path_not_allowed");
    expect(result.error?.message).toBe("path is outside the workspace: ../..");
  });

  it("cancellation stops the group and reports cancelled", async () => {
    const controller = new AbortController();
    let pids: number[] = [];
    const result = await run(
      { command: "sleep 100 & echo pid=$!; echo pid=$$; wait" },
      {
        signal: controller.signal,
        onOutput: (chunk) => {
          pids = pids.concat(pidsIn(chunk));
          if (pids.length === 2) controller.abort();
        },
      },
    );
    expect(result.error?.type).toBe("cancelled");
    expect(result.error?.message).toMatch(/^command was cancelled after \d+\.\d s$/);
    for (const pid of pids) expect(dead(pid)).toBe(true);
  });

  it("an already aborted signal stops the command at once", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await run({ command: "sleep 100" }, { signal: controller.signal });
    expect(result.error?.type).toBe("cancelled");
  });
});

describe("shell tool: process hygiene", () => {
  it("a leftover background child holding the pipes does not hang the call, and is stopped", async () => {
    // If the call waited for the pipes to close it would outlast the test timeout (sleep 600).
    const result = await run({ command: "sleep 600 & echo pid=$!; echo done" });
    expect(result.error).toBeUndefined();
    expect(result.llmContent).toContain("[processes left running in the background were stopped]");
    const [pid] = pidsIn(data(result).stdout);
    expect(await eventually(() => dead(pid!))).toBe(true);
  });

  it("stdin is closed", async () => {
    const result = await run({ command: 'cat; read x; echo "got:[$x] $?"' });
    expect(data(result).stdout).toBe("got:[] 1\n");
  });

  it("caps output, keeping head and tail", async () => {
    const t = makeTool({ maxOutputBytes: 20_000 });
    const chunks: string[] = [];
    const result = await run(
      { command: "echo BEGIN; head -c 3000000 /dev/zero | tr '\\0' a; echo; echo END" },
      { tool: t, onOutput: (c) => chunks.push(c) },
    );
    const out = data(result).stdout;
    expect(out.startsWith("BEGIN\naaa")).toBe(true);
    expect(out.endsWith("aaa\nEND\n")).toBe(true);
    expect(out).toMatch(/\n\[\.\.\. \d+ bytes omitted \.\.\.\]\n/);
    expect(out.length).toBeLessThan(10_100);
    const streamed = chunks.join("");
    expect(streamed.length).toBeLessThan(20_000 + 200);
    expect(streamed).toContain("[output too long: streaming stopped; the result keeps head and tail]");
  });
});

describe("shell tool environment", () => {
  it("secrets in the parent environment or the host's extras never reach the child", async () => {
    const planted: Record<string, string> = {
      TOOLGATE_TEST_TOKEN: "planted-token-value-1",
      MY_APP_SECRET: "planted-secret-value-2",
      AWS_SECRET_ACCESS_KEY: "planted-aws-value-3",
      EDITOR: "ghp_0123456789abcdefghijABCDEFGHIJplant4",
      http_proxy: "http://user:planted-pass-5@proxy:8080",
    };
    const saved = Object.fromEntries(Object.keys(planted).map((k) => [k, process.env[k]]));
    Object.assign(process.env, planted);
    try {
      const t = makeTool({
        env: {
          GITHUB_TOKEN: "planted-extra-6",
          SOME_VALUE: "sk-proj-planted7abcdefghijklmnop",
          LD_PRELOAD: "/tmp/planted8.so",
          BASH_ENV: "/tmp/planted9",
          NODE_OPTIONS: "--require /tmp/planted10.js",
          SAFE_EXTRA: "visible",
        },
      });
      const out = data(await run({ command: "env" }, { tool: t })).stdout;
      expect(out).not.toMatch(/planted/);
      const vars = new Set(out.split("\n").map((line) => line.split("=")[0]));
      for (const name of ["GITHUB_TOKEN", "LD_PRELOAD", "BASH_ENV", "NODE_OPTIONS", "http_proxy", "EDITOR"]) {
        expect(vars.has(name)).toBe(false);
      }
      expect(out).toContain("SAFE_EXTRA=visible\n");
      expect(out).toContain("PAGER=cat\n");
      expect(out).toContain("GIT_PAGER=cat\n");
      expect(out).toContain("GIT_TERMINAL_PROMPT=0\n");
      expect(out).toMatch(/^PATH=/m);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});
