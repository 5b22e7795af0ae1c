/**
 * The expansion corpus (`testdata/expansion/cases.json`): under the program corpus's policy (every covered
 * program allow-listed by its bare name), each command is decided by the real engine and the real
 * analysis in a workspace of real files. Brace and glob words that turn into options ask and name the
 * finding; everyday patterns stay allowed, and the decision carries the command as it will run.
 */
import { readFileSync, rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool, okResult, type Tool } from "../../../core/index.js";
import { type FileTree, tempTree } from "../../../test-support/file-tree.js";
import { PolicyEngine } from "../../engine.js";
import { parsePolicy } from "../../load.js";
import type { ArgKindPlugin } from "../../types.js";
import { createCommandKind } from "../command-kind.js";

interface Case {
  note: string;
  command: string;
  cwd?: string;
  want: { decision: "allow" | "ask" | "deny"; because?: string; runs?: string };
}
const corpus = JSON.parse(
  readFileSync(new URL("../testdata/expansion/cases.json", import.meta.url), "utf8"),
) as { tree: FileTree; cases: Case[] };
const policyText = readFileSync(new URL("../testdata/programs/policy.toml", import.meta.url), "utf8");

const shell = defineTool({
  name: "shell",
  description: "corpus shell",
  parameters: { type: "object", properties: { command: { type: "string" }, cwd: { type: "string" } } },
  kind: "execute",
  risk: "medium",
  argKinds: { command: "command", cwd: "path" },
  run: async () => okResult("unused"),
}) as Tool;

let root: string;
let engine: PolicyEngine;
beforeAll(async () => {
  root = tempTree(corpus.tree, "tg-expand-corpus-");
  const policy = await parsePolicy(policyText, "policy.toml", {
    plugins: [createCommandKind() as ArgKindPlugin],
  });
  engine = new PolicyEngine({ policy, roots: [root] });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("expansion corpus", () => {
  it("holds abuses that ask and everyday patterns that stay allowed", () => {
    expect(corpus.cases.filter((c) => c.want.decision === "ask").length).toBeGreaterThanOrEqual(20);
    expect(corpus.cases.filter((c) => c.want.decision === "allow").length).toBeGreaterThanOrEqual(15);
    expect(new Set(corpus.cases.map((c) => c.note)).size).toBe(corpus.cases.length);
  });

  it.each(corpus.cases)("$note: $command", async ({ command, cwd, want }) => {
    const args = cwd === undefined ? { command } : { command, cwd };
    const got = await engine.decide({ tool: shell, invocation: shell.build(args), args, risk: "medium" });
    expect(got.decision).toBe(want.decision);
    if (want.because !== undefined) expect(got.reason).toContain(want.because);
    if (want.decision === "allow") expect(got.checkedArgs?.["command"]).toBe(want.runs);
    // A denied call runs nothing: it carries no form to run.
    if (want.decision === "deny") expect(got.checkedArgs).toBeUndefined();
  });

  it("a plain command carries no rewrite", async () => {
    const args = { command: "ls -la src" };
    const got = await engine.decide({ tool: shell, invocation: shell.build(args), args, risk: "medium" });
    expect(got).toMatchObject({ decision: "allow" });
    expect(got.checkedArgs).toBeUndefined();
  });
});
