// The validators it writes are run in src/tools/builtin-schemas.test.ts, through the generated module of the
// built-in tools, against a run-time ajv compile; here, what the written module holds, what a schema's
// validation key keeps, and when a tool gets a precompiled validator.
import { describe, expect, it } from "vitest";
import { BUILTIN_VALIDATORS } from "./builtin-validators.generated.js";
import { defineTool } from "./define-tool.js";
import { okResult } from "./errors.js";
import { standaloneValidators } from "./precompile.js";
import type { JsonSchema } from "./types.js";
import { ParamValidator, validationKey } from "./validate.js";

const a: JsonSchema = { type: "object", properties: { path: { type: "string", minLength: 1 } } };
const b: JsonSchema = { type: "object", properties: { n: { type: "integer", default: 3 } } };

/** The written map's entries, in order: tool name → the number of its validator. */
function entriesOf(source: string): [string, number][] {
  const map = source.slice(source.indexOf("new Map(["));
  return [...map.matchAll(/^ {2}\[("[^"]*"), \{ key: k(\d+), validate: v\d+ \}\],$/gm)].map((m) => [
    JSON.parse(m[1]!) as string,
    Number(m[2]),
  ]);
}

describe("standaloneValidators", () => {
  it("writes one validator per distinct schema, found by tool name, the same text every time", () => {
    const tools = [
      { name: "zeta", parameters: b },
      { name: "alpha", parameters: a },
      // The same schema as alpha's once annotations are left out: it shares alpha's validator.
      {
        name: "beta",
        parameters: {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          ...a,
          description: "reworded",
        } as JsonSchema,
      },
    ];
    const source = standaloneValidators(tools);
    expect(entriesOf(source)).toEqual([
      ["alpha", 0],
      ["beta", 0],
      ["zeta", 1],
    ]);
    expect(source).toContain(`const k0 = ${JSON.stringify(validationKey(a))};`);
    expect(standaloneValidators([...tools].reverse())).toBe(source);
    expect(source).toContain("export const BUILTIN_VALIDATORS");
    // ajv's run-time helpers come through `require`, which the module makes for itself.
    expect(source).toContain("const require = createRequire(import.meta.url);");
  });
});

describe("validationKey", () => {
  it("leaves out annotations at every depth and keeps everything that changes an answer", () => {
    const annotated: JsonSchema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      title: "t",
      description: "d",
      properties: {
        // A parameter may be called `description`: property names are kept.
        description: { type: "string", description: "the text", examples: ["x"] },
        items: { type: "array", items: { type: "string", $comment: "c" }, deprecated: true },
        mode: { enum: ["description", "title"], default: "title" },
      },
      anyOf: [{ required: ["description"], description: "one" }],
      $defs: { d: { type: "integer", description: "n" } },
    };
    const plain: JsonSchema = {
      type: "object",
      properties: {
        description: { type: "string" },
        items: { type: "array", items: { type: "string" } },
        mode: { enum: ["description", "title"], default: "title" },
      },
      anyOf: [{ required: ["description"] }],
      $defs: { d: { type: "integer" } },
    };
    expect(validationKey(annotated)).toBe(validationKey(plain));
    expect(validationKey(plain)).toBe(JSON.stringify(plain));
    for (const changed of [
      { ...plain, required: ["description"] },
      { ...plain, properties: { ...(plain.properties as object), mode: { enum: ["description"] } } },
      { ...plain, $defs: { d: { type: "string" } } },
    ])
      expect(validationKey(changed as JsonSchema)).not.toBe(validationKey(plain));
  });
});

describe("a built-in tool's precompiled validator", () => {
  const [name, entry] = [...BUILTIN_VALIDATORS.entries()][0]!;
  const tool = (parameters: JsonSchema) =>
    defineTool({
      name,
      description: "x",
      kind: "read",
      risk: "low",
      parameters,
      run: async () => okResult(""),
    });
  const schema = JSON.parse(entry.key) as JsonSchema;

  it("serves a tool of that name while its schema validates the same, reworded descriptions and all", () => {
    const reworded = {
      ...schema,
      description: "reworded",
      $schema: "https://json-schema.org/draft/2020-12/schema",
    };
    expect(new ParamValidator().compile(tool(reworded))).toBe(entry.validate);
  });

  it("does not serve a tool of that name whose schema changed: ajv compiles the new one", () => {
    const changed = {
      type: "object",
      properties: { only: { type: "string" } },
      required: ["only"],
    } as JsonSchema;
    const fn = new ParamValidator().compile(tool(changed));
    expect(fn).toBeTypeOf("function");
    expect(fn).not.toBe(entry.validate);
    const out = new ParamValidator().validate(tool(changed), {});
    expect(out.ok ? "" : out.message).toMatch(/only/);
  });
});
