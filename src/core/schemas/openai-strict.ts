/**
 * @module core/schemas/openai-strict
 * OpenAI strict mode (Structured Outputs for function calls): finds what strict mode cannot express, and
 * otherwise rewrites a schema into the strict subset: `additionalProperties: false` on every object, every
 * property required, optional ones made nullable, unsupported narrowing keywords moved into descriptions.
 */

import { isPlainObject } from "../../utils/index.js";
import type { JsonSchema } from "../types.js";
import { type LowerContext, note, type Profile } from "./lower-node.js";
import { enumTypes, forEachSubschema, pointer, type SchemaNode, typesOf } from "./schema-walk.js";

/**
 * Keywords that change which argument shapes are valid and that strict mode cannot express: a schema
 * using one is sent as written with `strict: false`.
 */
const BLOCKERS: ReadonlySet<string> = new Set([
  "patternProperties",
  "propertyNames",
  "dependentSchemas",
  "dependencies",
  "unevaluatedProperties",
  "unevaluatedItems",
  "prefixItems",
  "additionalItems",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "$dynamicRef",
  "$dynamicAnchor",
]);

/** Keywords strict mode accepts as they are. */
const KEPT: ReadonlySet<string> = new Set([
  "type",
  "title",
  "description",
  "enum",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "items",
  "minItems",
  "maxItems",
  "properties",
  "required",
  "additionalProperties",
  "anyOf",
  "$ref",
  "$defs",
  "definitions",
]);

/** The string formats strict mode supports; other formats move into the description. */
const FORMATS: ReadonlySet<string> = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
]);

/** OpenAI's documented limit on object nesting in strict mode. */
export const MAX_STRICT_DEPTH = 10;

/** Why a schema cannot be strict: where, which keyword, and why. */
export interface StrictBlocker {
  path: string;
  keyword: string;
  reason: string;
}

const SIMPLE_TYPES: ReadonlySet<string> = new Set(["string", "number", "integer", "boolean"]);

function isObjectNode(node: JsonSchema): boolean {
  return typesOf(node).includes("object") || node.properties !== undefined;
}

/** The first thing in `root` that strict mode cannot express, or undefined when strict mode fits. */
export function strictBlocker(root: JsonSchema): StrictBlocker | undefined {
  let found: StrictBlocker | undefined;
  const visit = (node: SchemaNode, path: string, depth: number): void => {
    if (found) return;
    if (typeof node === "boolean") {
      found = { path, keyword: "schema", reason: `a boolean schema (${node}) has no strict form` };
      return;
    }
    for (const key of Object.keys(node)) {
      if (BLOCKERS.has(key)) {
        found = { path, keyword: key, reason: `strict mode does not support ${key}` };
        return;
      }
    }
    const ap = node.additionalProperties;
    if (ap !== undefined && ap !== false) {
      found = { path, keyword: "additionalProperties", reason: "strict mode needs closed objects" };
      return;
    }
    if (Array.isArray(node.items)) {
      found = { path, keyword: "items", reason: "strict mode does not support tuple items" };
      return;
    }
    if (typeof node.$ref === "string" && !node.$ref.startsWith("#")) {
      found = { path, keyword: "$ref", reason: "strict mode resolves only local references" };
      return;
    }
    if (
      path !== "" &&
      !["type", "anyOf", "oneOf", "$ref", "enum", "const"].some((k) => node[k] !== undefined)
    ) {
      found = { path, keyword: "type", reason: "a value of any type has no strict form" };
      return;
    }
    if (isObjectNode(node)) {
      if (node.properties === undefined && path !== "") {
        found = { path, keyword: "properties", reason: "a free-form object has no strict form" };
        return;
      }
      const props = isPlainObject(node.properties) ? node.properties : {};
      const missing = (Array.isArray(node.required) ? node.required : []).find(
        (r) => typeof r !== "string" || !(r in props),
      );
      if (missing !== undefined) {
        found = {
          path,
          keyword: "required",
          reason: `required names an undeclared property ${String(missing)}`,
        };
        return;
      }
      if (depth > MAX_STRICT_DEPTH) {
        found = {
          path,
          keyword: "properties",
          reason: `objects nest deeper than ${MAX_STRICT_DEPTH} levels`,
        };
        return;
      }
    }
    const nested = isObjectNode(node) ? depth + 1 : depth;
    forEachSubschema(node, path, (s, p, key) => {
      // `additionalProperties: false` is the one boolean schema strict mode wants.
      if (key === "additionalProperties" && s === false) return;
      visit(s, p, key === "properties" ? nested : depth);
    });
  };
  visit(root, "", 0);
  return found;
}

/** Makes an optional property's schema accept null (strict mode has no optional properties). */
export function nullable(schema: SchemaNode): SchemaNode {
  if (!isPlainObject(schema)) return schema;
  const types = typesOf(schema);
  if (types.includes("null")) return schema;
  if (types.length === 0 && Array.isArray(schema.anyOf) && schema.$ref === undefined) {
    const hasNull = schema.anyOf.some((b) => isPlainObject(b) && typesOf(b).includes("null"));
    return hasNull ? schema : { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  }
  if (types.length > 0 && types.every((t) => SIMPLE_TYPES.has(t)) && schema.$ref === undefined) {
    const out: JsonSchema = { ...schema, type: [...types, "null"] };
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  const { description, ...inner } = schema;
  const wrapped: JsonSchema = { anyOf: [inner, { type: "null" }] };
  if (description !== undefined) wrapped.description = description;
  return wrapped;
}

/** The profile lowering a schema that passed {@link strictBlocker} into strict form. */
export const STRICT_PROFILE: Profile = {
  rewrite(node, path, ctx) {
    let out = node;
    if (out.oneOf !== undefined && out.anyOf === undefined) {
      const { oneOf, ...rest } = out;
      out = {
        ...rest,
        anyOf: oneOf,
        description: appendOne(rest.description, "exactly one alternative applies"),
      };
      note(ctx, path, "oneOf", "lowered to anyOf; the description says exactly one alternative applies");
    }
    if (out.const !== undefined && out.enum === undefined) {
      const { const: value, ...rest } = out;
      out = { ...rest, enum: [value] };
    }
    // An enum's values fix its type; saying so spares strict mode an untyped node.
    if (Array.isArray(out.enum) && out.type === undefined) {
      const types = enumTypes(out.enum);
      out = { ...out, type: types.length === 1 ? types[0] : types };
    }
    return out;
  },
  action(key, value) {
    if (key === "format") return typeof value === "string" && FORMATS.has(value) ? "keep" : "describe";
    return KEPT.has(key) ? "keep" : "describe";
  },
  finish(out, original, path, ctx) {
    let node = out;
    if (isObjectNode(node)) node = closeObject(node, original, path, ctx);
    if (typeof node.$ref === "string" && Object.keys(node).length > 1) {
      // Strict mode refuses keywords beside $ref; a one-branch anyOf keeps the description.
      const { $ref, ...rest } = node;
      node = { ...rest, anyOf: [{ $ref }] };
    }
    return node;
  },
};

function appendOne(description: unknown, text: string): string {
  return typeof description === "string" && description.trim()
    ? `${description.trim()} (${text})`
    : `(${text})`;
}

/** `additionalProperties: false`, every property required, the optional ones nullable. */
function closeObject(node: JsonSchema, original: JsonSchema, path: string, ctx: LowerContext): JsonSchema {
  const props = isPlainObject(node.properties) ? node.properties : {};
  const required = new Set(Array.isArray(original.required) ? original.required : []);
  const closed: Record<string, SchemaNode> = {};
  for (const [name, schema] of Object.entries(props)) {
    if (required.has(name)) closed[name] = schema as SchemaNode;
    else {
      closed[name] = nullable(schema as SchemaNode);
      const where = pointer(path, "properties", name);
      note(ctx, where, "required", "optional property made required and nullable; null means omitted");
    }
  }
  return { ...node, properties: closed, required: Object.keys(closed), additionalProperties: false };
}

/** The report text for a schema sent with `strict: false`. */
export function blockerNote(blocker: StrictBlocker): string {
  return `strict mode not used (${blocker.reason}); sent as written with strict: false`;
}
