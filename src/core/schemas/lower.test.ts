import { describe, expect, it } from "vitest";
import { defineTool } from "../define-tool.js";
import { ConfigError, okResult } from "../errors.js";
import type { JsonSchema, Tool } from "../types.js";
import { dropStrictNulls, isProviderName, lowerTool, lowerTools, PROVIDER_NAMES } from "./index.js";
import { caseTools, SCHEMA_CASES } from "./testdata/cases.js";

function tool(name: string, parameters: JsonSchema, description = "A tool."): Tool {
  return defineTool({
    name,
    description,
    parameters,
    kind: "other",
    risk: "low",
    run: async () => okResult(""),
  });
}

/** The same schema with every object's keys in reverse order (properties, $defs and `required` too). */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).reverse()) {
    const v = (value as Record<string, unknown>)[key];
    out[key] = key === "required" && Array.isArray(v) ? [...v].reverse() : reversed(v);
  }
  return out;
}

/** Every object schema node reached through properties/items/anyOf/$defs. */
function* nodes(schema: unknown): Generator<Record<string, unknown>> {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return;
  const node = schema as Record<string, unknown>;
  yield node;
  for (const key of ["properties", "$defs"]) {
    const map = node[key];
    if (map && typeof map === "object") for (const s of Object.values(map)) yield* nodes(s);
  }
  if (Array.isArray(node.anyOf)) for (const s of node.anyOf) yield* nodes(s);
  if (node.items && typeof node.items === "object") yield* nodes(node.items);
  if (node.additionalProperties && typeof node.additionalProperties === "object")
    yield* nodes(node.additionalProperties);
}

describe("provider names", () => {
  it("recognizes exactly the five providers", () => {
    expect(PROVIDER_NAMES).toEqual(["openai", "openai-responses", "anthropic", "gemini", "ollama"]);
    for (const name of PROVIDER_NAMES) expect(isProviderName(name)).toBe(true);
    for (const name of ["OpenAI", "claude", "", "openai ", undefined, 3])
      expect(isProviderName(name)).toBe(false);
  });

  it("refuses an unknown provider with a ConfigError listing the valid names", () => {
    expect(() => lowerTools([], "mistral")).toThrow(ConfigError);
    expect(() => lowerTools([], "mistral")).toThrow(
      'unknown provider "mistral": expected one of openai, openai-responses, anthropic, gemini, ollama',
    );
  });
});

describe("lowerTools", () => {
  it("is deterministic: input key order does not change a byte of the payload or the report", () => {
    const shuffled = SCHEMA_CASES.map((c) => ({ ...c, parameters: reversed(c.parameters) as JsonSchema }));
    const reversedTools = caseTools(shuffled).reverse();
    for (const provider of PROVIDER_NAMES) {
      const a = lowerTools(caseTools(), provider);
      const b = lowerTools(reversedTools, provider);
      expect(JSON.stringify(b.tools)).toBe(JSON.stringify(a.tools));
      expect(JSON.stringify(b.report)).toBe(JSON.stringify(a.report));
    }
  });

  it("never changes, freezes or shares the input schemas", () => {
    const tools = caseTools();
    const before = structuredClone(tools.map((t) => t.parameters));
    for (const provider of PROVIDER_NAMES) {
      lowerTools(tools, provider);
      for (const t of tools) expect(Object.isFrozen(t.parameters)).toBe(false);
    }
    expect(tools.map((t) => t.parameters)).toEqual(before);
    const first = tools[0] as Tool;
    const lowered = lowerTool(first, "anthropic");
    expect(lowered.parameters).not.toBe(first.parameters);
    (lowered.parameters.properties as Record<string, unknown>).extra = { type: "string" };
    expect((first.parameters.properties as Record<string, unknown>).extra).toBeUndefined();
  });

  it("sorts tools by name whatever the input order", () => {
    const names = (provider: "anthropic") =>
      (lowerTools(caseTools().reverse(), provider).tools as { name: string }[]).map((t) => t.name);
    expect(names("anthropic")).toEqual(SCHEMA_CASES.map((c) => c.name).sort());
  });

  it("gives Gemini an empty tools array when there are no tools, and one declarations object otherwise", () => {
    expect(lowerTools([], "gemini").tools).toEqual([]);
    const { tools } = lowerTools(caseTools(), "gemini");
    expect(tools).toHaveLength(1);
    expect((tools[0] as { functionDeclarations: unknown[] }).functionDeclarations).toHaveLength(
      SCHEMA_CASES.length,
    );
  });

  it("Gemini schemas use only keywords of Gemini's JSON Schema subset", () => {
    const allowed = new Set([
      "type",
      "title",
      "description",
      "enum",
      "format",
      "items",
      "prefixItems",
      "minItems",
      "maxItems",
      "minimum",
      "maximum",
      "anyOf",
      "properties",
      "additionalProperties",
      "required",
      "$ref",
      "$defs",
    ]);
    const { tools } = lowerTools(caseTools(), "gemini");
    for (const decl of (tools[0] as { functionDeclarations: { parametersJsonSchema: unknown }[] })
      .functionDeclarations)
      for (const node of nodes(decl.parametersJsonSchema))
        for (const key of Object.keys(node))
          expect(allowed, `${key} in ${JSON.stringify(node)}`).toContain(key);
  });

  it("Ollama schemas use only type, description, enum, items, properties and required, and no $ref", () => {
    const allowed = new Set(["type", "description", "enum", "items", "properties", "required"]);
    for (const t of lowerTools(caseTools(), "ollama").tools as { function: { parameters: JsonSchema } }[]) {
      const root = t.function.parameters;
      expect(root.description).toBeUndefined();
      for (const node of nodes(root))
        for (const key of Object.keys(node))
          expect(allowed, `${key} in ${JSON.stringify(node)}`).toContain(key);
    }
  });

  it("strict schemas close every object and require every property", () => {
    const payload = lowerTools(caseTools(), "openai-responses").tools as {
      strict: boolean;
      parameters: unknown;
    }[];
    expect(payload.filter((t) => t.strict).length).toBe(SCHEMA_CASES.length - 1);
    for (const t of payload.filter((p) => p.strict))
      for (const node of nodes(t.parameters)) {
        if (node.type !== "object") continue;
        expect(node.additionalProperties).toBe(false);
        expect(node.required).toEqual(Object.keys(node.properties as object).sort());
      }
  });

  it("reports each keyword it moves, with tool, provider, path and the text it wrote", () => {
    const { report, tools } = lowerTools(caseTools(), "gemini");
    expect(report).toContainEqual({
      tool: "search_web",
      provider: "gemini",
      path: "/properties/limit",
      keyword: "default",
      note: "moved into the description: default: 10",
    });
    expect(report).toContainEqual({
      tool: "search_web",
      provider: "gemini",
      path: "",
      keyword: "$schema",
      note: "dropped: an annotation for tooling, not a constraint",
    });
    const search = (
      tools[0] as { functionDeclarations: { name: string; parametersJsonSchema: JsonSchema }[] }
    ).functionDeclarations.find((d) => d.name === "search_web");
    const props = search?.parametersJsonSchema.properties as Record<string, JsonSchema>;
    expect(props.limit?.description).toBe("(default: 10)");
    expect(props.since?.description).toBe("Only results after this day");
    expect(props.since?.format).toBe("date");
  });

  it("moves root composition into the tool description for every provider", () => {
    const t = tool("pick", {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "string" } },
      oneOf: [{ required: ["a"] }, { required: ["b", "c"] }],
      allOf: [{ properties: { a: { minLength: 2 } } }],
    });
    for (const provider of PROVIDER_NAMES) {
      const lowered = lowerTool(t, provider);
      expect(lowered.description).toBe(
        'A tool. Arguments: give exactly one of: `a`, `b` and `c`; allOf: [{"properties":{"a":{"minLength":2}}}].',
      );
      expect(lowered.parameters.oneOf).toBeUndefined();
      expect(lowered.parameters.allOf).toBeUndefined();
      expect(lowered.report.map((n) => n.keyword)).toEqual(expect.arrayContaining(["allOf", "oneOf"]));
    }
  });

  it("adds type and properties to a bare root", () => {
    for (const provider of PROVIDER_NAMES) {
      const params = lowerTool(tool("bare", {}), provider).parameters;
      expect(params.type).toBe("object");
      expect(params.properties).toEqual({});
    }
  });
});

describe("openai-responses strict mode", () => {
  const blockers: [string, JsonSchema, string, string][] = [
    [
      "open additionalProperties",
      { properties: { m: { type: "object", additionalProperties: true } } },
      "/properties/m",
      "additionalProperties",
    ],
    [
      "a map",
      { properties: { m: { type: "object", additionalProperties: { type: "number" } } } },
      "/properties/m",
      "additionalProperties",
    ],
    [
      "patternProperties",
      { properties: { m: { type: "object", properties: {}, patternProperties: { x: {} } } } },
      "/properties/m",
      "patternProperties",
    ],
    [
      "allOf",
      { properties: { a: { allOf: [{ type: "string" }, { minLength: 1 }] } } },
      "/properties/a",
      "allOf",
    ],
    ["not", { properties: { a: { not: { type: "null" } } } }, "/properties/a", "not"],
    [
      "if/then",
      // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword under test.
      { properties: { a: { if: { type: "string" }, then: { minLength: 1 } } } },
      "/properties/a",
      "if",
    ],
    [
      "tuple items",
      { properties: { a: { type: "array", prefixItems: [{ type: "string" }] } } },
      "/properties/a",
      "prefixItems",
    ],
    ["a free-form nested object", { properties: { o: { type: "object" } } }, "/properties/o", "properties"],
    ["an unconstrained property", { properties: { x: true } }, "/properties/x", "schema"],
    ["an untyped property", { properties: { x: { description: "anything" } } }, "/properties/x", "type"],
    [
      "required names an undeclared property",
      { properties: { a: { type: "string" } }, required: ["a", "b"] },
      "",
      "required",
    ],
    ["external $ref", { properties: { a: { $ref: "https://example.com/s.json" } } }, "/properties/a", "$ref"],
    [
      "propertyNames",
      { properties: { a: { type: "object", properties: {}, propertyNames: { pattern: "^x" } } } },
      "/properties/a",
      "propertyNames",
    ],
  ];
  for (const [label, params, path, keyword] of blockers) {
    it(`falls back to strict:false for ${label}, sending the schema as written`, () => {
      const t = tool("t", { type: "object", ...params });
      const lowered = lowerTool(t, "openai-responses");
      expect(lowered.strict).toBe(false);
      expect(lowered.parameters).toEqual(lowerTool(t, "openai").parameters);
      const blocker = lowered.report.find((n) => n.keyword === keyword && n.path === path);
      expect(blocker?.note).toMatch(/^strict mode not used \(.+\); sent as written with strict: false$/);
      const [payload] = lowerTools([t], "openai-responses").tools as { strict: boolean }[];
      expect(payload?.strict).toBe(false);
    });
  }

  it("falls back when objects nest deeper than 10 levels", () => {
    let inner: JsonSchema = { type: "object", properties: { leaf: { type: "string" } }, required: ["leaf"] };
    for (let i = 0; i < 11; i++) inner = { type: "object", properties: { n: inner }, required: ["n"] };
    expect(lowerTool(tool("deep", inner), "openai-responses").strict).toBe(false);
    let ok: JsonSchema = { type: "object", properties: { leaf: { type: "string" } }, required: ["leaf"] };
    for (let i = 0; i < 8; i++) ok = { type: "object", properties: { n: ok }, required: ["n"] };
    expect(lowerTool(tool("shallow", ok), "openai-responses").strict).toBe(true);
  });

  it("makes optional properties nullable in the form that fits their type", () => {
    const t = tool("opt", {
      type: "object",
      properties: {
        s: { type: "string" },
        e: { type: "string", enum: ["a", "b"] },
        n: { type: ["integer", "null"] },
        o: {
          type: "object",
          description: "An object",
          properties: { x: { type: "string" } },
          required: ["x"],
        },
        arr: { type: "array", items: { type: "string" } },
        ref: { $ref: "#/$defs/d" },
        u: { anyOf: [{ type: "string" }, { type: "integer" }] },
        c: { const: 3 },
      },
      $defs: { d: { type: "string" } },
    });
    const p = lowerTool(t, "openai-responses").parameters.properties as Record<string, JsonSchema>;
    expect(p.s).toEqual({ type: ["string", "null"] });
    expect(p.e).toEqual({ type: ["string", "null"], enum: ["a", "b", null] });
    expect(p.n).toEqual({ type: ["integer", "null"] });
    expect(p.o).toEqual({
      description: "An object",
      anyOf: [
        {
          type: "object",
          properties: { x: { type: "string" } },
          required: ["x"],
          additionalProperties: false,
        },
        { type: "null" },
      ],
    });
    expect(p.arr).toEqual({ anyOf: [{ type: "array", items: { type: "string" } }, { type: "null" }] });
    expect(p.ref).toEqual({ anyOf: [{ $ref: "#/$defs/d" }, { type: "null" }] });
    expect(p.u).toEqual({ anyOf: [{ type: "string" }, { type: "integer" }, { type: "null" }] });
    expect(p.c).toEqual({ type: ["integer", "null"], enum: [3, null] });
  });

  it("moves unsupported narrowing keywords and formats into descriptions, keeping supported ones", () => {
    const t = tool("narrow", {
      type: "object",
      properties: {
        a: { type: "string", description: "Name.", minLength: 2, format: "email", pattern: "^.+@" },
        b: { type: "string", format: "uri" },
        c: { type: "number", multipleOf: 0.5, exclusiveMaximum: 10 },
      },
      required: ["a", "b", "c"],
    });
    const lowered = lowerTool(t, "openai-responses");
    expect(lowered.strict).toBe(true);
    const p = lowered.parameters.properties as Record<string, JsonSchema>;
    expect(p.a).toEqual({
      type: "string",
      description: "Name. (minLength: 2)",
      format: "email",
      pattern: "^.+@",
    });
    expect(p.b).toEqual({ type: "string", description: "(format: uri)" });
    expect(p.c).toEqual({ type: "number", exclusiveMaximum: 10, multipleOf: 0.5 });
  });
});

describe("ollama", () => {
  it("cuts a reference to the root and describes an unresolvable one", () => {
    const t = tool("tree", {
      type: "object",
      properties: {
        child: { $ref: "#", description: "A subtree" },
        other: { $ref: "#/$defs/missing" },
      },
    });
    const { parameters, report } = lowerTool(t, "ollama");
    const p = parameters.properties as Record<string, JsonSchema>;
    expect(p.child).toEqual({
      type: "object",
      description: "A subtree (recursive: same shape as the whole parameter object)",
    });
    expect(p.other).toEqual({ description: "($ref: #/$defs/missing)" });
    expect(report.map((n) => `${n.path} ${n.keyword}`)).toEqual([
      "/properties/child $ref",
      "/properties/other $ref",
    ]);
  });

  it("lowers alternatives it can express exactly and describes the rest", () => {
    const t = tool("alts", {
      type: "object",
      properties: {
        a: { oneOf: [{ type: "string" }, { type: "number" }] },
        b: { anyOf: [{ type: "array", items: { type: "string" } }, { type: "null" }], description: "Tags" },
        c: { anyOf: [{ type: "string", minLength: 1 }, { type: "integer" }] },
      },
    });
    const p = lowerTool(t, "ollama").parameters.properties as Record<string, JsonSchema>;
    expect(p.a).toEqual({ type: ["string", "number"] });
    expect(p.b).toEqual({ type: ["array", "null"], description: "Tags", items: { type: "string" } });
    expect(p.c).toEqual({
      type: ["string", "integer"],
      description: '(anyOf: [{"type":"string","minLength":1},{"type":"integer"}])',
    });
  });

  it("puts the root's own description into the tool description", () => {
    const t = tool("rooted", {
      type: "object",
      description: "Options for the run",
      properties: {},
      minProperties: 1,
    });
    const lowered = lowerTool(t, "ollama");
    expect(lowered.description).toBe("A tool. Arguments: Options for the run; minProperties: 1.");
    expect(lowered.parameters).toEqual({ type: "object", properties: {} });
  });
});

describe("dropStrictNulls", () => {
  const params: JsonSchema = {
    type: "object",
    properties: {
      path: { type: "string" },
      startLine: { type: "integer" },
      note: { type: ["string", "null"] },
      opts: { $ref: "#/$defs/opts" },
      edits: { type: "array", items: { type: "object", properties: { all: { type: "boolean" } } } },
    },
    required: ["path"],
    $defs: { opts: { type: "object", properties: { deep: { type: "boolean" } } } },
  };

  it("removes nulls a strict model sends for optional, non-nullable properties, at any depth", () => {
    expect(
      dropStrictNulls(params, {
        path: "a.txt",
        startLine: null,
        note: null,
        opts: { deep: null },
        edits: [{ all: null }, { all: true }],
      }),
    ).toEqual({ path: "a.txt", note: null, opts: {}, edits: [{}, { all: true }] });
  });

  it("keeps nulls on required properties (validation reports them) and leaves the input alone", () => {
    const args = { path: null, startLine: 3 };
    expect(dropStrictNulls(params, args)).toEqual({ path: null, startLine: 3 });
    expect(args).toEqual({ path: null, startLine: 3 });
  });
});
