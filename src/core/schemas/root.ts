/**
 * @module core/schemas/root
 * What every provider needs of a tool's root schema: an object with `properties`, and no composition or
 * value keywords at the top level (providers reject `anyOf`/`oneOf`/`allOf`/`enum`/`not` there). Those
 * keywords move into the tool's description and are reported.
 */

import { isPlainObject } from "../../utils/index.js";
import type { JsonSchema } from "../types.js";
import { renderKeyword } from "./canonical.js";
import { type LowerContext, note } from "./lower-node.js";

/** Root keywords no provider accepts on a tool's parameter object. */
export const ROOT_LIFTED: readonly string[] = [
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "enum",
  "const",
];

/**
 * Returns the root ready for a provider: `type: "object"` and `properties` present (a tool's arguments are
 * always an object), lifted keywords moved to `ctx.rootNotes`. Never mutates `parameters`.
 */
export function prepareRoot(parameters: JsonSchema, ctx: LowerContext): JsonSchema {
  const root: JsonSchema = { ...parameters };
  if (root.type === undefined) root.type = "object";
  if (root.properties === undefined) root.properties = {};
  for (const key of ROOT_LIFTED) {
    if (root[key] === undefined) continue;
    const text = requiredAlternatives(key, root[key]) ?? renderKeyword(key, root[key]);
    ctx.rootNotes.push(text);
    note(
      ctx,
      "",
      key,
      `not accepted at the root of a tool's parameters; moved into the tool description: ${text}`,
    );
    delete root[key];
  }
  return root;
}

/** The tool description with root notes appended: `Reads a file. Arguments: anyOf: [...].` */
export function toolDescription(description: string, rootNotes: readonly string[]): string {
  if (rootNotes.length === 0) return description;
  const base = description.trim();
  const sep = base === "" || /[.!?]$/.test(base) ? " " : ". ";
  return `${base}${base ? sep : ""}Arguments: ${rootNotes.join("; ")}.`.trim();
}

/**
 * The common "one of these arguments must be given" pattern (`anyOf` / `oneOf` of `required` lists) in
 * words: "give at least one of: `id`, `email`". Undefined for anything else.
 */
function requiredAlternatives(key: string, value: unknown): string | undefined {
  if ((key !== "anyOf" && key !== "oneOf") || !Array.isArray(value) || value.length === 0) return undefined;
  const sets: string[][] = [];
  for (const branch of value) {
    const names = isPlainObject(branch) && Object.keys(branch).length === 1 ? branch.required : undefined;
    if (!Array.isArray(names) || names.length === 0 || !names.every((n) => typeof n === "string"))
      return undefined;
    sets.push(names as string[]);
  }
  const alternatives = sets.map((names) => names.map((n) => `\`${n}\``).join(" and "));
  return `give ${key === "anyOf" ? "at least" : "exactly"} one of: ${alternatives.join(", ")}`;
}
