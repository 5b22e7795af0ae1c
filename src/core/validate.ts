/**
 * @module core/validate
 * Parameter validation with ajv (JSON Schema 2020-12). Schemas are checked against the meta-schema when a
 * tool is registered (built-in tools excepted: a test checks theirs) and compiled lazily on the tool's first
 * call, then cached per tool object. The built-in tools' schemas come precompiled
 * (`builtin-validators.generated.ts`, ajv's standalone code, by tool name): a call to a built-in tool loads no
 * ajv, which cost ~35 ms of every `toolgate call` (loading it, then its first compile). A precompiled validator
 * serves a tool only while the tool's schema still validates as the one it was written from (descriptions and
 * other annotations aside: {@link validationKey}); otherwise ajv is loaded on first use and compiles it.
 * Errors name each failing parameter in plain words.
 */
import { createRequire } from "node:module";
import type { Ajv2020, ErrorObject, Options, ValidateFunction } from "ajv/dist/2020.js";
import { BUILTIN_VALIDATORS } from "./builtin-validators.generated.js";
import type { JsonSchema, Tool } from "./types.js";

/** How every schema is compiled, at run time and when the built-in validators are generated. */
export const COMPILE_OPTIONS: Readonly<Options> = Object.freeze({
  allErrors: true,
  strict: false,
  useDefaults: true,
  validateFormats: false,
  // Compiles never re-check a schema against the meta-schema (`schemaProblem` does that at registration),
  // so this instance goes without it: adding the 2020-12 meta-schemas costs 15–40 ms of every start-up.
  validateSchema: false,
  meta: false,
});

/** A validator written ahead of time for a tool: what its schema validated as, and the code. */
export interface PrecompiledValidator {
  /** {@link validationKey} of the schema it was compiled from. */
  readonly key: string;
  readonly validate: ValidateFunction;
}

/** Keywords that only describe: they change no answer of a validator (ajv runs without `verbose`). */
const ANNOTATIONS = new Set(["$schema", "$comment", "title", "description", "examples", "deprecated"]);
/** Keywords whose value is a schema, a list of schemas, or a map of names to schemas. */
const ONE = new Set([
  "items",
  "additionalItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
]);
const LIST = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const MAP = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/**
 * What a schema validates as: its JSON without annotations (`description`, `title`, `examples`, `$comment`,
 * `deprecated`, `$schema`) at any depth, so rewording a description keeps a tool's precompiled validator.
 * Property names are kept whatever they are (a parameter may be called `description`); values of `enum`,
 * `const` and `default` are kept whole; keywords it does not know are kept as they are.
 * @example validationKey({ type: "string", description: "a" }) === validationKey({ type: "string" }) // true
 */
export function validationKey(schema: JsonSchema): string {
  return JSON.stringify(withoutAnnotations(schema));
}

function withoutAnnotations(schema: unknown): unknown {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(keyword)) continue;
    if (ONE.has(keyword)) out[keyword] = withoutAnnotations(value);
    else if (LIST.has(keyword) && Array.isArray(value)) out[keyword] = value.map(withoutAnnotations);
    else if (MAP.has(keyword) && value !== null && typeof value === "object" && !Array.isArray(value))
      out[keyword] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutAnnotations(v)]));
    else out[keyword] = value;
  }
  return out;
}

/** The precompiled validator of a built-in tool, when its schema still validates as the one compiled. */
function precompiled(tool: Tool): ValidateFunction | undefined {
  const entry = BUILTIN_VALIDATORS.get(tool.name);
  return entry !== undefined && entry.key === validationKey(tool.parameters) ? entry.validate : undefined;
}

// Synchronous and on first use: registration and validation are synchronous, and most runs never need it.
const require = createRequire(import.meta.url);
function newAjv(options: Options): Ajv2020 {
  const { Ajv2020: Ajv } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
  return new Ajv(options);
}

/**
 * A validation's answer. A failure says whose fault it is: `invalid_params` (the caller's arguments) or
 * `invalid_tool` (the tool's own schema does not compile), so no one has to read the message to tell.
 */
export type ValidationOutcome =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; type: "invalid_params" | "invalid_tool"; message: string; problems: string[] };

/**
 * The instance that knows the meta-schema, made only when a schema is first checked against it, and shared by
 * every registry in the process: compiling the 2020-12 meta-schema took ~100 ms per gate (a quarter of
 * creating one), and the instance keeps nothing of the schemas it checks.
 */
let metaInstance: Ajv2020 | undefined;

/** Validates tool parameters. One instance per registry. */
export class ParamValidator {
  private ajvInstance: Ajv2020 | undefined;
  private readonly compiled = new WeakMap<Tool, ValidateFunction | Error>();

  private get ajv(): Ajv2020 {
    this.ajvInstance ??= newAjv({ ...COMPILE_OPTIONS });
    return this.ajvInstance;
  }

  private get metaAjv(): Ajv2020 {
    metaInstance ??= newAjv({ allErrors: true, strict: false, validateFormats: false });
    return metaInstance;
  }

  /** The cheap checks: the schema is an object schema. Returns a problem description or undefined. */
  shapeProblem(schema: JsonSchema): string | undefined {
    if (schema === null || typeof schema !== "object" || Array.isArray(schema))
      return "schema must be an object";
    if (schema.type !== undefined && schema.type !== "object")
      return `schema type must be "object", not ${JSON.stringify(schema.type)}`;
    return undefined;
  }

  /** Checks a schema against the 2020-12 meta-schema; returns a problem description or undefined. */
  schemaProblem(schema: JsonSchema): string | undefined {
    const shape = this.shapeProblem(schema);
    if (shape) return shape;
    const { $schema: _ignored, ...rest } = schema;
    const meta = this.metaAjv;
    if (!meta.validateSchema(rest)) return meta.errorsText(meta.errors, { dataVar: "schema" });
    return undefined;
  }

  /** Validates `args` for `tool`, applying schema defaults to a copy. */
  validate(tool: Tool, args: unknown): ValidationOutcome {
    const fn = this.validatorFor(tool);
    if (fn instanceof Error)
      return { ok: false, type: "invalid_tool", message: fn.message, problems: [fn.message] };
    if (args === undefined || args === null) args = {};
    if (typeof args !== "object" || Array.isArray(args)) {
      const message = `arguments for ${tool.name} must be a JSON object, not ${describeType(args)}`;
      return { ok: false, type: "invalid_params", message, problems: [message] };
    }
    const value = structuredClone(args) as Record<string, unknown>;
    if (fn(value)) return { ok: true, value };
    const problems = plainProblems(fn.errors ?? []);
    return {
      ok: false,
      type: "invalid_params",
      message: `invalid arguments for ${tool.name}: ${problems.join("; ")}`,
      problems,
    };
  }

  /** Compiles now (used by tests and by hosts that want to fail early). */
  compile(tool: Tool): ValidateFunction | Error {
    return this.validatorFor(tool);
  }

  private validatorFor(tool: Tool): ValidateFunction | Error {
    let fn = this.compiled.get(tool);
    if (!fn) {
      try {
        const { $schema: _ignored, ...schema } = tool.parameters;
        fn = precompiled(tool) ?? this.ajv.compile(schema);
      } catch (error) {
        fn = new Error(`the parameter schema of ${tool.name} does not compile: ${(error as Error).message}`);
      }
      this.compiled.set(tool, fn);
    }
    return fn;
  }
}

function describeType(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return `a ${typeof value}`;
}

/** `/edits/0/oldText` → `edits[0].oldText`; the root is "arguments". */
function paramName(instancePath: string, extra?: string): string {
  const parts = instancePath.split("/").filter(Boolean);
  if (extra) parts.push(extra);
  if (parts.length === 0) return "arguments";
  return parts.reduce(
    (acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part),
    "",
  );
}

/** Turns ajv errors into one sentence per failing parameter, without duplicates. */
export function plainProblems(errors: ErrorObject[]): string[] {
  const out = new Set<string>();
  for (const e of errors) {
    const p = e.params as Record<string, unknown>;
    switch (e.keyword) {
      case "required":
        out.add(`missing required parameter '${paramName(e.instancePath, String(p.missingProperty))}'`);
        break;
      case "additionalProperties":
        out.add(`unknown parameter '${paramName(e.instancePath, String(p.additionalProperty))}'`);
        break;
      case "type":
        out.add(`parameter '${paramName(e.instancePath)}' must be ${article(String(p.type))}`);
        break;
      case "enum":
        out.add(
          `parameter '${paramName(e.instancePath)}' must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`,
        );
        break;
      case "const":
        out.add(`parameter '${paramName(e.instancePath)}' must be ${JSON.stringify(p.allowedValue)}`);
        break;
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum":
        out.add(
          `parameter '${paramName(e.instancePath)}' must be ${String(p.comparison)} ${String(p.limit)}`,
        );
        break;
      case "minLength":
        out.add(`parameter '${paramName(e.instancePath)}' must have at least ${String(p.limit)} characters`);
        break;
      case "maxLength":
        out.add(`parameter '${paramName(e.instancePath)}' must have at most ${String(p.limit)} characters`);
        break;
      case "minItems":
        out.add(`parameter '${paramName(e.instancePath)}' must have at least ${String(p.limit)} items`);
        break;
      case "maxItems":
        out.add(`parameter '${paramName(e.instancePath)}' must have at most ${String(p.limit)} items`);
        break;
      case "pattern":
        out.add(`parameter '${paramName(e.instancePath)}' must match the pattern ${String(p.pattern)}`);
        break;
      case "anyOf":
      case "oneOf":
      case "if":
        // The branch errors are reported on their own; this summary adds nothing a model can act on.
        break;
      default:
        out.add(`parameter '${paramName(e.instancePath)}' ${e.message ?? "is invalid"}`);
    }
  }
  if (out.size === 0) out.add("arguments do not match the schema");
  return [...out];
}

function article(type: string): string {
  return type
    .split(",")
    .map((t) => (/^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`))
    .join(" or ");
}
