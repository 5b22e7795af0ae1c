/**
 * The program-argument corpus (`shell/testdata/programs/`): under a policy that allow-lists every covered
 * program by its bare name and denies rm and curl, each case of `cases.json` is decided by the real engine
 * with the real tree-sitter analysis: abuses must ask and name their finding in the reason, commands hidden
 * behind programs and wrappers must meet the deny rule, benign invocations must stay allowed. A sample goes
 * through the built binary (`toolgate policy check shell ... --json`) too.
 */
import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool, okResult, type Tool } from "../../../core/index.js";
import { tempWorkspace, toolgate } from "../../../test-support/cli.js";
import { PolicyEngine } from "../../engine.js";
import { parsePolicy } from "../../load.js";
import type { ArgKindPlugin } from "../../types.js";
import { analyzeCommand } from "../analyze.js";
import { createCommandKind } from "../command-kind.js";
import { commandBase } from "../wrappers.js";
import { programs } from "./index.js";

interface Case {
  note: string;
  command: string;
  /** Decided under this one allow rule (`prefix = RULE`) instead of the corpus policy. */
  rule?: string;
  want: { decision: "allow" | "ask" | "deny"; rule?: string; because?: string };
}

const dir = new URL("../testdata/programs/", import.meta.url);
const policyText = readFileSync(new URL("policy.toml", dir), "utf8");
const cases = JSON.parse(readFileSync(new URL("cases.json", dir), "utf8")) as Case[];

const shell = defineTool({
  name: "shell",
  description: "corpus shell",
  parameters: { type: "object", properties: { command: { type: "string" } } },
  kind: "execute",
  risk: "medium",
  argKinds: { command: "command" },
  run: async () => okResult("unused"),
}) as Tool;

let engine: PolicyEngine;
const byRule = new Map<string, PolicyEngine>();
const engineFor = async (text: string) =>
  new PolicyEngine({
    policy: await parsePolicy(text, "policy.toml", { plugins: [createCommandKind() as ArgKindPlugin] }),
    roots: ["/"],
  });
beforeAll(async () => {
  engine = await engineFor(policyText);
  for (const rule of new Set(cases.flatMap((c) => (c.rule === undefined ? [] : [c.rule])))) {
    const text = `default = "ask"\n[[rules]]\ntool = "shell"\ndecision = "allow"\nwhen.command = { prefix = ${JSON.stringify(rule)} }\n`;
    byRule.set(rule, await engineFor(text));
  }
});

describe("program-argument corpus", () => {
  it("holds at least 80 abuses that must ask and 50 benign invocations that must stay allowed", () => {
    expect(cases.filter((c) => c.want.decision === "ask").length).toBeGreaterThanOrEqual(80);
    expect(cases.filter((c) => c.want.decision === "allow").length).toBeGreaterThanOrEqual(50);
    expect(new Set(cases.map((c) => c.note)).size).toBe(cases.length);
  });

  it.each(cases)("$note", async ({ command, rule, want }) => {
    const args = { command };
    const decider = rule === undefined ? engine : byRule.get(rule)!;
    const got = await decider.decide({ tool: shell, invocation: shell.build(args), args, risk: "medium" });
    expect(got.decision).toBe(want.decision);
    if (want.rule !== undefined) expect(got.rule?.id).toBe(want.rule);
    if (want.because !== undefined) expect(got.reason).toContain(want.because);
  });

  it("exercises every program entry of the knowledge, in a case that asks and in one that allows or denies", async () => {
    const seen = new Map<string, Set<string>>();
    for (const c of cases) {
      const analysis = await analyzeCommand(c.command);
      for (const words of analysis.commands) {
        const spec = programs().get(commandBase(words[0] ?? ""));
        if (spec) seen.set(spec.file, (seen.get(spec.file) ?? new Set()).add(c.want.decision));
      }
    }
    const files = [...new Set([...programs().values()].map((s) => s.file))].sort();
    const missing = files.filter((f) => !seen.get(f)?.has("ask"));
    expect(missing).toEqual([]);
  });
});

describe("program-argument corpus through the binary (a sample)", () => {
  let ws: string;
  beforeAll(async () => {
    ws = await tempWorkspace({ ".toolgate/policy.toml": policyText });
  });
  afterAll(() => rm(ws, { recursive: true, force: true }));

  const sample = cases.filter((c, i) => i % 36 === 0 && c.rule === undefined);
  it.each(sample)("$note", async ({ command, want }) => {
    const r = await toolgate(
      ["policy", "check", "shell", JSON.stringify({ command }), "--json", "--workspace", ws],
      { cwd: ws },
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { decision: string; reason: string };
    expect(out.decision).toBe(want.decision);
    if (want.because !== undefined) expect(out.reason).toContain(want.because);
  });
});
