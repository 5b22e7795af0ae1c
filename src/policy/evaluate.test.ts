import { describe, expect, it } from "vitest";
import type { ArgKind } from "../core/index.js";
import { evaluate } from "./evaluate.js";
import { createRecorder } from "./explain.js";
import { parsePolicy } from "./load.js";
import type { PreparedCall } from "./model.js";
import type { ArgKindPlugin } from "./types.js";

function call(
  name: string,
  args: Record<string, unknown> = {},
  argKinds?: Record<string, ArgKind>,
): PreparedCall {
  return { tool: { name, kind: "other", ...(argKinds ? { argKinds } : {}) }, args, risk: "medium" };
}

describe("evaluate: the decisions", () => {
  const text = `
default = "ask"
[[rules]]
tool = "read_file"
decision = "allow"
[[rules]]
tool = "shell"
decision = "deny"
message = "no shell here"
[[rules]]
tool = "write_file"
decision = "ask"
`;

  it("allow permits the call (no confirmation)", async () => {
    const got = evaluate(await parsePolicy(text, "p.toml"), call("read_file"));
    expect(got).toEqual({
      decision: "allow",
      risk: "medium",
      rule: { id: "p.toml#1", source: "p.toml", index: 1, line: 3 },
      reason: 'rule p.toml#1 (tool "read_file", decision allow) matched',
      matched: [{ id: "p.toml#1", source: "p.toml", index: 1, line: 3 }],
    });
  });

  it("deny blocks the call and carries the rule's message", async () => {
    const got = evaluate(await parsePolicy(text, "p.toml"), call("shell"));
    expect(got.decision).toBe("deny");
    expect(got.message).toBe("no shell here");
  });

  it("ask asks", async () => {
    expect(evaluate(await parsePolicy(text, "p.toml"), call("write_file")).decision).toBe("ask");
  });

  it("no match applies the default", async () => {
    const got = evaluate(
      await parsePolicy(`default = "deny"\n${text.replace('default = "ask"', "")}`, "p.toml"),
      call("x"),
    );
    expect(got).toEqual({
      decision: "deny",
      risk: "medium",
      reason: "no rule matched; default decision deny",
      matched: [],
    });
  });

  it("is a function of its inputs: the same call gives the same decision, synchronously", async () => {
    const policy = await parsePolicy(text, "p.toml");
    const first = evaluate(policy, call("write_file"));
    expect(first).not.toBeInstanceOf(Promise);
    expect(evaluate(policy, call("write_file"))).toEqual(first);
  });
});

describe("evaluate: conditions the argument's kind cannot evaluate never loosen the outcome", () => {
  const text = `
default = "ask"
[[rules]]
tool = "write_file"
decision = "deny"
when.path = { prefix = "secrets/" }
[[rules]]
tool = "read_file"
decision = "allow"
when.path = { prefix = "src/" }
`;

  it("a deny rule whose operator the kind lacks holds", async () => {
    const got = evaluate(
      await parsePolicy(text, "p.toml"),
      call("write_file", { path: "src/a" }, { path: "path" }),
    );
    expect(got.decision).toBe("deny");
  });

  it("an allow rule whose operator the kind lacks fails", async () => {
    const got = evaluate(
      await parsePolicy(text, "p.toml"),
      call("read_file", { path: "src/a" }, { path: "path" }),
    );
    expect(got.decision).toBe("ask");
    expect(got.rule).toBeUndefined();
  });

  it("decides the same with a recorder (which reports the condition as unsupported)", async () => {
    const policy = await parsePolicy(text, "p.toml");
    const c = call("write_file", { path: "src/a" }, { path: "path" });
    const log = createRecorder();
    expect(evaluate(policy, c, log)).toEqual(evaluate(policy, c));
    expect(log.events[1]).toEqual({
      op: "condition",
      rule: "p.toml#1",
      arg: "path",
      operator: "prefix",
      argKind: "path",
      outcome: "unsupported",
    });
  });

  it("a missing argument still fails the deny rule's condition", async () => {
    const got = evaluate(await parsePolicy(text, "p.toml"), call("write_file", {}, { path: "path" }));
    expect(got.decision).toBe("ask");
  });

  it("a condition test that throws is treated like an unsupported one", async () => {
    const throwing: ArgKindPlugin<string> = {
      kind: "url",
      prepare: (raw) => String(raw),
      operators: {
        host: () => () => {
          throw new Error("bug in a plug-in");
        },
      },
    };
    const policy = await parsePolicy(
      `[[rules]]\ntool = "f"\ndecision = "allow"\nwhen.url = { host = "a" }\n[[rules]]\ntool = "g"\ndecision = "deny"\nwhen.url = { host = "a" }`,
      "p.toml",
      { plugins: [throwing as ArgKindPlugin] },
    );
    expect(evaluate(policy, call("f", { url: "x" }, { url: "url" })).decision).toBe("ask");
    expect(evaluate(policy, call("g", { url: "x" }, { url: "url" })).decision).toBe("deny");
  });

  it("an argument named like an Object.prototype member is refused at load", async () => {
    await expect(
      parsePolicy(
        `[[rules]]\ntool = "t"\ndecision = "deny"\nwhen.constructor = { contains = "f" }`,
        "p.toml",
      ),
    ).rejects.toThrow(
      'p.toml:4: rule #1 (tool "t"): when.constructor: argument name "constructor" is reserved',
    );
  });
});

describe("evaluate: the recorder", () => {
  const text = `
[[rules]]
tool = "shell"
decision = "allow"
when.command = { prefix = "git " }
[[rules]]
tool = "*"
decision = "ask"
kind = "edit"
`;

  it("receives each rule considered, each condition, the match and the choice", async () => {
    const policy = await parsePolicy(text, "p.toml");
    const log = createRecorder();
    evaluate(policy, call("shell", { command: "git log" }), log);
    expect(log.events).toEqual([
      { op: "consider", rule: "p.toml#1", level: "tool" },
      {
        op: "condition",
        rule: "p.toml#1",
        arg: "command",
        operator: "prefix",
        argKind: "text",
        outcome: true,
      },
      { op: "match", rule: "p.toml#1", decision: "allow" },
      { op: "consider", rule: "p.toml#2", level: "any" },
      { op: "skip-kind", rule: "p.toml#2", kind: "other" },
      { op: "choose", rule: "p.toml#1", decision: "allow", why: "the strictest matching tool-specific rule" },
    ]);
  });

  it("records a failing condition and the default", async () => {
    const policy = await parsePolicy(text, "p.toml");
    const log = createRecorder();
    const got = evaluate(policy, call("shell", { command: "rm x" }), log);
    expect(got.decision).toBe("ask");
    expect(log.events.slice(1)).toEqual([
      {
        op: "condition",
        rule: "p.toml#1",
        arg: "command",
        operator: "prefix",
        argKind: "text",
        outcome: false,
      },
      { op: "no-match", rule: "p.toml#1" },
      { op: "consider", rule: "p.toml#2", level: "any" },
      { op: "skip-kind", rule: "p.toml#2", kind: "other" },
      { op: "default", decision: "ask" },
    ]);
  });

  it("records a missing argument as missing", async () => {
    const policy = await parsePolicy(text, "p.toml");
    const log = createRecorder();
    evaluate(policy, call("shell", {}), log);
    expect(log.events[1]).toMatchObject({ op: "condition", outcome: "missing" });
  });

  it("gives the same decision with and without a recorder", async () => {
    const policy = await parsePolicy(text, "p.toml");
    const c = call("shell", { command: "git log" });
    expect(evaluate(policy, c, createRecorder())).toEqual(evaluate(policy, c));
  });
});

describe("evaluate: candidate lists", () => {
  it("are memoised per tool name and keep tool-specific rules before * rules", async () => {
    const policy = await parsePolicy(
      `[[rules]]\ntool = "*"\ndecision = "ask"\n[[rules]]\ntool = "mcp__*"\ndecision = "allow"\n[[rules]]\ntool = ["mcp__a", "*"]\ndecision = "allow"\nwhen.x = { equals = "1" }`,
      "p.toml",
    );
    const first = policy.index.candidates("mcp__a");
    expect(policy.index.candidates("mcp__a")).toBe(first);
    expect(first.specific.map((r) => r.ref.id)).toEqual(["p.toml#2", "p.toml#3"]);
    expect(first.any.map((r) => r.ref.id)).toEqual(["p.toml#1"]);
    expect(first.args).toEqual(["x"]);
    const other = policy.index.candidates("shell");
    expect(other.specific).toEqual([]);
    expect(other.any.map((r) => r.ref.id)).toEqual(["p.toml#1", "p.toml#3"]);
  });
});
