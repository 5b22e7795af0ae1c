/**
 * A reviewer's hunt for fail-open paths in the policy and the pipeline, through `createToolgate` as a host
 * builds it: arguments the policy cannot read, deciders and tools that misbehave, policy files that say less
 * than they seem to. Each case failed (ran the call, or crashed) before its fix.
 */
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConfirmationDetails, Tool, ToolInvocation } from "../core/index.js";
import { defineTool, executeCall, okResult, ToolRegistry } from "../core/index.js";
import { parsePolicy } from "../policy/index.js";
import { createToolgate } from "../toolgate.js";

let root: string;
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "tg-review-policy-")));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** A tool whose `query` accepts any JSON value (as many MCP servers' schemas do); records what ran. */
function queryTool(ran: unknown[]): Tool {
  return defineTool<{ query: unknown }>({
    name: "db_query",
    description: "Runs a query",
    parameters: { type: "object", properties: { query: {} }, required: ["query"] },
    kind: "execute",
    risk: "medium",
    run: async ({ query }) => {
      ran.push(query);
      return okResult("ran");
    },
  });
}

/** An edit tool whose invocation is patched by `patch`; records whether it ran. */
function actTool(ran: string[], patch: (invocation: ToolInvocation) => ToolInvocation): Tool {
  const base = defineTool({
    name: "act",
    description: "Acts",
    parameters: { type: "object", properties: {} },
    kind: "edit",
    risk: "medium",
    run: async () => {
      ran.push("act");
      return okResult("done");
    },
  });
  return { ...base, build: (params) => patch(base.build(params)) };
}

describe("a condition on an argument the policy cannot read as text", () => {
  const DENY_DROP = `default = "allow"

[[rules]]
tool = "db_query"
decision = "deny"
when.query = { contains = "DROP" }
message = "no DROP"
`;
  const ALLOW_SELECT = `default = "deny"

[[rules]]
tool = "db_query"
decision = "allow"
when.query = { prefix = "SELECT" }
`;

  it.each([
    ["a string", "DROP TABLE users"],
    ["an array", ["DROP TABLE users"]],
    ["an object", { sql: "DROP TABLE users" }],
  ])("still fires a deny rule when the value is %s", async (_note, query) => {
    const ran: unknown[] = [];
    const gate = await createToolgate({
      roots: [root],
      builtins: false,
      tools: [queryTool(ran)],
      policyText: DENY_DROP,
    });
    const result = await gate.execute({ name: "db_query", args: { query } });
    expect(result.decision).toBe("deny");
    expect(result.error?.message).toBe("db_query was denied: no DROP");
    expect(ran).toEqual([]);
  });

  it("never lets an allow rule vouch for an array or object, and still allows plain text it names", async () => {
    const ran: unknown[] = [];
    const gate = await createToolgate({
      roots: [root],
      builtins: false,
      tools: [queryTool(ran)],
      policyText: ALLOW_SELECT,
    });
    const decisions = [];
    for (const query of ["SELECT 1", ["SELECT 1"], { q: "SELECT 1" }]) {
      decisions.push((await gate.execute({ name: "db_query", args: { query } })).decision);
    }
    expect(decisions).toEqual(["allow", "deny", "deny"]);
    expect(ran).toEqual(["SELECT 1"]);
  });

  it("explains the unreadable argument as unsupported, not missing", async () => {
    const gate = await createToolgate({
      roots: [root],
      builtins: false,
      tools: [queryTool([])],
      policyText: DENY_DROP,
    });
    const checked = await gate.check({ name: "db_query", args: { query: ["x"] } }, { explain: true });
    expect(checked.ok && checked.decision.decision).toBe("deny");
    expect(checked.explanation).not.toMatch(/missing/);
  });
});

describe("a decider or tool that misbehaves fails closed, with a result (never a crash, never a run)", () => {
  it.each([
    ["a wrongly cased decision", { decision: "Allow", risk: "low", reason: "x" }],
    ["no decision", { risk: "low", reason: "x" }],
    ["null", null],
  ])("a decider answering %s denies the call", async (_note, answer) => {
    const ran: string[] = [];
    const registry = new ToolRegistry();
    registry.register(actTool(ran, (i) => i));
    const result = await executeCall(
      { registry, decider: { decide: async () => answer as never } },
      { name: "act", args: {} },
    );
    expect(result.ok).toBe(false);
    expect(result.decision).toBe("deny");
    expect(result.error?.type).toBe("denied_by_policy");
    expect(result.error?.message).toMatch(/^act was denied: the policy gave no valid decision/);
    expect(ran).toEqual([]);
  });

  it("a tool whose confirmation details throw is denied, audited, and never run", async () => {
    const ran: string[] = [];
    const records: { outcome: string }[] = [];
    const tool = actTool(ran, (i) => ({
      ...i,
      confirmation: async () => {
        throw new Error("diff failed");
      },
    }));
    const gate = await createToolgate({
      roots: [root],
      builtins: false,
      tools: [tool],
      policyText: 'default = "ask"',
      audit: { write: (r) => void records.push(r as { outcome: string }) },
    });
    gate.bus.onConfirmation(() => ({ approved: true }));
    const result = await gate.execute({ name: "act", args: {} });
    expect(result.error).toEqual({
      type: "denied_by_policy",
      message: "act was denied: its confirmation could not be prepared (diff failed)",
    });
    expect(ran).toEqual([]);
    expect(records.map((r) => r.outcome)).toEqual(["denied_by_policy"]);
  });

  it("a tool whose risk throws is an error result for execute and check alike", async () => {
    const ran: string[] = [];
    const tool = actTool(ran, (i) => ({
      ...i,
      riskFor: () => {
        throw new Error("risk failed");
      },
    }));
    const gate = await createToolgate({
      roots: [root],
      builtins: false,
      tools: [tool],
      policyText: 'default = "allow"',
    });
    const result = await gate.execute({ name: "act", args: {} });
    expect(result.error).toEqual({
      type: "invalid_tool",
      message: "act could not prepare the call: risk failed",
    });
    expect(await gate.check({ name: "act", args: {} })).toEqual({
      ok: false,
      error: { type: "invalid_tool", message: "act could not prepare the call: risk failed" },
    });
    expect(ran).toEqual([]);
  });
});

describe("policy files that say less than they seem to", () => {
  it("refuses an empty when table (it would make an allow rule unconditional)", async () => {
    await expect(
      parsePolicy('[[rules]]\ntool = "shell"\ndecision = "allow"\nwhen = {}\n', "p.toml"),
    ).rejects.toThrow(
      'p.toml:4: rule #1 (tool "shell"): when has no conditions (remove it, or add one, e.g. when.path = { glob = "src/**" })',
    );
  });
});

describe("what a person is asked to approve is what will run", () => {
  const SPOOF = "a.txt\n\u001b[1A\u001b[2K  affects: nothing (read-only)\u202e";

  it("writes out line breaks, escape sequences and bidi controls from the arguments", async () => {
    const gate = await createToolgate({ roots: [root], policy: false });
    const seen: ConfirmationDetails[] = [];
    gate.bus.onConfirmation((request) => {
      seen.push(request.details);
      return { approved: false };
    });
    await gate.execute({ name: "write_file", args: { path: SPOOF, content: "x\n" } });
    await gate.execute({ name: "web_fetch", args: { url: "https://example.com/\u001b[2Kx" } });
    expect(seen.map((d) => d.description)).toEqual([
      "Write a.txt\\n\\x1b[1A\\x1b[2K  affects: nothing (read-only)<U+202E>",
      "Fetch https://example.com/\\x1b[2Kx",
    ]);
    expect(seen[0]!.locations).toEqual([
      `${root}/a.txt\\n\\x1b[1A\\x1b[2K  affects: nothing (read-only)<U+202E>`,
    ]);
    // A diff keeps its lines but none of the hidden characters.
    expect(seen[0]!.diff).toContain("\n+x\n");
    expect(seen[0]!.diff).not.toMatch(/[\u001b\u202e]/);
    expect(seen[0]!.diff).toContain("\\x1b[2K");
  });
});
