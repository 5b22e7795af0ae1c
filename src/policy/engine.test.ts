import { describe, expect, it } from "vitest";
import type { ArgKind, DecisionRequest, RiskLevel, Tool, ToolKind } from "../core/index.js";
import { defineTool, okResult } from "../core/index.js";
import { PolicyEngine } from "./engine.js";
import { createRecorder, renderExplanation } from "./explain.js";
import { parsePolicy } from "./load.js";
import type { ArgKindPlugin, PrepareContext } from "./types.js";

function tool(name: string, kind: ToolKind, risk: RiskLevel, argKinds?: Record<string, ArgKind>): Tool {
  return defineTool({
    name,
    description: `${name} tool`,
    parameters: { type: "object", properties: { path: {}, url: {}, content: {} } },
    kind,
    risk,
    ...(argKinds ? { argKinds } : {}),
    run: async () => okResult("ran"),
  }) as Tool;
}

function request(t: Tool, args: Record<string, unknown>, risk: RiskLevel = t.risk): DecisionRequest {
  return { tool: t, invocation: t.build(args), args, risk };
}

/** A `path` plug-in that records what it prepared and with which context; async like a realpath would be. */
function recordingPathPlugin(seen: { raw: unknown; context: PrepareContext }[]): ArgKindPlugin<string> {
  return {
    kind: "path",
    prepare: async (raw, context) => {
      seen.push({ raw, context });
      return `/root/${String(raw)}`;
    },
    operators: { prefix: (operand) => (value) => value.startsWith(String(operand)) },
  };
}

describe("PolicyEngine", () => {
  it("prepares only the arguments the candidate rules read, through their kinds' plug-ins", async () => {
    const seen: { raw: unknown; context: PrepareContext }[] = [];
    const plugin = recordingPathPlugin(seen) as ArgKindPlugin;
    const policy = await parsePolicy(
      `[[rules]]\ntool = "write_file"\ndecision = "deny"\nwhen.path = { prefix = "/root/secrets/" }`,
      "p.toml",
      { plugins: [plugin] },
    );
    const engine = new PolicyEngine({ policy, plugins: [plugin], roots: ["/root"] });
    const write = tool("write_file", "edit", "medium", { path: "path", url: "path" });
    const got = await engine.decide(request(write, { path: "secrets/k", url: "ignored", content: "x" }));
    expect(got.decision).toBe("deny");
    expect(seen.map((s) => s.raw)).toEqual(["secrets/k"]);
    expect(seen[0]!.context.roots).toEqual(["/root"]);
    expect(seen[0]!.context.args).toEqual({ path: "secrets/k", url: "ignored", content: "x" });
    seen.length = 0;
    await engine.decide(request(tool("read_file", "read", "low", { path: "path" }), { path: "a" }));
    expect(seen).toEqual([]);
  });

  it("fails closed when a plug-in's prepare throws", async () => {
    const broken: ArgKindPlugin<string> = {
      kind: "path",
      prepare: () => {
        throw new Error("realpath exploded");
      },
      operators: { prefix: () => () => true },
    };
    const policy = await parsePolicy(
      `[[rules]]\ntool = "write_file"\ndecision = "allow"\nwhen.path = { prefix = "/" }`,
      "p.toml",
      { plugins: [broken as ArgKindPlugin] },
    );
    const engine = new PolicyEngine({ policy, roots: ["/root"] });
    const got = await engine.decide(
      request(tool("write_file", "edit", "medium", { path: "path" }), { path: "a" }),
    );
    expect(got).toEqual({
      decision: "deny",
      risk: "high",
      reason:
        'argument "path" (path) could not be prepared for the policy: realpath exploded; denied (fail closed)',
      matched: [],
    });
  });

  it("without a plug-in for an argument's kind a rule reads, denies the call naming the plug-in", async () => {
    const policy = await parsePolicy(
      `[[rules]]\ntool = "fetch"\ndecision = "allow"\nwhen.url = { prefix = "https://docs" }`,
      "p.toml",
    );
    const engine = new PolicyEngine({ policy, roots: [] });
    const fetchTool = tool("fetch", "fetch", "medium", { url: "url" });
    const got = await engine.decide(request(fetchTool, { url: "https://docs.example" }));
    expect(got.decision).toBe("deny");
    expect(got.reason).toContain("(pass createUrlKind() in plugins)");
  });

  it("evaluates the rule's conditions against the call's parameters", async () => {
    const policy = await parsePolicy(
      `[[rules]]\ntool = "write_file"\ndecision = "allow"\nwhen.path = { glob = "src/**" }`,
      "p.toml",
    );
    const engine = new PolicyEngine({ policy, roots: [] });
    const write = tool("write_file", "edit", "medium");
    expect((await engine.decide(request(write, { path: "src/a.ts" }))).decision).toBe("allow");
    expect((await engine.decide(request(write, { path: "dist/a.js" }))).decision).toBe("ask");
  });

  it("the decision carries a risk level: the call's, or the rule's", async () => {
    const policy = await parsePolicy(`[[rules]]\ntool = "shell"\ndecision = "ask"\nrisk = "high"`, "p.toml");
    const engine = new PolicyEngine({ policy, roots: [] });
    const grep = tool("grep", "search", "low");
    expect((await engine.decide(request(grep, { pattern: "x" }))).risk).toBe("low");
    expect((await engine.decide(request(grep, { pattern: "x" }, "medium"))).risk).toBe("medium");
    expect((await engine.decide(request(tool("shell", "execute", "medium"), {}))).risk).toBe("high");
  });

  it("explains a decision through a recorder", async () => {
    const policy = await parsePolicy(`[[rules]]\ntool = "shell"\ndecision = "ask"`, "p.toml");
    const engine = new PolicyEngine({ policy, roots: [] });
    const log = createRecorder();
    await engine.decide(request(tool("shell", "execute", "high"), {}), log);
    expect(renderExplanation(log.events)).toBe(
      "rule p.toml#1 (tool-specific)\n  | matched: ask\ndecision ask by rule p.toml#1: the strictest matching tool-specific rule",
    );
  });
});
