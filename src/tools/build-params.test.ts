/**
 * `tool.build(params)` called directly, not through the pipeline (issue 30, seed requirement R10.1): every
 * built-in tool validates its parameters with the pipeline's validator and refuses a mismatch with
 * `ToolInputError` (`invalid_params`) before any hook of its declaration sees them. The cases are the data
 * file's (testdata/build-params.json) plus refusals derived from each tool's own schema.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type JsonSchema, type Tool, ToolInputError } from "../core/index.js";
import { type EveryTool, everyTool } from "../test-support/every-tool.js";

interface Refused {
  note: string;
  tool: string;
  args: unknown;
  problem: string;
}
const DATA = JSON.parse(readFileSync(new URL("./testdata/build-params.json", import.meta.url), "utf8")) as {
  valid: Record<string, Record<string, unknown>>;
  refused: Refused[];
};

let every: EveryTool;
let tools: Tool[];
beforeAll(async () => {
  every = await everyTool("tg-build-params-");
  tools = every.tools;
});
afterAll(async () => {
  await every.close();
});

function toolNamed(name: string): Tool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no built-in tool ${name}`);
  return tool;
}

/** What `build` threw, or undefined when it built. */
function refusal(tool: Tool, args: unknown): unknown {
  try {
    tool.build(args as Record<string, unknown>);
    return undefined;
  } catch (error) {
    return error;
  }
}

function expectRefused(tool: Tool, args: unknown, problem: string): void {
  const error = refusal(tool, args);
  const what = `${tool.name} ${JSON.stringify(args)}`;
  // A TypeError here would mean a hook (validate, describe, run) saw the parameters.
  expect(error, what).toBeInstanceOf(ToolInputError);
  expect((error as ToolInputError).type, what).toBe("invalid_params");
  expect((error as ToolInputError).message, what).toContain(problem);
}

/** Values of JSON types a property's declared type does not admit. */
function wrongValues(schema: JsonSchema): unknown[] {
  switch (schema.type) {
    case "string":
      return [42, true, [], {}];
    case "integer":
      return ["1", 1.5, false];
    case "number":
      return ["1", true];
    case "boolean":
      return ["true", 1];
    case "array":
      return ["x", {}];
    case "object":
      return ["x", []];
    default:
      throw new Error(`a property without a single declared type: ${JSON.stringify(schema)}`);
  }
}

describe("tool.build validates like the pipeline, whoever calls it", () => {
  it("has a valid call for every built-in tool, and it builds", () => {
    expect(Object.keys(DATA.valid).sort()).toEqual(tools.map((t) => t.name).sort());
    for (const tool of tools) {
      const args = DATA.valid[tool.name]!;
      expect(refusal(tool, args), tool.name).toBeUndefined();
      // The caller's object is not changed (defaults go into a copy).
      expect(tool.build(args).params).toMatchObject(args);
    }
  });

  it.each(DATA.refused)("refuses $note", ({ tool, args, problem }) => {
    expectRefused(toolNamed(tool), args, problem);
  });

  it("refuses, for every built-in tool: arguments that are not an object, an unknown parameter, each missing required parameter, and a wrong type for each parameter", () => {
    let cases = 0;
    for (const tool of tools) {
      const valid = DATA.valid[tool.name]!;
      for (const notObject of [[], "x", 42]) {
        expectRefused(tool, notObject, "must be a JSON object");
        cases++;
      }
      expectRefused(tool, { ...valid, unknown_parameter: 1 }, "unknown parameter 'unknown_parameter'");
      cases++;
      for (const name of (tool.parameters.required as string[] | undefined) ?? []) {
        const { [name]: _left, ...rest } = valid;
        expectRefused(tool, rest, `missing required parameter '${name}'`);
        cases++;
      }
      const properties = (tool.parameters.properties ?? {}) as Record<string, JsonSchema>;
      for (const [name, schema] of Object.entries(properties)) {
        for (const wrong of wrongValues(schema)) {
          expectRefused(tool, { ...valid, [name]: wrong }, `parameter '${name}' must be`);
          cases++;
        }
      }
    }
    expect(cases).toBeGreaterThan(150);
  });
});
