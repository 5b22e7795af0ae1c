import { describe, expect, it } from "vitest";
import type { ToolKind } from "../core/index.js";
import { BUILTIN_RULES, builtinDefaultPolicy } from "./default.js";
import { evaluate } from "./evaluate.js";
import { extendPolicy } from "./load.js";
import type { CompiledPolicy } from "./model.js";
import { TOOL_KINDS } from "./spec.js";

function decide(policy: CompiledPolicy, name: string, kind: ToolKind) {
  return evaluate(policy, { tool: { name, kind }, args: {}, risk: "low" });
}

describe("builtinDefaultPolicy", () => {
  const expected: Record<ToolKind, string> = {
    read: "allow",
    search: "allow",
    think: "allow",
    edit: "ask",
    delete: "ask",
    execute: "ask",
    fetch: "ask",
    coordinate: "ask",
    other: "ask",
  };
  for (const kind of TOOL_KINDS) {
    it(`decides ${expected[kind]} for a ${kind} tool`, async () => {
      const got = decide(await builtinDefaultPolicy(), `some_${kind}_tool`, kind);
      expect(got.decision).toBe(expected[kind]);
      expect(got.rule?.id).toBe(expected[kind] === "allow" ? "builtin#read-only" : undefined);
    });
  }

  it("denies nothing", async () => {
    const policy = await builtinDefaultPolicy();
    for (const kind of TOOL_KINDS) expect(decide(policy, "t", kind).decision).not.toBe("deny");
    expect(policy.defaultDecision).toBe("ask");
  });

  it("gives every built-in rule match and not_match examples", () => {
    for (const rule of BUILTIN_RULES) {
      expect(Array.isArray(rule["match"]) && (rule["match"] as unknown[]).length > 0).toBe(true);
      expect(Array.isArray(rule["not_match"]) && (rule["not_match"] as unknown[]).length > 0).toBe(true);
    }
  });

  it("checks the examples when built (they are part of the compiled rules)", async () => {
    const policy = await builtinDefaultPolicy();
    expect(policy.rules[0]!.spec.match?.length).toBe(3);
    expect(policy.rules[0]!.spec.not_match?.length).toBe(3);
  });
});

describe("the built-in default is never shared or mutated", () => {
  it("each call returns a new policy", async () => {
    const a = await builtinDefaultPolicy();
    const b = await builtinDefaultPolicy();
    expect(a).not.toBe(b);
    expect(a.rules).not.toBe(b.rules);
  });

  it("adding rules to one policy does not change another, nor later defaults", async () => {
    const base = await builtinDefaultPolicy();
    const extended = await extendPolicy(base, [{ tool: "read_file", decision: "deny" }], {
      source: "session",
    });
    expect(decide(extended, "read_file", "read").decision).toBe("deny");
    expect(decide(extended, "read_file", "read").rule?.id).toBe("session#1");
    expect(decide(base, "read_file", "read").decision).toBe("allow");
    expect(base.rules.length).toBe(1);
    expect(decide(await builtinDefaultPolicy(), "read_file", "read").decision).toBe("allow");
  });

  it("refuses in-place changes", async () => {
    const policy = await builtinDefaultPolicy();
    const rules = policy.rules as unknown as unknown[];
    expect(() => rules.push({})).toThrow(TypeError);
    expect(() => {
      (policy.rules[0] as { decision: string }).decision = "deny";
    }).toThrow(TypeError);
    expect(() => {
      (policy.rules[0]!.spec.tool as string[]).push("x");
    }).toThrow(TypeError);
    expect(() => {
      (policy as { defaultDecision: string }).defaultDecision = "allow";
    }).toThrow(TypeError);
    expect(() => {
      (BUILTIN_RULES as unknown[]).push({});
    }).toThrow(TypeError);
    expect(() => {
      (BUILTIN_RULES[0]!["match"] as unknown[]).push({ tool: "shell" });
    }).toThrow(TypeError);
    expect(decide(policy, "shell", "execute").decision).toBe("ask");
  });
});
