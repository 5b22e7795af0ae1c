import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolResult } from "../../core/index.js";
import { createShellTool } from "../shell.js";
import { type BackgroundInfo, type BackgroundOutput, BackgroundProcesses } from "./background.js";
import { findShell, liveGroupMembers } from "./process-group.js";
import { createShellProcessesTool } from "./shell-processes.js";

let root: string;
let processes: BackgroundProcesses;
const signal = new AbortController().signal;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "toolgate-bg-")));
  processes = new BackgroundProcesses({ killGraceMs: 300 });
});
afterAll(async () => {
  await processes.stopAll();
  await rm(root, { recursive: true, force: true });
});

const shell = () =>
  createShellTool({
    resolveCwd: async () => root,
    roots: [root],
    processes,
    killGraceMs: 300,
    // Host pids are checked below: unsandboxed (src/sandbox/escapes.test.ts covers the sandboxed case).
    sandbox: { mode: "off", network: false, writable: [], hidden: [] },
  });
const companion = () => createShellProcessesTool({ processes });
const call = (params: Parameters<ReturnType<typeof companion>["build"]>[0]) =>
  companion().build(params).run(signal);

async function until<T>(get: () => T | undefined, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = get();
    if (value !== undefined && ok(value)) return value;
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("background processes", () => {
  it("returns at once with an id; read shows output so far; stop ends the whole group", async () => {
    const started: ToolResult = await shell()
      .build({ command: "echo ready; sleep 100 & wait", background: true })
      .run(signal);
    expect(started.error).toBeUndefined();
    const info = started.data as BackgroundInfo;
    expect(info.status).toBe("running");
    expect(started.llmContent).toBe(
      `Started background process ${info.id} (pid ${info.pid}; sandbox: off:config). ` +
        `Use shell_processes with action "read" or "stop" and id "${info.id}".`,
    );

    const output = await until(
      () => processes.read(info.id),
      (o) => o.stdout === "ready\n",
    );
    expect(output.status).toBe("running");
    const read = await call({ action: "read", id: info.id });
    expect(read.llmContent).toMatch(
      new RegExp(`^${info.id} \\(pid ${info.pid}, running \\d+\\.\\d s\\): echo ready`),
    );
    expect(read.llmContent).toContain("\nready");

    const listed = await call({ action: "list" });
    expect(listed.llmContent).toContain(`${info.id} (pid ${info.pid}, running`);

    const stopped = await call({ action: "stop", id: info.id });
    expect((stopped.data as BackgroundOutput).status).toBe("exited");
    expect(stopped.llmContent).toContain("stopped by SIGTERM");
    expect(liveGroupMembers(info.pid!)).toEqual([]);
  });

  it("reports a finished process's exit code", async () => {
    const started = await shell().build({ command: "echo bye; exit 4", background: true }).run(signal);
    const { id } = started.data as BackgroundInfo;
    const done = await until(
      () => processes.read(id),
      (o) => o.status === "exited",
    );
    expect(done).toMatchObject({ exitCode: 4, stdout: "bye\n", status: "exited" });
  });

  it("stopAll stops every running process", async () => {
    const own = new BackgroundProcesses({ killGraceMs: 300 });
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
    const a = own.start({ command: "sleep 100", cwd: root, env, shell: findShell(), maxOutputBytes: 1000 });
    const b = own.start({
      command: "trap '' TERM; sleep 100 & wait",
      cwd: root,
      env,
      shell: findShell(),
      maxOutputBytes: 1000,
    });
    await own.stopAll();
    expect(own.list().map((p) => p.status)).toEqual(["exited", "exited"]);
    expect(liveGroupMembers(a.pid!)).toEqual([]);
    expect(liveGroupMembers(b.pid!)).toEqual([]);
  });

  it("refuses more processes than the limit", () => {
    const own = new BackgroundProcesses({ maxProcesses: 1, killGraceMs: 100 });
    const opts = { command: "sleep 100", cwd: root, env: {}, shell: findShell(), maxOutputBytes: 100 };
    own.start(opts);
    expect(() => own.start(opts)).toThrow("too many background processes (1); stop one first");
    return own.stopAll();
  });

  it.each([
    [{ action: "read", id: "bg999" }, "invalid_params", 'no background process with id "bg999"'],
    [{ action: "stop", id: "nope" }, "invalid_params", 'no background process with id "nope"'],
  ] as const)("unknown id %j", async (params, type, message) => {
    const result = await call(params);
    expect(result.error).toMatchObject({ type, message });
  });

  it("read and stop need an id; risk is low for list/read and medium for stop", () => {
    const t = companion();
    expect(() => t.build({ action: "read" })).toThrow('id is required for action "read"');
    expect(t.build({ action: "list" }).riskFor()).toBe("low");
    expect(t.build({ action: "read", id: "bg1" }).riskFor()).toBe("low");
    expect(t.build({ action: "stop", id: "bg1" }).riskFor()).toBe("medium");
  });
});
