import { existsSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, tempWorkspace, toolgate } from "../test-support/cli.js";

let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

async function connect(ws: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "--workspace", ws],
    stderr: "pipe",
  });
  client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

describe("toolgate mcp (the binary as an MCP server over stdio)", () => {
  it("lists the registry with annotations from our risk levels, and runs allowed calls", async () => {
    const ws = await tempWorkspace({ "notes.txt": "from the workspace\n" });
    const c = await connect(ws);
    const { tools } = await c.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("read_file")?.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get("shell")?.annotations).toMatchObject({ destructiveHint: true });
    const read = await c.callTool({ name: "read_file", arguments: { path: "notes.txt" } });
    expect(read.isError).toBeFalsy();
    expect(JSON.stringify(read.content)).toContain("from the workspace");
  });

  it("denies an ask with a clear message when the client cannot be asked (no elicitation)", async () => {
    const ws = await tempWorkspace();
    const c = await connect(ws);
    const r = await c.callTool({ name: "write_file", arguments: { path: "x.txt", content: "no" } });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toMatch(/denied/);
    expect(existsSync(join(ws, "x.txt"))).toBe(false);
  });

  it("reports configured servers with mcp list", async () => {
    const ws = await tempWorkspace({
      ".mcp.json": JSON.stringify({
        mcpServers: {
          broken: { command: "/nonexistent/server-binary" },
          nowhere: { command: process.execPath, args: ["-e", ""], cwd: "missing-dir" },
        },
      }),
    });
    const r = await toolgate(["mcp", "list", "--json", "--workspace", ws]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(JSON.stringify(out)).toContain("broken");
    expect(JSON.stringify(out)).toContain("does not exist (cwd in .mcp.json)");
  });
});
