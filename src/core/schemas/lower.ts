/**
 * @module core/schemas/lower
 * `lowerTools`: a registry's tools as one provider's `tools` payload. Each tool's schema is lowered to
 * what the provider accepts (see the profiles), written in canonical key order, and every keyword that had
 * to move or go is reported.
 */
import { compareNames } from "../registry.js";
import type { JsonSchema, Tool } from "../types.js";
import { canonicalSchema } from "./canonical.js";
import { type LowerContext, lowerNode, note, PASSTHROUGH } from "./lower-node.js";
import { blockerNote, STRICT_PROFILE, strictBlocker } from "./openai-strict.js";
import type { ObjectSchema, OllamaTool, ProviderTool } from "./payloads.js";
import { definitionsToDefs, inlineRefs } from "./refs.js";
import { prepareRoot, toolDescription } from "./root.js";
import { GEMINI_PROFILE, OLLAMA_PROFILE } from "./subset-profiles.js";
import { assertProviderName, type LoweringNote, type LoweringResult, type ProviderName } from "./types.js";

/** One tool, lowered for a provider, before the provider's wrapping. */
export interface LoweredTool {
  name: string;
  description: string;
  parameters: JsonSchema;
  /** `openai-responses` only: whether strict mode is on. */
  strict?: boolean;
  /** What this tool's lowering changed. */
  report: LoweringNote[];
}

/** Lowers one tool's schema for `provider`. Pure: the tool and its schema are not changed. */
export function lowerTool(tool: Tool, provider: ProviderName): LoweredTool {
  const ctx: LowerContext = { tool: tool.name, provider, report: [], rootNotes: [] };
  // Work on a canonical copy: every walk then meets keywords and properties in one order, whatever the
  // input's key order, so descriptions and the report are as deterministic as the payload.
  const root = prepareRoot(canonicalSchema(tool.parameters) as JsonSchema, ctx);
  let parameters: unknown;
  let strict: boolean | undefined;
  switch (provider) {
    case "openai":
    case "anthropic":
      parameters = lowerNode(root, "", PASSTHROUGH, ctx);
      break;
    case "openai-responses": {
      const blocker = strictBlocker(root);
      if (blocker) note(ctx, blocker.path, blocker.keyword, blockerNote(blocker));
      const strictRoot = blocker ? root : definitionsToDefs(root);
      parameters = lowerNode(strictRoot, "", blocker ? PASSTHROUGH : STRICT_PROFILE, ctx);
      strict = blocker === undefined;
      break;
    }
    case "gemini":
      parameters = lowerNode(definitionsToDefs(root), "", GEMINI_PROFILE, ctx);
      break;
    case "ollama":
      parameters = lowerNode(inlineRefs(root, ctx), "", OLLAMA_PROFILE, ctx);
      break;
  }
  const lowered: LoweredTool = {
    name: tool.name,
    description: toolDescription(tool.description, ctx.rootNotes),
    parameters: canonicalSchema(parameters as JsonSchema) as JsonSchema,
    report: ctx.report.sort(compareNotes),
  };
  if (strict !== undefined) lowered.strict = strict;
  return lowered;
}

/** Wraps lowered tools in the provider's wire format (key order fixed here, for byte-stable JSON). */
export function wrapTools<P extends ProviderName>(
  provider: P,
  lowered: readonly LoweredTool[],
): ProviderTool<P>[] {
  return wrapAny(provider, lowered) as ProviderTool<P>[];
}

function wrapAny(provider: ProviderName, lowered: readonly LoweredTool[]): ProviderTool[] {
  // Every lowering makes the root an object schema with `properties` (root.ts), and Ollama's keeps only
  // the keywords its type lists (subset-profiles.ts); the casts record that.
  const params = (t: LoweredTool) => t.parameters as ObjectSchema;
  switch (provider) {
    case "openai":
      return lowered.map((t) => ({
        type: "function",
        function: { name: t.name, description: t.description, parameters: params(t) },
      }));
    case "ollama":
      return lowered.map((t) => ({
        type: "function",
        function: {
          name: t.name,
          description: t.description,
          parameters: t.parameters as OllamaTool["function"]["parameters"],
        },
      }));
    case "openai-responses":
      return lowered.map((t) => ({
        type: "function",
        name: t.name,
        description: t.description,
        parameters: params(t),
        strict: t.strict ?? false,
      }));
    case "anthropic":
      return lowered.map((t) => ({ name: t.name, description: t.description, input_schema: params(t) }));
    case "gemini":
      if (lowered.length === 0) return [];
      return [
        {
          functionDeclarations: lowered.map((t) => ({
            name: t.name,
            description: t.description,
            parametersJsonSchema: params(t),
          })),
        },
      ];
  }
}

/**
 * The provider's `tools` payload for `tools` (sorted by name), and what the lowering changed.
 * Throws ConfigError for an unknown provider name.
 * @example
 * const { tools, report } = lowerTools(registry.list(), "anthropic");
 * JSON.stringify(tools); // [{"name":"read_file","description":"...","input_schema":{...}}]
 */
export function lowerTools<P extends ProviderName>(tools: readonly Tool[], provider: P): LoweringResult<P>;
export function lowerTools(tools: readonly Tool[], provider: string): LoweringResult;
export function lowerTools(tools: readonly Tool[], provider: string): LoweringResult {
  const name = assertProviderName(provider);
  const lowered = [...tools].sort((a, b) => compareNames(a.name, b.name)).map((t) => lowerTool(t, name));
  return { tools: wrapTools(name, lowered), report: lowered.flatMap((t) => t.report) };
}

/** Report order: by path, then keyword, then text (code-point order), so it is stable across key orders. */
function compareNotes(a: LoweringNote, b: LoweringNote): number {
  return compareNames(a.path, b.path) || compareNames(a.keyword, b.keyword) || compareNames(a.note, b.note);
}
