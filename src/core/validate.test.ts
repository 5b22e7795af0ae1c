import { describe, expect, it } from "vitest";
import { defineTool } from "./define-tool.js";
import { okResult } from "./errors.js";
import { ParamValidator } from "./validate.js";

const readFile = defineTool({
  name: "read_file",
  description: "Reads a file",
  kind: "read",
  risk: "low",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", minLength: 1 },
      startLine: { type: "integer", minimum: 1 },
      mode: { enum: ["text", "bytes"] },
      edits: {
        type: "array",
        items: { type: "object", properties: { oldText: { type: "string" } }, required: ["oldText"] },
      },
      limit: { type: "integer", default: 10 },
    },
    required: ["path"],
    additionalProperties: false,
  },
  run: async () => okResult(""),
});

describe("ParamValidator", () => {
  it("accepts valid arguments and applies defaults to a copy", () => {
    const v = new ParamValidator();
    const args = { path: "a.txt" };
    const out = v.validate(readFile, args);
    expect(out).toEqual({ ok: true, value: { path: "a.txt", limit: 10 } });
    expect(args).toEqual({ path: "a.txt" });
  });

  it("names each failing parameter in plain words", () => {
    const v = new ParamValidator();
    const out = v.validate(readFile, { startLine: "3", mode: "x", extra: 1, edits: [{}] });
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.problems).toEqual([
      "missing required parameter 'path'",
      "unknown parameter 'extra'",
      "parameter 'startLine' must be an integer",
      'parameter \'mode\' must be one of "text", "bytes"',
      "missing required parameter 'edits[0].oldText'",
    ]);
    expect(out.message).toMatch(/^invalid arguments for read_file: missing required parameter 'path'; /);
  });

  it("reports limits in words", () => {
    const v = new ParamValidator();
    const out = v.validate(readFile, { path: "", startLine: 0 });
    expect(out.ok ? [] : out.problems).toEqual([
      "parameter 'path' must have at least 1 characters",
      "parameter 'startLine' must be >= 1",
    ]);
  });

  it("refuses arguments that are not an object", () => {
    const v = new ParamValidator();
    const out = v.validate(readFile, [1, 2]);
    expect(out.ok ? "" : out.message).toBe("arguments for read_file must be a JSON object, not an array");
  });

  it("compiles lazily, once per tool", () => {
    const v = new ParamValidator();
    const first = v.compile(readFile);
    expect(v.compile(readFile)).toBe(first);
  });

  it("fails closed when a schema passes the meta-schema but does not compile", () => {
    const broken = defineTool({
      name: "broken",
      description: "x",
      kind: "read",
      risk: "low",
      parameters: { type: "object", properties: { a: { $ref: "#/$defs/missing" } } },
      run: async () => okResult("should not run"),
    });
    const v = new ParamValidator();
    expect(v.schemaProblem(broken.parameters)).toBeUndefined();
    const out = v.validate(broken, { a: 1 });
    expect(out.ok).toBe(false);
    expect(out.ok ? "" : out.message).toMatch(/^the parameter schema of broken does not compile: /);
    // The kind says whose fault it is; nobody reads the message to tell.
    expect(out.ok ? undefined : out.type).toBe("invalid_tool");
    const bad = v.validate(readFile, { path: 3 });
    expect(bad.ok ? undefined : bad.type).toBe("invalid_params");
  });
});
