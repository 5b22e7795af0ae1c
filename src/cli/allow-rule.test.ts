/**
 * Denial hints replayed (issue 30): every rule a hint suggests for the denied calls of
 * testdata/denial-hints.json is compiled into a policy whose default is deny; it must allow its own call and
 * none of the dangerous calls. Where a call cannot be named exactly (piped into an interpreter, a command the
 * analysis cannot vouch for, a path outside the workspace), no rule is suggested and the reason says why.
 */
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCall, defineTool, okResult, type ToolCall } from "../core/index.js";
import { PolicyEngine, parsePolicy } from "../policy/index.js";
import { tempWorkspace } from "../test-support/cli.js";
import { createToolgate, type Toolgate } from "../toolgate.js";
import { allowRule } from "./allow-rule.js";
import DATA from "./testdata/denial-hints.json" with { type: "json" };

interface Case {
  note: string;
  call: ToolCall;
  when?: string[];
  sandbox?: string;
  refused?: string;
}

let root: string;
let gate: Toolgate;
const cases = () => DATA.denied.map((c) => JSON.parse(JSON.stringify(c).replaceAll("{root}", root)) as Case);

beforeAll(async () => {
  root = await tempWorkspace(
    { "README.md": "# a\n", "src/app.ts": "a\n", "docs/a b.md": "a\n", "notes/x*.txt": "a\n" },
    "tg-allow-rule-",
  );
  await symlink("README.md", join(root, "link.md"));
  await mkdir(join(root, "build"));
  // A host tool whose arguments the policy reads as plain text (as an MCP server's often are).
  const deleteRepo = defineTool({
    name: "mcp__github__delete_repo",
    description: "Deletes a repository",
    kind: "delete",
    risk: "high",
    parameters: {
      type: "object",
      properties: { repo: { type: "string" }, force: { type: "boolean" }, repos: { type: "array" } },
      additionalProperties: false,
    },
    run: async () => okResult("deleted"),
  });
  gate = await createToolgate({ roots: [root], policy: false, tools: [deleteRepo], logger: { warn() {} } });
});
afterAll(async () => {
  await gate?.close();
});

/** The call's outcome under a policy of `rule` alone, default deny: a decision, or the check's error. */
async function under(rule: string, call: ToolCall): Promise<string> {
  const policy = await parsePolicy(`default = "deny"\n\n${rule}\n`, "hint.toml", {
    plugins: gate.policy.plugins,
    roots: gate.roots,
    tools: gate.registry.list(),
  });
  const checked = await checkCall(
    { registry: gate.registry, decider: new PolicyEngine({ policy, roots: gate.roots }) },
    call,
  );
  return checked.ok ? checked.decision.decision : checked.error.type;
}

async function hintFor(call: ToolCall) {
  return allowRule(call, { policy: gate.policy, tool: gate.registry.get(call.name), root });
}

describe("the rule a denial hint suggests", () => {
  it("is replayed over a corpus of denied calls and of dangerous ones", () => {
    expect(DATA.denied.length).toBeGreaterThanOrEqual(30);
    expect(DATA.dangerous.length).toBeGreaterThanOrEqual(25);
  });

  it.each(DATA.denied.map((c) => [c.note]))("%s", async (note) => {
    const c = cases().find((x) => x.note === note)!;
    const hint = await hintFor(c.call);
    if (c.refused !== undefined) {
      expect(hint).toEqual({ refused: expect.stringContaining(c.refused) });
      return;
    }
    if (!("text" in hint)) throw new Error(`no rule for ${note}: ${hint.refused}`);
    const lines = hint.text.split("\n");
    expect(lines.slice(0, 3)).toEqual([
      "[[rules]]",
      `tool = ${JSON.stringify(c.call.name)}`,
      'decision = "allow"',
    ]);
    expect(lines.filter((l) => l.startsWith("when."))).toEqual(c.when);
    expect(lines.filter((l) => l.startsWith("sandbox"))).toEqual(
      c.sandbox ? [`sandbox = "${c.sandbox}"`] : [],
    );
    // It allows the call it was made for...
    expect(await under(hint.text, c.call)).toBe("allow");
    // ...and nothing the person did not ask about.
    const allowed: string[] = [];
    for (const danger of DATA.dangerous as ToolCall[]) {
      if (JSON.stringify(danger) === JSON.stringify(c.call)) continue;
      if ((await under(hint.text, danger)) === "allow") allowed.push(JSON.stringify(danger));
    }
    expect(allowed).toEqual([]);
  });
});
