/**
 * @module core/schemas/strict-args
 * The way back from strict mode: a model held to a strict schema sends `null` for an optional argument it
 * means to omit. `dropStrictNulls` removes those nulls before the arguments are validated against the
 * tool's original schema, which may not accept null there.
 */

import { isPlainObject } from "../../utils/index.js";
import type { JsonSchema } from "../types.js";
import { resolveLocalRef } from "./refs.js";
import { type SchemaNode, typesOf } from "./schema-walk.js";

function acceptsNull(schema: SchemaNode, root: JsonSchema, depth = 0): boolean {
  if (schema === true) return true;
  if (!isPlainObject(schema) || depth > 20) return false;
  if (typeof schema.$ref === "string") {
    const target = resolveLocalRef(root, schema.$ref);
    if (target !== undefined && acceptsNull(target, root, depth + 1)) return true;
  }
  if (typesOf(schema).includes("null")) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  if (schema.const === null) return true;
  for (const key of ["anyOf", "oneOf"] as const) {
    const alts = schema[key];
    if (Array.isArray(alts) && alts.some((a) => acceptsNull(a as SchemaNode, root, depth + 1))) return true;
  }
  return false;
}

function deref(schema: SchemaNode, root: JsonSchema): SchemaNode {
  let node = schema;
  for (let i = 0; i < 20 && isPlainObject(node) && typeof node.$ref === "string"; i++) {
    const target = resolveLocalRef(root, node.$ref);
    if (target === undefined) break;
    node = target;
  }
  return node;
}

/**
 * A copy of `args` without the nulls a strict-mode model sent for optional properties whose original
 * schema does not accept null. Required properties and nullable ones keep their nulls (validation decides).
 * @example dropStrictNulls(tool.parameters, { path: "a.txt", startLine: null }) // { path: "a.txt" }
 */
export function dropStrictNulls(parameters: JsonSchema, args: unknown): unknown {
  const walk = (schema: SchemaNode, value: unknown): unknown => {
    const node = deref(schema, parameters);
    if (!isPlainObject(node)) return value;
    if (Array.isArray(value)) {
      const items = node.items;
      return isPlainObject(items) ? value.map((v) => walk(items, v)) : value;
    }
    if (!isPlainObject(value) || !isPlainObject(node.properties)) return value;
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      const propSchema = node.properties[key] as SchemaNode | undefined;
      if (propSchema === undefined) {
        out[key] = v;
        continue;
      }
      if (v === null && !required.has(key) && !acceptsNull(propSchema, parameters)) continue;
      out[key] = walk(propSchema, v);
    }
    return out;
  };
  return walk(parameters, args);
}
