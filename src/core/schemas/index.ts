/**
 * @module core/schemas
 * Provider schema lowering (R1.6): a registry's tools as the `tools` payload of OpenAI (Chat Completions
 * and Responses), Anthropic, Gemini and Ollama. Everything exported here is public; add names deliberately.
 */
export { SchemaCache } from "./cache.js";
export { KEYWORD_ORDER } from "./canonical.js";
export { type LoweredTool, lowerTool, lowerTools } from "./lower.js";
export { dropStrictNulls } from "./strict-args.js";
export {
  assertProviderName,
  isProviderName,
  type LoweringNote,
  type LoweringResult,
  PROVIDER_NAMES,
  type ProviderName,
} from "./types.js";
