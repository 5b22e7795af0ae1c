/**
 * @module core/schemas/payloads
 * The shape of each provider's `tools` payload, so `gate.schemas("anthropic")` is typed as Anthropic's tool
 * list and can be handed to that provider's SDK without a cast. The types are written here (no SDK is a
 * dependency); `payloads.types.test.ts` proves each one assigns to the SDK's own tool type.
 */
import type { ProviderName } from "./types.js";

/** A lowered tool's JSON Schema: an object schema (`type: "object"`, `properties`), as every provider takes. */
export interface ObjectSchema {
  type: "object";
  properties: { [name: string]: { [keyword: string]: unknown } };
  required?: string[];
  [keyword: string]: unknown;
}

/** A property of an Ollama schema: only the keywords Ollama reads survive its lowering. */
export interface OllamaProperty {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  items?: unknown;
  properties?: { [name: string]: OllamaProperty };
  required?: string[];
}

/** OpenAI Chat Completions: `tools[]` of `ChatCompletionFunctionTool`. */
export interface OpenAIChatTool {
  type: "function";
  function: { name: string; description: string; parameters: ObjectSchema };
}

/** OpenAI Responses API: `tools[]` of `FunctionTool`; `strict` is on where the schema allows it. */
export interface OpenAIResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: ObjectSchema;
  strict: boolean;
}

/** Anthropic Messages API: `tools[]` of `Tool`. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: ObjectSchema;
}

/** One function of a Gemini tool. */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parametersJsonSchema: ObjectSchema;
}

/** Gemini `generateContent`: one `Tool` holding every function (none when the registry is empty). */
export interface GeminiTool {
  functionDeclarations: GeminiFunctionDeclaration[];
}

/** Ollama `/api/chat`: `tools[]` with `$ref`s inlined and only the keywords Ollama reads. */
export interface OllamaTool {
  type: "function";
  function: {
    name: string;
    description: string;
    parameters: { type: "object"; properties: { [name: string]: OllamaProperty }; required?: string[] };
  };
}

/** Each provider's tool type, by provider name. */
export interface ProviderToolMap {
  openai: OpenAIChatTool;
  "openai-responses": OpenAIResponsesTool;
  anthropic: AnthropicTool;
  gemini: GeminiTool;
  ollama: OllamaTool;
}

/**
 * One entry of provider `P`'s `tools` payload.
 * @example const tools: ProviderTool<"anthropic">[] = gate.schemas("anthropic");
 */
export type ProviderTool<P extends ProviderName = ProviderName> = ProviderToolMap[P];
