/**
 * @module core/schemas/schema-walk
 * Knowing where the subschemas are: which JSON Schema keywords hold one schema, a list of schemas, or a map
 * of named schemas, and a copy-on-write map over them. Also JSON Pointer escaping and the note text format.
 */

import { isPlainObject } from "../../utils/index.js";
import type { JsonSchema } from "../types.js";

/** A schema node: an object schema, or a boolean schema (`true` / `false`). */
export type SchemaNode = JsonSchema | boolean;

/** Keywords whose value is one schema. */
export const SINGLE_SUBSCHEMA: ReadonlySet<string> = new Set([
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "additionalItems",
]);

/** Keywords whose value is a list of schemas. */
export const LIST_SUBSCHEMA: ReadonlySet<string> = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);

/** Keywords whose value maps names to schemas. */
export const MAP_SUBSCHEMA: ReadonlySet<string> = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
]);

/** True when the value of `key` holds schemas (so a walk must descend into it). */
export function holdsSubschemas(key: string, value: unknown): boolean {
  if (key === "items") return typeof value === "object" || typeof value === "boolean";
  return SINGLE_SUBSCHEMA.has(key) || LIST_SUBSCHEMA.has(key) || MAP_SUBSCHEMA.has(key);
}

/** Escapes one JSON Pointer segment (RFC 6901). */
export function pointerSegment(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Joins a pointer and more segments. */
export function pointer(base: string, ...segments: (string | number)[]): string {
  return segments.reduce<string>((acc, s) => `${acc}/${pointerSegment(String(s))}`, base);
}

/**
 * Rebuilds the subschemas held by `value` (the value of keyword `key` on a node at `path`) through `fn`.
 * Returns a new value; the input is never changed.
 */
export function mapSubschemaValue(
  key: string,
  value: unknown,
  path: string,
  fn: (schema: SchemaNode, path: string) => SchemaNode,
): unknown {
  const here = pointer(path, key);
  if (Array.isArray(value)) return value.map((s, i) => fn(s as SchemaNode, pointer(here, i)));
  if (MAP_SUBSCHEMA.has(key) && isPlainObject(value)) {
    const out: Record<string, SchemaNode> = {};
    for (const [name, s] of Object.entries(value)) out[name] = fn(s as SchemaNode, pointer(here, name));
    return out;
  }
  if (isPlainObject(value) || typeof value === "boolean") return fn(value as SchemaNode, here);
  return value;
}

/** Calls `fn` on every subschema of `node` (not recursively). */
export function forEachSubschema(
  node: JsonSchema,
  path: string,
  fn: (schema: SchemaNode, path: string, key: string) => void,
): void {
  for (const [key, value] of Object.entries(node)) {
    if (!holdsSubschemas(key, value)) continue;
    mapSubschemaValue(key, value, path, (s, p) => {
      fn(s, p, key);
      return s;
    });
  }
}

/** Appends notes to a description: `Start time (format: date-time; default: "now")`. */
export function appendNotes(description: unknown, notes: readonly string[]): string {
  const base = typeof description === "string" ? description.trim() : "";
  if (notes.length === 0) return base;
  const joined = `(${notes.join("; ")})`;
  return base ? `${base} ${joined}` : joined;
}

/** The `type` of a node as a list (empty when the node says nothing). */
export function typesOf(node: JsonSchema): string[] {
  const t = node.type;
  if (typeof t === "string") return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === "string");
  return [];
}

/** The JSON Schema type of a JSON value (`integer` for whole numbers). */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** The types an `enum` list's values have, in first-seen order (`number` absorbs `integer`). */
export function enumTypes(values: readonly unknown[]): string[] {
  const types = [...new Set(values.map(jsonTypeOf))];
  return types.includes("number") ? types.filter((t) => t !== "integer") : types;
}
