/**
 * @module core/schemas/types
 * The names and records of provider schema lowering: which providers exist, and the note a lowering
 * writes whenever it has to move or drop a JSON Schema keyword the provider does not take.
 */
import { ConfigError } from "../errors.js";
import type { ProviderTool } from "./payloads.js";

/** The providers toolgate can lower tool schemas for. */
export const PROVIDER_NAMES = ["openai", "openai-responses", "anthropic", "gemini", "ollama"] as const;

/**
 * A provider's wire format for tools: `openai` (Chat Completions), `openai-responses` (Responses API,
 * strict mode where the schema allows it), `anthropic` (Messages API), `gemini` (generateContent
 * `tools`), `ollama` (`/api/chat` `tools`).
 */
export type ProviderName = (typeof PROVIDER_NAMES)[number];

const NAMES: ReadonlySet<string> = new Set(PROVIDER_NAMES);

/** True when `name` is one of {@link PROVIDER_NAMES}. */
export function isProviderName(name: unknown): name is ProviderName {
  return typeof name === "string" && NAMES.has(name);
}

/**
 * Returns `name` as a provider name, or throws a ConfigError listing the valid names.
 * @example assertProviderName("gemini") // "gemini"
 */
export function assertProviderName(name: unknown): ProviderName {
  if (isProviderName(name)) return name;
  throw new ConfigError(
    `unknown provider ${JSON.stringify(name)}: expected one of ${PROVIDER_NAMES.join(", ")}`,
  );
}

/**
 * One thing a lowering changed in a tool's schema that is more than a reordering: a keyword moved into a
 * description, dropped, rewritten, or a reason strict mode was not used.
 */
export interface LoweringNote {
  /** The tool's name. */
  tool: string;
  provider: ProviderName;
  /** JSON Pointer into the tool's original `parameters` ("" is the root). */
  path: string;
  /** The JSON Schema keyword concerned (e.g. `format`, `$ref`, `strict`). */
  keyword: string;
  /** What happened, in words. */
  note: string;
}

/** What {@link lowerTools} returns: the provider's `tools` array and every change made on the way. */
export interface LoweringResult<P extends ProviderName = ProviderName> {
  /** The provider's `tools` payload, ready for `JSON.stringify` or the provider's SDK. */
  tools: ProviderTool<P>[];
  report: LoweringNote[];
}
