import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, defineTool, okResult } from "../core/index.js";
import { evaluate } from "./evaluate.js";
import { extendPolicy, loadPolicyFile, parsePolicy } from "./load.js";
import { standInCommandPlugin } from "./testdata/plugins.js";
import { validateAgainstTools } from "./tools-check.js";
import type { ArgKindPlugin } from "./types.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolgate-policy-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function rejection(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

const shellTool = defineTool({
  name: "sh",
  description: "runs a command",
  parameters: { type: "object", properties: { command: { type: "string" } } },
  kind: "execute",
  risk: "high",
  argKinds: { command: "command" },
  run: async () => okResult(""),
});

describe("loadPolicyFile", () => {
  it("reads a file: ids use the file name, the source is the path, rules know their line", async () => {
    const path = join(dir, "policy.toml");
    await writeFile(
      path,
      '# comment\ndefault = "deny"\n\n[[rules]]\ntool = "read_file"\ndecision = "allow"\n\n[[rules]]\nname = "shell-ask"\ntool = "shell"\ndecision = "ask"\n',
    );
    const policy = await loadPolicyFile(path);
    expect(policy.source).toBe(path);
    expect(policy.defaultDecision).toBe("deny");
    expect(policy.rules.map((r) => [r.ref.id, r.ref.source, r.ref.index, r.line])).toEqual([
      ["policy.toml#1", path, 1, 4],
      ["policy.toml#shell-ask", path, 2, 8],
    ]);
  });

  it("refuses a missing file", async () => {
    const path = join(dir, "nope.toml");
    const error = await rejection(loadPolicyFile(path));
    expect(error.message).toBe(`${path}: cannot read policy file: no such file`);
    expect(error.file).toBe(path);
  });

  it("refuses a file that does not parse, naming the file, line and column", async () => {
    const path = join(dir, "broken.toml");
    await writeFile(path, '[[rules]]\ntool = "a"\ndecision = allow\n');
    const error = await rejection(loadPolicyFile(path));
    expect(error.message).toMatch(
      new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3:\\d+: invalid TOML: `),
    );
  });

  it("loads an empty file as: no rules, default ask", async () => {
    const policy = await parsePolicy("", "empty.toml");
    expect(policy.rules).toEqual([]);
    expect(policy.defaultDecision).toBe("ask");
  });

  it("refuses rules written inline as an array with the rule number but no line", async () => {
    const error = await rejection(parsePolicy('rules = [{ tool = "a", decision = "nope" }]', "p.toml"));
    expect(error.message).toBe(
      'p.toml: rule #1 (tool "a"): decision must be one of "allow", "ask", "deny", got "nope"',
    );
  });
});

describe("examples with known tools", () => {
  const text =
    '[[rules]]\ntool = "sh"\ndecision = "allow"\nwhen.command = { prefix = "git status" }\nmatch = { args = { command = "git status $(x)" } }\nnot_match = { args = { command = "git push" } }\n';
  const plugins = [standInCommandPlugin as ArgKindPlugin];

  it("are prepared with the tool's argument kinds; a condition answering ask still matches", async () => {
    await expect(parsePolicy(text, "p.toml", { plugins, tools: [shellTool] })).resolves.toBeDefined();
  });

  it("without the tools, argument kinds are inferred from the operators' plug-ins", async () => {
    await expect(parsePolicy(text, "p.toml", { plugins })).resolves.toBeDefined();
  });
});

describe("validateAgainstTools", () => {
  it("refuses an operator the named tool's argument kind does not support", async () => {
    const policy = await parsePolicy(
      '[[rules]]\ntool = "sh"\ndecision = "deny"\nwhen.command = { contains = "rm" }',
      "p.toml",
      {
        plugins: [standInCommandPlugin as ArgKindPlugin],
      },
    );
    expect(() => validateAgainstTools(policy, [shellTool])).toThrow(
      'p.toml:1: rule #1 (tool "sh"): when.command.contains: operator "contains" does not fit argument "command" of tool "sh" (a command argument)',
    );
    expect(() => validateAgainstTools(policy, [])).not.toThrow();
  });

  it("refuses a condition on an argument whose kind has no plug-in, naming the kind (it would never match)", async () => {
    const text = '[[rules]]\ntool = "sh"\ndecision = "allow"\nwhen.command = { prefix = "git" }';
    const error = await rejection(parsePolicy(text, "p.toml", { tools: [shellTool] }));
    expect(error.message).toBe(
      'p.toml:1: rule #1 (tool "sh"): when.command: argument "command" of tool "sh" is a command argument, and the policy was loaded without the command plug-in (pass createCommandKind() in plugins)',
    );
    const policy = await parsePolicy(text, "p.toml", { plugins: [standInCommandPlugin] });
    expect(() => validateAgainstTools(policy, [shellTool])).not.toThrow();
  });

  it("accepts operators the argument's kind supports", async () => {
    const policy = await parsePolicy(
      '[[rules]]\ntool = "sh"\ndecision = "deny"\nwhen.command = { prefix = "rm" }',
      "p.toml",
      {
        plugins: [standInCommandPlugin as ArgKindPlugin],
      },
    );
    expect(() => validateAgainstTools(policy, [shellTool])).not.toThrow();
  });
});

describe("extendPolicy", () => {
  it("returns a new policy with the rules appended; the base is unchanged", async () => {
    const base = await parsePolicy('[[rules]]\ntool = "sh"\ndecision = "ask"', "p.toml");
    const more = await extendPolicy(base, [{ tool: "sh", decision: "deny", message: "no" }], {
      source: "session",
    });
    const call = { tool: { name: "sh", kind: "execute" as const }, args: {}, risk: "high" as const };
    expect(evaluate(base, call).decision).toBe("ask");
    expect(evaluate(more, call)).toMatchObject({
      decision: "deny",
      rule: { id: "session#1" },
      message: "no",
    });
    expect(more.rules[0]).toBe(base.rules[0]);
  });

  it("validates added rules like a file's", async () => {
    const base = await parsePolicy("", "p.toml");
    const error = await rejection(
      extendPolicy(base, [{ tool: "sh", decision: "deny", wen: {} }], { source: "session" }),
    );
    expect(error.message).toBe(
      'session: rule #1 (tool "sh"): unknown key "wen" (allowed: "tool", "decision", "when", "risk", "message", "kind", "name", "match", "not_match", "sandbox")',
    );
  });
});
