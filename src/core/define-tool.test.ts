/**
 * A declared tool's `build` validates its parameters itself (issue 30, R10.1): a host tool's hooks never see
 * parameters that do not match its schema, whether the pipeline, an adapter or the host calls `build`; the
 * problems are the pipeline's own sentences, and defaults land in a copy.
 */
import { describe, expect, it } from "vitest";
import { defineTool } from "./define-tool.js";
import { okResult, ToolInputError } from "./errors.js";
import { executeCall } from "./execute.js";
import { ToolRegistry } from "./registry.js";

function spiedTool() {
  const seen: [string, unknown][] = [];
  const tool = defineTool<{ count: number; label?: string }>({
    name: "counter",
    description: "Counts",
    kind: "other",
    risk: "low",
    parameters: {
      type: "object",
      properties: { count: { type: "integer", minimum: 0 }, label: { type: "string", default: "n" } },
      required: ["count"],
      additionalProperties: false,
    },
    validate: (p) => {
      seen.push(["validate", p]);
      return p.count > 100 ? "count must be at most 100" : undefined;
    },
    describe: (p) => {
      seen.push(["describe", p]);
      return `count ${p.count}`;
    },
    riskFor: (p) => {
      seen.push(["riskFor", p]);
      return "low";
    },
    run: async (p) => {
      seen.push(["run", p]);
      return okResult(`${p.label}=${p.count}`);
    },
  });
  return { tool, seen };
}

describe("defineTool's build", () => {
  it("refuses parameters that do not match the schema before any hook runs", () => {
    const { tool, seen } = spiedTool();
    const cases: [unknown, string][] = [
      [{ count: "3" }, "parameter 'count' must be an integer"],
      [{}, "missing required parameter 'count'"],
      [{ count: -1 }, "parameter 'count' must be >= 0"],
      [{ count: 1, extra: true }, "unknown parameter 'extra'"],
      [["count"], "arguments for counter must be a JSON object, not an array"],
    ];
    for (const [args, problem] of cases) {
      let thrown: unknown;
      try {
        tool.build(args as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ToolInputError);
      expect((thrown as ToolInputError).type).toBe("invalid_params");
      expect((thrown as ToolInputError).problems).toContain(problem);
    }
    expect(seen).toEqual([]);
  });

  it("applies defaults to a copy and hands the hooks the validated parameters", async () => {
    const { tool, seen } = spiedTool();
    const args = { count: 2 };
    const invocation = tool.build(args);
    expect(args).toEqual({ count: 2 });
    expect(invocation.params).toEqual({ count: 2, label: "n" });
    expect(invocation.describe()).toBe("count 2");
    const result = await invocation.run(new AbortController().signal);
    expect(result.llmContent).toBe("n=2");
    expect(seen).toEqual([
      ["validate", { count: 2, label: "n" }],
      ["describe", { count: 2, label: "n" }],
      ["run", { count: 2, label: "n" }],
    ]);
  });

  it("through the pipeline: the same refusal, as an invalid_params result naming each problem", async () => {
    const { tool, seen } = spiedTool();
    const registry = new ToolRegistry();
    registry.register(tool);
    const decider = {
      decide: async () => ({ decision: "allow" as const, risk: "low" as const, reason: "ok" }),
    };
    const bad = await executeCall({ registry, decider }, { name: "counter", args: { count: "x", extra: 1 } });
    expect(bad.error).toEqual({
      type: "invalid_params",
      message:
        "invalid arguments for counter: unknown parameter 'extra'; parameter 'count' must be an integer",
      details: { problems: ["unknown parameter 'extra'", "parameter 'count' must be an integer"] },
    });
    const semantic = await executeCall({ registry, decider }, { name: "counter", args: { count: 101 } });
    expect(semantic.error).toEqual({
      type: "invalid_params",
      message: "invalid arguments for counter: count must be at most 100",
      details: { problems: ["count must be at most 100"] },
    });
    expect(seen.filter(([hook]) => hook === "run")).toEqual([]);
  });
});
