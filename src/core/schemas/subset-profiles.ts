/**
 * @module core/schemas/subset-profiles
 * The profiles of providers that take only part of JSON Schema: Gemini (`parametersJsonSchema`, the
 * subset its structured-output documentation lists) and Ollama (`/api/chat` tools, decoded into a small
 * fixed struct: type, description, enum, items, properties, required). Anything else moves into
 * descriptions.
 */

import { isPlainObject } from "../../utils/index.js";
import type { JsonSchema } from "../types.js";
import { renderKeyword } from "./canonical.js";
import { describeOn, type LowerContext, note, type Profile } from "./lower-node.js";
import { jsonTypeOf, type SchemaNode, typesOf } from "./schema-walk.js";

const GEMINI_KEPT: ReadonlySet<string> = new Set([
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
  "propertyOrdering",
  "$ref",
  "$defs",
  "$id",
  "$anchor",
]);

/** The string formats Gemini's JSON Schema support lists; others move into the description. */
const GEMINI_FORMATS: ReadonlySet<string> = new Set(["date-time", "date", "time"]);

function isScalarList(value: unknown): boolean {
  return Array.isArray(value) && value.every((v) => typeof v === "string" || typeof v === "number");
}

/** `oneOf` → `anyOf` (saying exactly one applies); `const` → a one-value `enum` when that is exact. */
function oneOfAndConst(
  node: JsonSchema,
  path: string,
  ctx: LowerContext,
  enumOk: (v: unknown[]) => boolean,
  lowerOneOf = true,
): JsonSchema {
  let out = node;
  if (lowerOneOf && Array.isArray(out.oneOf) && out.anyOf === undefined) {
    const { oneOf, ...rest } = out;
    out = describeOn({ ...rest, anyOf: oneOf }, path, ["exactly one alternative applies"], ctx);
    note(ctx, path, "oneOf", "lowered to anyOf; the description says exactly one alternative applies");
  }
  if (out.const !== undefined && out.enum === undefined && enumOk([out.const])) {
    const { const: value, ...rest } = out;
    out = { ...rest, enum: [value] };
    if (out.type === undefined) out.type = jsonTypeOf(value);
  }
  return out;
}

/** Gemini `parametersJsonSchema`. */
export const GEMINI_PROFILE: Profile = {
  rewrite: (node, path, ctx) => oneOfAndConst(node, path, ctx, isScalarList),
  action(key, value) {
    if (key === "format") return typeof value === "string" && GEMINI_FORMATS.has(value) ? "keep" : "describe";
    if (key === "enum") return isScalarList(value) ? "keep" : "describe";
    return GEMINI_KEPT.has(key) ? "keep" : "describe";
  },
};

const OLLAMA_KEPT: ReadonlySet<string> = new Set(["type", "description", "enum", "properties", "required"]);

function isNullOnly(alt: SchemaNode): boolean {
  return isPlainObject(alt) && typesOf(alt).join() === "null" && Object.keys(alt).every((k) => k === "type");
}

function isPlainType(alt: SchemaNode): boolean {
  return (
    isPlainObject(alt) &&
    typesOf(alt).length > 0 &&
    Object.keys(alt).every((k) => k === "type" || k === "title")
  );
}

function oneType(types: string[]): string | string[] {
  return types.length === 1 ? (types[0] as string) : types;
}

/**
 * Ollama has no `anyOf`: a nullable single alternative becomes a nullable type, plain-type alternatives a
 * type list, anything else a type list (when known) with the alternatives written into the description.
 */
function collapseAlternatives(node: JsonSchema, path: string, ctx: LowerContext): JsonSchema {
  const key = Array.isArray(node.anyOf) ? "anyOf" : Array.isArray(node.oneOf) ? "oneOf" : undefined;
  if (key === undefined) return node;
  const alts = node[key] as SchemaNode[];
  const { [key]: _alts, ...rest } = node;
  const nonNull = alts.filter((a) => !isNullOnly(a));
  const withNull = nonNull.length < alts.length ? ["null"] : [];
  const only = nonNull[0];
  if (nonNull.length === 1 && isPlainObject(only) && rest.type === undefined && typesOf(only).length > 0) {
    const merged: JsonSchema = { ...only, ...rest, type: oneType([...typesOf(only), ...withNull]) };
    note(
      ctx,
      path,
      key,
      withNull.length ? "alternative-or-null lowered to a nullable type" : "single alternative inlined",
    );
    return collapseAlternatives(merged, path, ctx);
  }
  const types = [...new Set([...nonNull.flatMap((a) => (isPlainObject(a) ? typesOf(a) : [])), ...withNull])];
  if (nonNull.every(isPlainType) && rest.type === undefined) {
    note(ctx, path, key, "alternatives of plain types lowered to a type list");
    return { ...rest, type: oneType(types) };
  }
  const text = renderKeyword(key, alts);
  note(ctx, path, key, `moved into the description: ${text}`);
  const out: JsonSchema = { ...rest };
  if (out.type === undefined && nonNull.every((a) => isPlainObject(a) && typesOf(a).length > 0))
    out.type = oneType(types);
  return describeOn(out, path, [text], ctx);
}

/** Ollama `/api/chat` tool parameters (run after every `$ref` is inlined). */
export const OLLAMA_PROFILE: Profile = {
  rewrite: (node, path, ctx) =>
    collapseAlternatives(
      oneOfAndConst(node, path, ctx, () => true, false),
      path,
      ctx,
    ),
  action(key, value, _node, path) {
    if (key === "title") return "drop";
    if (key === "items") return isPlainObject(value) ? "keep" : "describe";
    if (path === "" && key === "description") return "keep";
    return OLLAMA_KEPT.has(key) ? "keep" : "describe";
  },
  dropReason: () => "an annotation Ollama does not read",
  finish(out, _original, path, ctx) {
    // Ollama's parameter object has no description: the root's goes into the tool description.
    if (path !== "" || typeof out.description !== "string") return out;
    const { description, ...rest } = out;
    if (description.trim()) ctx.rootNotes.unshift(description.trim());
    return rest;
  },
};
