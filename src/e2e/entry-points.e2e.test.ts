/**
 * STYLE §13's shared contract suite: the library (`gate.execute`), the binary (`toolgate call --json`) and the
 * MCP server (`toolgate mcp` driven by the SDK's client) run the same calls through the one pipeline — same
 * decision, same error type and message, same audit record, and nothing runs that the policy refused.
 */
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, tempWorkspace, toolgate } from "../test-support/cli.js";
import { type CliCallOutput, jsonLines, openGate } from "./fixtures.js";

const POLICY = `default = "ask"

[[rules]]
tool = ["read_file", "ls"]
decision = "allow"

[[rules]]
tool = "shell"
decision = "deny"
message = "no shell here"

[[rules]]
tool = ["write_file", "edit_file"]
decision = "deny"
when.path = { glob = "secrets/**" }
message = "secrets are read-only"

[[rules]]
tool = "write_file"
decision = "allow"
when.path = { glob = ".mcp.json" }
`;

interface Case {
  note: string;
  name: string;
  args: unknown;
  decision: string | null;
  error: { type: string; message: string } | null;
}

const CASES: Case[] = [
  { note: "allowed read", name: "read_file", args: { path: "notes.txt" }, decision: "allow", error: null },
  {
    note: "denied by a rule",
    name: "shell",
    args: { command: "touch pwned" },
    decision: "deny",
    error: { type: "denied_by_policy", message: "shell was denied: no shell here" },
  },
  {
    note: "denied by a path condition",
    name: "write_file",
    args: { path: "secrets/new.txt", content: "x" },
    decision: "deny",
    error: { type: "denied_by_policy", message: "write_file was denied: secrets are read-only" },
  },
  {
    note: "ask with nobody to answer",
    name: "write_file",
    args: { path: "asked.txt", content: "x" },
    decision: "ask",
    error: { type: "denied_by_policy", message: expect.stringMatching(/^write_file was denied: /) },
  },
  {
    note: "allowed by the policy, refused as protected",
    name: "write_file",
    args: { path: ".mcp.json", content: "{}", overwrite: true },
    decision: "allow",
    error: {
      type: "path_not_allowed",
      message: 'path ".mcp.json" is protected and cannot be written by file tools (protected: .mcp.json)',
    },
  },
  {
    note: "invalid arguments",
    name: "read_file",
    args: { path: 1 },
    decision: null,
    error: {
      type: "invalid_params",
      message: "invalid arguments for read_file: parameter 'path' must be a string",
    },
  },
  {
    note: "tool failure",
    name: "read_file",
    args: { path: "missing.txt" },
    decision: "allow",
    error: { type: "file_not_found", message: "file not found: missing.txt" },
  },
];

let ws: string;
const audit = async () =>
  (await readFile(join(ws, ".toolgate/audit.jsonl"), "utf8").catch(() => ""))
    .split("\n")
    .filter(Boolean)
    .map(
      (line) => JSON.parse(line) as { tool: string; decision: string | null; rule: string; outcome: string },
    );
const auditRow = (c: Case) => [c.name, c.decision, c.error?.type ?? "ok"];
const untouched = async () => {
  expect(existsSync(join(ws, "pwned"))).toBe(false);
  expect(existsSync(join(ws, "asked.txt"))).toBe(false);
  expect(existsSync(join(ws, "secrets/new.txt"))).toBe(false);
  expect(await readFile(join(ws, ".mcp.json"), "utf8")).toBe('{"mcpServers":{}}\n');
};

beforeAll(async () => {
  ws = await tempWorkspace({
    "notes.txt": "alpha\nbeta\n",
    ".mcp.json": '{"mcpServers":{}}\n',
    ".toolgate/policy.toml": POLICY,
    ".toolgate/config.toml": '[audit]\nfile = ".toolgate/audit.jsonl"\n',
  });
});
afterAll(() => rm(ws, { recursive: true, force: true }));

describe("every entry point goes through the one pipeline", () => {
  const library: Record<string, { llmContent: string }> = {};

  it("library: gate.execute", async () => {
    const gate = await openGate(ws);
    const start = (await audit()).length;
    for (const c of CASES) {
      const result = await gate.execute({ name: c.name, args: c.args });
      expect({ decision: result.decision, error: result.error ?? null }, c.note).toEqual({
        decision: c.decision,
        error: c.error === null ? null : expect.objectContaining(c.error),
      });
      library[c.note] = result;
    }
    await gate.close();
    expect((await audit()).slice(start).map((r) => [r.tool, r.decision, r.outcome])).toEqual(
      CASES.map(auditRow),
    );
    await untouched();
  });

  it("CLI: toolgate call --json, one call per process and a batch", async () => {
    const start = (await audit()).length;
    const single = await toolgate([
      "call",
      "shell",
      '{"command":"touch pwned"}',
      "--json",
      "--workspace",
      ws,
    ]);
    expect(single.code).toBe(3);
    expect(JSON.parse(single.stdout)).toMatchObject({ decision: "deny", error: CASES[1]!.error });
    const input = CASES.map((c) => JSON.stringify({ name: c.name, args: c.args })).join("\n");
    const batch = await toolgate(["call", "--batch", "-", "--json", "--workspace", ws], { input });
    expect(batch.code).toBe(2); // the worst: invalid arguments
    const lines = jsonLines<CliCallOutput>(batch.stdout);
    expect(lines).toHaveLength(CASES.length);
    CASES.forEach((c, i) => {
      expect({ decision: lines[i]!.decision, error: lines[i]!.error }, c.note).toEqual({
        decision: c.decision,
        error: c.error,
      });
      expect(lines[i]!.llmContent, c.note).toBe(library[c.note]?.llmContent);
    });
    const rows = (await audit()).slice(start).map((r) => [r.tool, r.decision, r.outcome]);
    expect(rows).toEqual([auditRow(CASES[1]!), ...CASES.map(auditRow)]);
    await untouched();
  });

  it("MCP: toolgate mcp over stdio, a client without elicitation", async () => {
    const start = (await audit()).length;
    const client = new Client({ name: "e2e-host", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, "mcp", "--workspace", ws],
        cwd: ws,
        stderr: "pipe",
        // The test's user configuration (XDG_CONFIG_HOME, from the global setup) trusts the workspace.
        env: { ...process.env } as Record<string, string>,
      }),
    );
    try {
      for (const c of CASES) {
        const result = await client.callTool({ name: c.name, arguments: c.args as Record<string, unknown> });
        const text = (result.content as { type: string; text: string }[])[0]?.text;
        expect(text, c.note).toEqual(
          c.note === "ask with nobody to answer"
            ? expect.stringMatching(/^Error \(denied_by_policy\): write_file was denied: /)
            : library[c.note]?.llmContent,
        );
        expect(result.isError ?? false, c.note).toBe(c.error !== null);
      }
      await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow(
        'tool not found: "nope"',
      );
    } finally {
      await client.close();
    }
    const rows = (await audit()).slice(start).map((r) => [r.tool, r.decision, r.outcome]);
    expect(rows).toEqual([...CASES.map(auditRow), ["nope", null, "tool_not_found"]]);
    await untouched();
  });
});
