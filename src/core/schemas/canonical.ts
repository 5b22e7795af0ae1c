/**
 * @module core/schemas/canonical
 * Canonical key order for lowered schemas, so identical registries give byte-identical JSON (prompt caches
 * key on bytes). The result is a fresh deep copy: it never shares objects with its input.
 */

import { isPlainObject } from "../../utils/index.js";
import { holdsSubschemas, MAP_SUBSCHEMA, type SchemaNode } from "./schema-walk.js";

/**
 * The order keywords are written in: what a value is, what it means, constraints on it, its structure,
 * composition, references, annotations. Keywords not listed follow alphabetically; `$defs` and
 * `definitions` come last (they are long and only referenced).
 */
export const KEYWORD_ORDER: readonly string[] = [
  "type",
  "title",
  "description",
  "enum",
  "const",
  "format",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "exclusiveMinimum",
  "maximum",
  "exclusiveMaximum",
  "multipleOf",
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "uniqueItems",
  "contains",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "$ref",
  "default",
  "examples",
];

const RANK = new Map(KEYWORD_ORDER.map((k, i) => [k, i]));
const LAST = new Set(["$defs", "definitions"]);

function rank(key: string): number {
  if (LAST.has(key)) return KEYWORD_ORDER.length + 1;
  return RANK.get(key) ?? KEYWORD_ORDER.length;
}

/** Code-point order, locale-independent. */
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders schema keywords: {@link KEYWORD_ORDER}, then others alphabetically, `$defs` last. */
export function compareKeywords(a: string, b: string): number {
  return rank(a) - rank(b) || byCodePoint(a, b);
}

/**
 * A deep copy of a schema with keywords in {@link KEYWORD_ORDER}, property and definition names in
 * code-point order, `required` sorted, and object keys inside data values (`enum`, `default`, ...) sorted.
 * Array order is kept everywhere else (`anyOf` branches and `enum` values carry meaning in their order).
 */
export function canonicalSchema(node: SchemaNode): SchemaNode {
  if (!isPlainObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(node).sort(compareKeywords)) {
    const value = node[key];
    if (key === "required" && Array.isArray(value)) out[key] = [...value].sort();
    else if (MAP_SUBSCHEMA.has(key) && isPlainObject(value)) {
      const map: Record<string, unknown> = {};
      for (const name of Object.keys(value).sort(byCodePoint))
        map[name] = canonicalSchema(value[name] as SchemaNode);
      out[key] = map;
    } else if (holdsSubschemas(key, value)) {
      out[key] = Array.isArray(value)
        ? value.map((s) => canonicalSchema(s as SchemaNode))
        : canonicalSchema(value as SchemaNode);
    } else out[key] = canonicalData(value);
  }
  return out;
}

/** A deep copy of a JSON value with object keys sorted. */
export function canonicalData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalData);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort(byCodePoint)) out[key] = canonicalData(value[key]);
    return out;
  }
  return value;
}

/**
 * How a keyword and its value read inside a description: `format: date-time`, `default: 5`,
 * `anyOf: [{"type":"string"},...]`. Values are written canonically, so the text does not depend on the
 * input's key order.
 */
export function renderKeyword(key: string, value: unknown): string {
  if (typeof value === "string" && !/["\n]/.test(value)) return `${key}: ${value}`;
  const canonical = holdsSubschemas(key, value)
    ? Array.isArray(value)
      ? value.map((s) => canonicalSchema(s as SchemaNode))
      : MAP_SUBSCHEMA.has(key)
        ? canonicalSchema({ [key]: value })[key as never]
        : canonicalSchema(value as SchemaNode)
    : canonicalData(value);
  return `${key}: ${JSON.stringify(canonical)}`;
}
