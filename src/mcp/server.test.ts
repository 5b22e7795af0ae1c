/**
 * toolgate as an MCP server, driven by the SDK's Client over a real stdio child process built from `dist/`.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testServerPath } from "../mcp-client/testdata/servers.js";

const servePath = join(import.meta.dirname, "testdata", "serve.mjs");

interface Connected {
  client: Client;
  elicitations: string[];
}

async function connect(
  root: string,
  options: { elicit?: (message: string) => ElicitResult; pool?: boolean } = {},
): Promise<Connected> {
  const elicitations: string[] = [];
  const client = new Client(
    { name: "test-host", version: "1.0.0" },
    { capabilities: options.elicit ? { elicitation: { form: {} } } : {} },
  );
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const message = String(request.params.message);
      elicitations.push(message);
      return answer(message);
    });
  }
  const args = [servePath, root, ...(options.pool ? ["--pool"] : [])];
  // The test's own user configuration (XDG_CONFIG_HOME, set by the global setup) trusts the temp workspace.
  const env = { ...process.env } as Record<string, string>;
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: "pipe", env }));
  return { client, elicitations };
}

function text(result: Awaited<ReturnType<Client["callTool"]>>): string {
  const first = (result.content as { type: string; text?: string }[])[0];
  return first?.text ?? "";
}

describe("toolgate as an MCP server over stdio", () => {
  let root: string;
  const clients: Client[] = [];
  const open = async (options: Parameters<typeof connect>[1] = {}) => {
    const c = await connect(root, options);
    clients.push(c.client);
    return c;
  };
  // Each child costs a process start: the tests share one client that can elicit (its answer set per
  // test) and one that cannot.
  let answer: ElicitResult = { action: "accept", content: { approve: true } };
  let eliciting: Connected;
  let plain: Connected;
  const elicit = (next: ElicitResult) => {
    answer = next;
    eliciting.elicitations.length = 0;
    return eliciting;
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "toolgate-serve-"));
    await writeFile(join(root, "notes.txt"), "line one\nline two\n");
    await writeFile(
      join(root, ".mcp.json"),
      JSON.stringify({ mcpServers: { t: { command: process.execPath, args: [testServerPath] } } }),
    );
    [eliciting, plain] = await Promise.all([open({ elicit: () => answer }), open()]);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await rm(root, { recursive: true, force: true });
  });

  it("lists the served tools with annotations from our kinds and risk levels", async () => {
    const { client } = plain;
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.note_read?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.note_write?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.note_read?.inputSchema).toMatchObject({ type: "object", required: ["name"] });
    expect(byName.note_read?.description).toBe("Reads a note");
  });

  it("runs an allowed call through the pipeline without asking", async () => {
    const { client, elicitations } = elicit({ action: "accept", content: { approve: true } });
    const result = await client.callTool({ name: "note_read", arguments: { name: "notes.txt" } });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain("line two");
    expect(elicitations).toEqual([]);
  });

  it("turns an ask into an elicitation; approving runs the call", async () => {
    const { client, elicitations } = elicit({ action: "accept", content: { approve: true } });
    const result = await client.callTool({
      name: "note_write",
      arguments: { name: "out.txt", text: "approved" },
    });
    expect(result.isError).toBeFalsy();
    expect(await readFile(join(root, "out.txt"), "utf8")).toBe("approved");
    expect(elicitations).toHaveLength(1);
    expect(elicitations[0]?.split("\n")[0]).toBe("toolgate asks: allow note_write? (risk: medium)");
  });

  it.each([
    ["declines", { action: "decline" } as ElicitResult, "declined in the MCP client"],
    [
      "accepts with approve: false",
      { action: "accept", content: { approve: false } } as ElicitResult,
      "declined in the MCP client",
    ],
    ["cancels", { action: "cancel" } as ElicitResult, "cancelled in the MCP client"],
  ])("denies the call when the person %s", async (_note, reply, reason) => {
    const { client, elicitations } = elicit(reply);
    const result = await client.callTool({ name: "note_write", arguments: { name: "no.txt", text: "x" } });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      `Error (denied_by_policy): note_write was denied: it was not approved: ${reason}`,
    );
    await expect(readFile(join(root, "no.txt"))).rejects.toThrow(/ENOENT/);
    expect(elicitations).toHaveLength(1);
  });

  it("denies an ask with a clear message when the client cannot elicit", async () => {
    const { client } = plain;
    const result = await client.callTool({ name: "note_write", arguments: { name: "no.txt", text: "x" } });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      "Error (denied_by_policy): note_write was denied: it was not approved: this MCP client cannot ask you for approval (it does not support elicitation); allow the tool in .toolgate/policy.toml to use it here",
    );
  });

  it("returns bad arguments as a tool error, and an unknown tool as a protocol error", async () => {
    const { client } = plain;
    const bad = await client.callTool({ name: "note_read", arguments: {} });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toBe(
      "Error (invalid_params): invalid arguments for note_read: missing required parameter 'name'",
    );
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(
      'tool not found: "no_such_tool"',
    );
  });

  it("serves the project's pool with its MCP tools, through the same policy", async () => {
    const { client, elicitations } = await open({
      pool: true,
      elicit: () => ({ action: "accept", content: { approve: true } }),
    });
    const { tools } = await client.listTools();
    const echo = tools.find((t) => t.name === "mcp__t__echo");
    // The upstream listing passes through (see proxy.test.ts), made no looser than the policy: the
    // built-in default asks before an MCP tool runs, so the read-only echo is not advertised as read-only.
    expect(echo?.annotations).toEqual({ readOnlyHint: false, destructiveHint: true });
    expect(tools.some((t) => t.name === "note_read")).toBe(true);
    const result = await client.callTool({ name: "mcp__t__echo", arguments: { text: "via pool" } });
    expect(text(result)).toBe("via pool");
    expect(elicitations).toHaveLength(1);
    expect(elicitations[0]?.split("\n")[0]).toBe("toolgate asks: allow mcp__t__echo? (risk: low)");
  });
});
