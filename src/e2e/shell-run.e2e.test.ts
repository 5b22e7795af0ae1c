/**
 * (spec 002) end to end: each acceptance criterion once through `createToolgate` → `gate.execute` —
 * output and exit code, streaming through `onOutput`, timeouts with the elapsed time, `cwd` inside the root,
 * environment sanitization — and background processes with `shell_processes` and `gate.close()`.
 */
import { existsSync } from "node:fs";
import { lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Toolgate } from "../index.js";
import { tempWorkspace } from "../test-support/cli.js";
import { ALLOW_ALL, openGate } from "./fixtures.js";

let root: string;
let gate: Toolgate;
const PLANTED = "TG_E2E_PLANTED_TOKEN";

beforeAll(async () => {
  root = await tempWorkspace({ "sub/inner.txt": "inner\n" });
  await mkdir(join(root, "..", `${root.split("/").pop()}-out`));
  await symlink(join(root, "..", `${root.split("/").pop()}-out`), join(root, "out-link"));
  // The person's own link, older than any command: the check after a command moves away only links made
  // since a second before it started (src/sandbox/prepare.ts, for file systems that keep whole seconds).
  const made = (await lstat(join(root, "out-link"))).ctimeMs;
  await vi.waitUntil(() => Date.now() - made > 1_100, { timeout: 10_000, interval: 50 });
  process.env[PLANTED] = "planted-in-the-parent";
  gate = await openGate(root, {
    policyText: ALLOW_ALL,
    env: {
      VISIBLE_SETTING: "visible-value",
      MY_API_TOKEN: "tok-123456789",
      DATABASE_URL: "postgres://admin:hunter2@db.internal/app",
      GH_LOOKALIKE: "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
      OPENAI_LIKE: "sk-abcdefghijklmnopqrstuvwx",
      NODE_OPTIONS: "--require /tmp/evil.js",
      LD_PRELOAD: "/tmp/evil.so",
      BASH_ENV: "/tmp/evil.sh",
    },
  });
});
afterAll(async () => {
  delete process.env[PLANTED];
  await gate.close();
  await rm(join(root, "..", `${root.split("/").pop()}-out`), { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
});

/** Processes of group `pgid` that are still running (not zombies), from /proc. */
async function runningInGroup(pgid: number): Promise<number[]> {
  const out: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") out.push(Number(entry));
  }
  return out;
}

const shell = (args: object, options = {}) => gate.execute({ name: "shell", args }, options);

describe("through the pipeline", () => {
  it("returns the output and exit code 0", async () => {
    const result = await shell({ command: "echo hello" });
    expect(result).toMatchObject({ ok: true, decision: "allow", risk: "high" });
    expect(result.llmContent).toBe("hello\n[exit code 0]");
    expect(result.data).toMatchObject({ exitCode: 0, stdout: "hello\n", stderr: "" });
  });

  it("a failing command reports its exit code and stderr, kept apart from stdout", async () => {
    const result = await shell({ command: "echo out; echo err >&2; exit 3" });
    expect(result.error).toMatchObject({
      type: "execution_failed",
      message: "command exited with code 3",
      details: { exitCode: 3, stderr: "err\n" },
    });
    expect(result.llmContent).toBe(
      "Error (execution_failed): out\n[stderr]\nerr\n[command exited with code 3]",
    );
  });

  it("streams output through onOutput while the command still runs", async () => {
    // The command waits for a file that only the onOutput callback creates: it can finish only if the first
    // line arrived before the process ended.
    const chunks: string[] = [];
    const result = await shell(
      { command: "echo one; while [ ! -f go ]; do sleep 0.05; done; echo two", timeout: 20_000 },
      {
        onOutput: (chunk: string) => {
          chunks.push(chunk);
          if (chunk.includes("one")) void writeFile(join(root, "go"), "");
        },
      },
    );
    expect(result.error).toBeUndefined();
    expect(chunks.join("")).toContain("one");
    expect(chunks.join("")).toContain("two");
    expect(result.llmContent).toBe("one\ntwo\n[exit code 0]");
    await rm(join(root, "go"));
  });

  it("a timeout stops the command and says after how long, with the partial output", async () => {
    const result = await shell({ command: "echo partial; sleep 30", timeout: 6000 });
    expect(result.error?.type).toBe("timeout");
    expect(result.error?.message).toMatch(
      /^command timed out after [\d.]+ s \(timeout 6000 ms\); its process group was stopped$/,
    );
    expect(result.error?.details?.elapsedMs).toBeGreaterThanOrEqual(6000);
    expect(result.llmContent).toContain("partial");
  });

  it("an idle timeout stops a command that stopped producing output", async () => {
    const result = await shell({ command: "echo first; sleep 30", idleTimeout: 3000, timeout: 60_000 });
    expect(result.error?.type).toBe("timeout");
    expect(result.error?.message).toMatch(/^command produced no output for 3000 ms and was stopped after /);
  });

  it("runs in a cwd inside the root; refuses one outside, through a symlink too", async () => {
    const inside = await shell({ command: "pwd", cwd: "sub" });
    expect(inside.llmContent).toBe(`${join(root, "sub")}\n[exit code 0]`);
    for (const cwd of ["..", "/tmp", "out-link"]) {
      const result = await shell({ command: "touch escaped.txt", cwd });
      expect(result.error?.type, cwd).toBe("path_not_allowed");
    }
    expect(existsSync(join(root, "..", "escaped.txt"))).toBe(false);
    expect(existsSync(join("/tmp", "escaped.txt"))).toBe(false);
    const missing = await shell({ command: "pwd", cwd: "sub/inner.txt" });
    expect(missing.error).toMatchObject({
      type: "invalid_params",
      message: "cwd is not an existing directory: sub/inner.txt",
    });
  });

  it("secrets planted in the parent or passed by the host never reach the command's env", async () => {
    const result = await shell({ command: "env" });
    const env = (result.data as { stdout: string }).stdout;
    expect(env).toContain("VISIBLE_SETTING=visible-value");
    expect(env).toContain("PAGER=cat");
    expect(env).toContain("GIT_TERMINAL_PROMPT=0");
    for (const secret of [
      PLANTED,
      "planted-in-the-parent",
      "MY_API_TOKEN",
      "tok-123456789",
      "hunter2",
      "ghp_",
      "sk-abc",
      "NODE_OPTIONS",
      "LD_PRELOAD",
      "BASH_ENV",
    ]) {
      expect(env).not.toContain(secret);
    }
  });
});

describe("background processes", () => {
  const processes = (args: object) => gate.execute({ name: "shell_processes", args });
  /** True while the process (or, for a negative id, any process of its group) exists. */
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it("returns at once with an id; list, read and stop work through the pipeline", async () => {
    const started = await shell({ command: "echo started; sleep 300", background: true });
    expect(started.ok).toBe(true);
    const { id, pid } = started.data as { id: string; pid: number };
    expect(started.llmContent).toBe(
      `Started background process ${id} (pid ${pid}; sandbox: workspace-write). Use shell_processes with action "read" or "stop" and id "${id}".`,
    );
    expect((await processes({ action: "list" })).llmContent).toMatch(
      new RegExp(`^${id} \\(pid ${pid}, running [\\d.]+ s\\): echo started; sleep 300$`, "m"),
    );
    let read = await processes({ action: "read", id });
    for (let i = 0; i < 1200 && !read.llmContent.includes("started"); i++) {
      await new Promise((r) => setTimeout(r, 50));
      read = await processes({ action: "read", id });
    }
    expect(read.llmContent).toContain("started");
    const stopped = await processes({ action: "stop", id });
    expect(stopped.llmContent).toMatch(new RegExp(`^${id} \\(pid ${pid}, stopped by SIG(TERM|KILL)\\)`));
    expect(alive(pid)).toBe(false);
    expect((await processes({ action: "read", id: "bg-nope" })).error).toEqual({
      type: "invalid_params",
      message: 'no background process with id "bg-nope"',
      details: { id: "bg-nope" },
    });
  });

  it("gate.close() stops every background process", async () => {
    const other = await openGate(root, { policyText: ALLOW_ALL });
    const pids: number[] = [];
    for (const command of ["sleep 30", "sleep 31 & sleep 32"]) {
      const result = await other.execute({ name: "shell", args: { command, background: true } });
      pids.push((result.data as { pid: number }).pid);
    }
    expect(pids.every(alive)).toBe(true);
    expect((await runningInGroup(pids[1]!)).length).toBeGreaterThanOrEqual(1);
    await other.close();
    // The whole process group is gone: the shells and the sleeps they started (zombies waiting for a reaper
    // that this container's PID 1 may never reap do not count: they no longer run).
    for (const pid of pids) expect(await runningInGroup(pid)).toEqual([]);
  });
});
