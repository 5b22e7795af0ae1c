import { describe, expect, it } from "vitest";
import { evaluate } from "./evaluate.js";
import { createRecorder, filterEvents, renderExplanation } from "./explain.js";
import { parsePolicy } from "./load.js";

const text = `
[[rules]]
tool = "shell"
decision = "allow"
when.command = { prefix = "git " }
[[rules]]
tool = "shell"
decision = "deny"
when.command = { contains = "--force" }
[[rules]]
tool = "*"
decision = "ask"
`;

describe("renderExplanation", () => {
  it("renders every event, conditions nested under their rule", async () => {
    const log = createRecorder();
    evaluate(
      await parsePolicy(text, "p.toml"),
      { tool: { name: "shell", kind: "execute" }, args: { command: "git push --force" }, risk: "high" },
      log,
    );
    expect(renderExplanation(log.events)).toBe(
      [
        "rule p.toml#1 (tool-specific)",
        "  | when.command.prefix on a text argument: holds",
        "  | matched: allow",
        "rule p.toml#2 (tool-specific)",
        "  | when.command.contains on a text argument: holds",
        "  | matched: deny",
        'rule p.toml#3 ("*")',
        "  | matched: ask",
        "decision deny by rule p.toml#2: a matching deny always wins",
      ].join("\n"),
    );
  });

  it("the matches filter keeps only matching rules and the outcome", async () => {
    const log = createRecorder();
    evaluate(
      await parsePolicy(text, "p.toml"),
      { tool: { name: "shell", kind: "execute" }, args: { command: "ls" }, risk: "high" },
      log,
    );
    expect(renderExplanation(log.events, "matches")).toBe(
      [
        'rule p.toml#3 ("*")',
        "  | matched: ask",
        'decision ask by rule p.toml#3: the strictest matching "*" rule (no tool-specific rule matched)',
      ].join("\n"),
    );
    expect(filterEvents(log.events, "full")).toEqual(log.events);
  });

  it("renders the default", async () => {
    const log = createRecorder();
    evaluate(
      await parsePolicy('default = "deny"', "p.toml"),
      { tool: { name: "x", kind: "other" }, args: {}, risk: "low" },
      log,
    );
    expect(renderExplanation(log.events)).toBe("no rule matched: default decision deny");
  });
});
