/**
 * @module core/schemas/refs
 * Local `$ref` handling for providers that need it: inlining every reference (recursion is cut and
 * reported), and renaming draft-07 `definitions` to `$defs`.
 */

import { isPlainObject } from "../../utils/index.js";
import type { JsonSchema } from "../types.js";
import { type LowerContext, note } from "./lower-node.js";
import { appendNotes, holdsSubschemas, mapSubschemaValue, type SchemaNode } from "./schema-walk.js";

/** Resolves a local reference (`#`, `#/$defs/x`, any `#/...` JSON Pointer) against `root`. */
export function resolveLocalRef(root: JsonSchema, ref: string): SchemaNode | undefined {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const segment = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(at)) at = at[Number(segment)];
    else if (isPlainObject(at)) at = at[segment];
    else return undefined;
  }
  return isPlainObject(at) || typeof at === "boolean" ? (at as SchemaNode) : undefined;
}

/** The last segment of a reference, for messages: `#/$defs/Address` → `Address`. */
function refName(ref: string): string {
  return ref === "#" ? "the whole parameter object" : (ref.split("/").pop() ?? ref);
}

/** True when the schema uses `$ref` anywhere. */
export function usesRefs(node: SchemaNode): boolean {
  if (!isPlainObject(node)) return false;
  if (typeof node.$ref === "string") return true;
  for (const [key, value] of Object.entries(node)) {
    if (!holdsSubschemas(key, value)) continue;
    let found = false;
    mapSubschemaValue(key, value, "", (s) => {
      found ||= usesRefs(s);
      return s;
    });
    if (found) return true;
  }
  return false;
}

/**
 * Replaces every `$ref` with the schema it points to and removes the root's `$defs` / `definitions`.
 * A reference back into one being expanded (recursion) becomes a plain node of the target's type with a
 * description saying so; an unresolvable reference is described. Both are reported.
 */
export function inlineRefs(root: JsonSchema, ctx: LowerContext): JsonSchema {
  const expand = (node: SchemaNode, path: string, stack: readonly string[]): SchemaNode => {
    if (!isPlainObject(node)) return node;
    if (typeof node.$ref === "string") {
      const ref = node.$ref;
      const { $ref: _ref, ...siblings } = node;
      const target = resolveLocalRef(root, ref);
      if (target === undefined) {
        note(ctx, path, "$ref", `unresolvable reference ${ref} moved into the description`);
        return expand(
          { ...siblings, description: appendNotes(siblings.description, [`$ref: ${ref}`]) },
          path,
          stack,
        );
      }
      if (stack.includes(ref)) {
        const type = isPlainObject(target) && target.type !== undefined ? target.type : "object";
        const text = `recursive: same shape as ${refName(ref)}`;
        note(ctx, path, "$ref", `recursive reference ${ref} cut; the description says so`);
        return { type, ...siblings, description: appendNotes(siblings.description, [text]) };
      }
      const expanded = expand(target, path, [...stack, ref]);
      const rest = expand(siblings, path, stack) as JsonSchema;
      if (!isPlainObject(expanded)) return Object.keys(rest).length === 0 ? expanded : rest;
      // The referring node's own keywords (usually a description) are more specific than the target's.
      return { ...expanded, ...rest };
    }
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(node)) {
      if (path === "" && (key === "$defs" || key === "definitions")) continue;
      out[key] = holdsSubschemas(key, value)
        ? mapSubschemaValue(key, value, path, (s, p) => expand(s, p, stack))
        : value;
    }
    return out;
  };
  // The root is being expanded already: a `#` reference inside it is recursion.
  const result = expand(root, "", ["#"]) as JsonSchema;
  for (const key of ["$defs", "definitions"])
    if (root[key] !== undefined) note(ctx, "", key, "definitions inlined at each $ref and removed");
  return result;
}

/** Renames a root `definitions` to `$defs` and rewrites `#/definitions/...` references to match. */
export function definitionsToDefs(root: JsonSchema): JsonSchema {
  if (root.definitions === undefined || root.$defs !== undefined) return root;
  const rewrite = (node: SchemaNode, path: string): SchemaNode => {
    if (!isPlainObject(node)) return node;
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith("#/definitions/"))
        out[key] = `#/$defs/${value.slice("#/definitions/".length)}`;
      else if (path === "" && key === "definitions")
        out.$defs = mapSubschemaValue("$defs", value, "", rewrite);
      else out[key] = holdsSubschemas(key, value) ? mapSubschemaValue(key, value, path, rewrite) : value;
    }
    return out;
  };
  return rewrite(root, "") as JsonSchema;
}
