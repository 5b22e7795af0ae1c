/**
 * @module core/schemas/lower-node
 * The one walk every provider lowering uses: each keyword of each schema node is kept, moved into the
 * node's description, or dropped, as the provider's profile says; every move and drop is reported.
 */

import { isPlainObject } from "../../utils/index.js";
import type { JsonSchema } from "../types.js";
import { compareKeywords, renderKeyword } from "./canonical.js";
import { appendNotes, holdsSubschemas, mapSubschemaValue, type SchemaNode } from "./schema-walk.js";
import type { LoweringNote, ProviderName } from "./types.js";

/** Where a lowering writes what it changed. */
export interface LowerContext {
  readonly tool: string;
  readonly provider: ProviderName;
  readonly report: LoweringNote[];
  /** Notes about the root schema; they are appended to the tool's description. */
  readonly rootNotes: string[];
}

/** What happens to one keyword: kept, moved into the description, or dropped (annotations only). */
export type KeywordAction = "keep" | "describe" | "drop";

/** How one provider treats schema nodes. */
export interface Profile {
  /** Rewrites a node before its keywords are classified (e.g. `oneOf` → `anyOf`). Must not mutate. */
  rewrite?(node: JsonSchema, path: string, ctx: LowerContext): JsonSchema;
  /** What to do with a keyword. */
  action(key: string, value: unknown, node: JsonSchema, path: string): KeywordAction;
  /** Why a dropped keyword may go (for the report). */
  dropReason?(key: string): string;
  /** Post-processes a lowered node (its subschemas already lowered). Must not mutate `original`. */
  finish?(out: JsonSchema, original: JsonSchema, path: string, ctx: LowerContext): JsonSchema;
}

/** Keywords for tools, not constraints: dropped for every provider. */
export const META_KEYWORDS: ReadonlySet<string> = new Set(["$schema", "$comment"]);

/** Records one change. */
export function note(ctx: LowerContext, path: string, keyword: string, text: string): void {
  ctx.report.push({ tool: ctx.tool, provider: ctx.provider, path, keyword, note: text });
}

/** Adds notes to a node's description, or to the tool description for the root. */
export function describeOn(
  out: JsonSchema,
  path: string,
  notes: readonly string[],
  ctx: LowerContext,
): JsonSchema {
  if (notes.length === 0) return out;
  if (path === "") {
    ctx.rootNotes.push(...notes);
    return out;
  }
  return { ...out, description: appendNotes(out.description, notes) };
}

/**
 * Lowers one node and, through it, every subschema. Returns new objects (shallow where nothing changed
 * below; the caller canonicalizes, which deep-copies).
 */
export function lowerNode(node: SchemaNode, path: string, profile: Profile, ctx: LowerContext): SchemaNode {
  if (!isPlainObject(node)) return node;
  const source = profile.rewrite ? profile.rewrite(node, path, ctx) : node;
  const out: JsonSchema = {};
  const notes: string[] = [];
  // Canonical order, so description notes and the report do not depend on the input's key order.
  for (const key of Object.keys(source).sort(compareKeywords)) {
    const value = source[key];
    if (META_KEYWORDS.has(key)) {
      note(ctx, path, key, "dropped: an annotation for tooling, not a constraint");
      continue;
    }
    const action = profile.action(key, value, source, path);
    if (action === "keep") {
      out[key] = holdsSubschemas(key, value)
        ? mapSubschemaValue(key, value, path, (s, p) => lowerNode(s, p, profile, ctx))
        : value;
    } else if (action === "describe") {
      const text = renderKeyword(key, value);
      notes.push(text);
      note(ctx, path, key, `moved into the description: ${text}`);
    } else {
      note(ctx, path, key, `dropped: ${profile.dropReason?.(key) ?? "not supported by this provider"}`);
    }
  }
  const described = describeOn(out, path, notes, ctx);
  return profile.finish ? profile.finish(described, source, path, ctx) : described;
}

/** A profile that keeps everything (providers that take full JSON Schema). */
export const PASSTHROUGH: Profile = { action: () => "keep" };
