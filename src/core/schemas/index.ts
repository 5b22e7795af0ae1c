/**
 * @module core/schemas
 * Provider schema lowering: a registry's tools as the `tools` payload of OpenAI (Chat Completions
 * and Responses), Anthropic, Gemini and Ollama. Everything exported here is public; add names deliberately.
 *
 * What each provider gets (every change is in the report; nothing is dropped silently):
 * - all: root made `type: "object"` with `properties`; root `anyOf`/`oneOf`/`allOf`/`not`/`if`/`enum`/`const`
 *   moved into the tool description; `$schema` and `$comment` dropped (annotations, not constraints).
 * - `openai`, `anthropic`: the rest of the schema as written.
 * - `openai-responses`: strict mode (closed objects, all properties required, optional ones nullable,
 *   `oneOf` → `anyOf`, unsupported narrowing keywords and formats into descriptions), or the schema as
 *   written with `strict: false` when it needs what strict mode cannot express (open maps,
 *   `patternProperties`, `allOf`, `not`, `if`, tuples, untyped values, nesting past 10 levels).
 * - `gemini`: Gemini's JSON Schema subset; `definitions` renamed `$defs`; `oneOf` → `anyOf`; everything else
 *   (`default`, `examples`, `pattern`, length limits, formats other than date-time/date/time...) described.
 * - `ollama`: `$ref`s inlined (recursion cut), then only type, description, enum, items, properties and
 *   required; alternatives become type lists where exact; everything else described.
 * Output key order is canonical (see {@link KEYWORD_ORDER}): identical registries give identical bytes.
 */
export { SchemaCache } from "./cache.js";
export { KEYWORD_ORDER } from "./canonical.js";
export { type LoweredTool, lowerTool, lowerTools } from "./lower.js";
export type {
  AnthropicTool,
  GeminiFunctionDeclaration,
  GeminiTool,
  ObjectSchema,
  OllamaProperty,
  OllamaTool,
  OpenAIChatTool,
  OpenAIResponsesTool,
  ProviderTool,
  ProviderToolMap,
} from "./payloads.js";
export { dropStrictNulls } from "./strict-args.js";
export {
  assertProviderName,
  isProviderName,
  type LoweringNote,
  type LoweringResult,
  PROVIDER_NAMES,
  type ProviderName,
} from "./types.js";
