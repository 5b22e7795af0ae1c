/**
 * `toolgate mcp` over stdio ending while a shell command runs, the built binary as a real child process: a
 * client that closes stdin, or a SIGTERM (what clients send a server they stop; SIGINT and SIGHUP take the same
 * path), cancels the running call, and the server leaves once its sandbox check has run. Before, a signal
 * killed the process under the command: the check stayed owed and every later command there was refused.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, tempWorkspace, toolgate } from "../test-support/cli.js";

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Waits for `ready()` (state, not the clock): polled every 50 ms. */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((r) => setTimeout(r, 50));
}

/** Starts the server, calls `shell` with a long command, and resolves once the command has begun. */
async function serveRunning(root: string) {
  const child = spawn(process.execPath, [BIN, "mcp"], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  child.stdout!.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const send = (m: unknown) => child.stdin!.write(`${JSON.stringify(m)}\n`);
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "shell", arguments: { command: "touch started && sleep 120" } },
  });
  await until(() => existsSync(join(root, "started")));
  return { child, exited, stdout: () => stdout };
}

describe("toolgate mcp (stdio) ends a running command before it leaves", () => {
  const ends = [
    { how: "stdin closed", end: (c: ChildProcess) => c.stdin!.end(), code: 0 },
    { how: "SIGTERM", end: (c: ChildProcess) => c.kill("SIGTERM"), code: 143 },
  ];
  it.each(ends)(
    "$how: the call is cancelled, the check runs, the next command runs",
    async ({ end, code }) => {
      const root = await tempWorkspace({ ".toolgate/policy.toml": 'default = "allow"\n' }, "tg-mcp-end-");
      dirs.push(root);
      const server = await serveRunning(root);
      end(server.child);
      expect(await server.exited).toBe(code);
      const reply = server
        .stdout()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { id?: number; result?: { content: { text: string }[] } })
        .find((m) => m.id === 2);
      expect(reply?.result?.content[0]?.text).toMatch(/cancelled/);
      // Nothing left owed: the workspace still runs commands.
      const next = await toolgate(["call", "shell", '{"command":"echo still-runs"}', "--yes"], { cwd: root });
      expect(next.stderr).not.toMatch(/ended before the check/);
      expect(next.stdout).toContain("still-runs");
      expect(next.code).toBe(0);
    },
  );
});
