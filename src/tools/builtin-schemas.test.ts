/**
 * The built-in tools' schemas. The gate registers them without the meta-schema check (it costs start-up
 * time): this is that check. And their validators are precompiled (`core/builtin-validators.generated.ts`,
 * so a call to a built-in tool loads no ajv; src/generated.test.ts keeps it current, `npm run generate`
 * rewrites it): every built-in tool uses it, and it answers exactly as ajv compiling the same schema at run
 * time.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_VALIDATORS } from "../core/builtin-validators.generated.js";
import { ParamValidator, type Tool } from "../core/index.js";
import type { JsonSchema } from "../core/types.js";
import { COMPILE_OPTIONS } from "../core/validate.js";
import { type AllBuiltinTools, allBuiltinTools } from "../test-support/builtin-tools.js";
import { seededRandom } from "../utils/index.js";

let builtins: AllBuiltinTools;
beforeAll(async () => {
  builtins = await allBuiltinTools();
});
afterAll(async () => {
  await builtins.close();
});

describe("built-in tool schemas", () => {
  it("covers every built-in tool, the optional ones included", () => {
    const names = builtins.tools.map((t) => t.name);
    for (const name of ["read_file", "grep", "shell", "web_fetch", "jira_fetch", "confluence_fetch"]) {
      expect(names).toContain(name);
    }
  });

  it("gives every built-in tool a schema valid against the JSON Schema 2020-12 meta-schema, which compiles", () => {
    const validator = new ParamValidator();
    for (const tool of builtins.tools as Tool[]) {
      expect({ tool: tool.name, problem: validator.schemaProblem(tool.parameters) }).toEqual({
        tool: tool.name,
        problem: undefined,
      });
      expect(validator.compile(tool)).toBeTypeOf("function");
    }
  });

  it("still refuses an invalid schema where the meta-schema check runs", () => {
    const validator = new ParamValidator();
    expect(
      validator.schemaProblem({ type: "object", properties: { a: { type: "no-such-type" } } } as never),
    ).toMatch(/schema/);
    expect(validator.shapeProblem({ type: "array" } as never)).toMatch(/must be "object"/);
  });
});

describe("precompiled validators of the built-in tools", () => {
  it("serve every built-in tool", () => {
    const precompiled = new Set<unknown>([...BUILTIN_VALIDATORS.values()].map((entry) => entry.validate));
    const validator = new ParamValidator();
    for (const tool of builtins.tools as Tool[]) {
      expect({ tool: tool.name, precompiled: precompiled.has(validator.compile(tool)) }).toEqual({
        tool: tool.name,
        precompiled: true,
      });
    }
  });

  it("answer as ajv compiling the schema at run time does (values, defaults applied, errors)", () => {
    const ajv = new Ajv2020({ ...COMPILE_OPTIONS });
    const validator = new ParamValidator();
    const random = seededRandom(11);
    let failures = 0;
    for (const tool of builtins.tools as Tool[]) {
      const { $schema: _ignored, ...schema } = tool.parameters;
      const fresh = ajv.compile(schema);
      const precompiled = validator.compile(tool);
      if (precompiled instanceof Error) throw precompiled;
      for (let i = 0; i < 200; i++) {
        const args = randomArgs(tool.parameters, random);
        const a = structuredClone(args);
        const b = structuredClone(args);
        const want = { ok: fresh(a), value: a, errors: fresh.errors ?? null };
        const got = { ok: precompiled(b), value: b, errors: precompiled.errors ?? null };
        expect({ tool: tool.name, args, ...got }).toEqual({ tool: tool.name, args, ...want });
        if (!want.ok) failures++;
      }
    }
    // The generated arguments reach both sides of every schema: many are refused, many accepted.
    expect(failures).toBeGreaterThan(200);
    expect(failures).toBeLessThan(200 * builtins.tools.length - 200);
  });
});

/** Arguments for a schema: each property absent, fitting or of a wrong type; sometimes an unknown key. */
function randomArgs(schema: JsonSchema, random: () => number): Record<string, unknown> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const args: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    const roll = random();
    if (roll < 0.25) continue;
    args[name] = roll < 0.8 ? fitting(property, random, pick) : pick(WRONG);
  }
  if (random() < 0.1) args["unknown_key"] = 1;
  return args;
}

const WRONG: readonly unknown[] = [null, 3.5, -1, "", "x", true, [], [1], {}, { a: 1 }];

function fitting(schema: JsonSchema, random: () => number, pick: <T>(xs: readonly T[]) => T): unknown {
  if (Array.isArray(schema.enum)) return pick(schema.enum as unknown[]);
  if (Array.isArray(schema.anyOf)) return fitting(pick(schema.anyOf as JsonSchema[]), random, pick);
  if (Array.isArray(schema.oneOf)) return fitting(pick(schema.oneOf as JsonSchema[]), random, pick);
  const type = Array.isArray(schema.type) ? pick(schema.type as string[]) : schema.type;
  switch (type) {
    case "string":
      return pick(["a", "src/x.ts", "", "𝄞"]);
    case "integer":
      return pick([0, 1, 5, 1000]);
    case "number":
      return pick([0, 0.5, 10]);
    case "boolean":
      return random() < 0.5;
    case "array": {
      const items = (schema.items ?? {}) as JsonSchema;
      return Array.from({ length: Math.floor(random() * 3) }, () => fitting(items, random, pick));
    }
    case "object":
      return randomArgs(schema, random);
    default:
      return pick(WRONG);
  }
}
