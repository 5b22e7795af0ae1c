/**
 * The MCP stdio transport starts its server as the leader of a process group: a server's own children die
 * with it, when toolgate closes it and when it crashes on its own. Real processes: the server is a node
 * script that starts a long-lived grandchild and reports its pid.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { ChildStdioTransport } from "./stdio-transport.js";

const SERVER = join(import.meta.dirname, "testdata", "spawns-grandchild.mjs");
const started: number[] = [];

/** True while `pid` is a live process (a zombie, left unreaped by a bare init, counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}

/** Starts the server; resolves with the transport and the grandchild's pid once the server reports it. */
async function startServer(mode: "ignore" | "inherit") {
  const messages: JSONRPCMessage[] = [];
  let closed = false;
  const transport = new ChildStdioTransport({
    command: process.execPath,
    args: [SERVER, mode],
    env: {},
    maxMessageBytes: 1 << 20,
  });
  transport.onmessage = (m) => messages.push(m);
  transport.onclose = () => {
    closed = true;
  };
  await transport.start();
  await until(() => messages.length > 0);
  const pid = (messages[0] as unknown as { params: { pid: number } }).params.pid;
  started.push(pid);
  expect(alive(pid)).toBe(true);
  return { transport, pid, closed: () => closed };
}

afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone, as it should be
    }
  }
});

describe("ChildStdioTransport's process group", () => {
  it("stops the server's children when the server is closed", async () => {
    const { transport, pid, closed } = await startServer("ignore");
    const server = transport.pid!;
    await transport.close();
    expect(alive(server)).toBe(false);
    expect(alive(pid)).toBe(false);
    await until(closed);
  });

  it("stops the server's children when the server crashes on its own, and then reports the close", async () => {
    // The grandchild holds the server's stdout: the transport closes only once it is gone.
    const { transport, pid, closed } = await startServer("inherit");
    await transport.send({ jsonrpc: "2.0", method: "crash" });
    await until(closed);
    expect(alive(pid)).toBe(false);
  });
});
