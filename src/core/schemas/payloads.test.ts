import type Anthropic from "@anthropic-ai/sdk";
import type { Tool as GenaiTool } from "@google/genai";
import type { Tool as OllamaSdkTool } from "ollama";
import type OpenAI from "openai";
import { describe, expect, expectTypeOf, it } from "vitest";
import { ToolRegistry } from "../registry.js";
import {
  type AnthropicTool,
  type GeminiTool,
  lowerTools,
  type ObjectSchema,
  type OllamaProperty,
  type OllamaTool,
  type OpenAIChatTool,
  type OpenAIResponsesTool,
  PROVIDER_NAMES,
  type ProviderName,
  type ProviderToolMap,
  SchemaCache,
} from "./index.js";
import { caseTools } from "./testdata/cases.js";

// The provider SDKs are dev dependencies: these assignments are checked by `npm run typecheck`.
type OpenAIChatSdkTool = OpenAI.Chat.Completions.ChatCompletionTool;
type OpenAIResponsesSdkTool = OpenAI.Responses.FunctionTool;
type AnthropicSdkTool = Anthropic.Messages.Tool;

function cache(): SchemaCache {
  const registry = new ToolRegistry({ logger: { warn: () => {} } });
  for (const t of caseTools()) registry.register(t);
  return new SchemaCache(registry);
}

describe("provider payload types", () => {
  it("name one tool type per provider, no more, no fewer", () => {
    expectTypeOf<keyof ProviderToolMap>().toEqualTypeOf<ProviderName>();
    expect(PROVIDER_NAMES.length).toBe(5);
  });

  it("assign to each provider SDK's own tool type", () => {
    expectTypeOf<OpenAIChatTool>().toExtend<OpenAIChatSdkTool>();
    expectTypeOf<OpenAIResponsesTool>().toExtend<OpenAIResponsesSdkTool>();
    expectTypeOf<AnthropicTool>().toExtend<AnthropicSdkTool>();
    expectTypeOf<GeminiTool>().toExtend<GenaiTool>();
    expectTypeOf<OllamaTool>().toExtend<OllamaSdkTool>();

    // What a host writes: the payload goes to the SDK's request field without a cast.
    const schemas = cache();
    const chat: OpenAIChatSdkTool[] = schemas.get("openai").tools;
    const responses: OpenAIResponsesSdkTool[] = schemas.get("openai-responses").tools;
    const anthropic: AnthropicSdkTool[] = schemas.get("anthropic").tools;
    const gemini: GenaiTool[] = lowerTools(caseTools(), "gemini").tools;
    const ollama: OllamaSdkTool[] = schemas.get("ollama").tools;
    for (const list of [chat, responses, anthropic, gemini, ollama]) expect(list.length).toBeGreaterThan(0);
  });

  it("an unchecked provider string gets the union of payloads, not unknown", () => {
    const provider: string = "anthropic";
    expectTypeOf(lowerTools([], provider).tools).toEqualTypeOf<ProviderToolMap[ProviderName][]>();
  });
});

/** The claim behind the payload types: every lowered root is an object schema with `properties`. */
function expectObjectSchema(schema: ObjectSchema, where: string): void {
  expect(schema.type, where).toBe("object");
  expect(typeof schema.properties, where).toBe("object");
  expect(Array.isArray(schema.properties), where).toBe(false);
  if (schema.required !== undefined) expect(Array.isArray(schema.required), where).toBe(true);
}

const OLLAMA_KEYS = new Set(["type", "description", "enum", "items", "properties", "required"]);

function expectOllamaProperty(property: OllamaProperty, where: string): void {
  for (const key of Object.keys(property)) expect(OLLAMA_KEYS.has(key), `${where}: ${key}`).toBe(true);
  for (const [name, child] of Object.entries(property.properties ?? {}))
    expectOllamaProperty(child, `${where}.${name}`);
  if (property.items && typeof property.items === "object" && !Array.isArray(property.items))
    expectOllamaProperty(property.items as OllamaProperty, `${where}[]`);
}

describe("lowered payloads have the shape their types declare (schema case corpus)", () => {
  const schemas = cache();

  it("openai, openai-responses, anthropic, gemini: object roots", () => {
    for (const t of schemas.get("openai").tools) expectObjectSchema(t.function.parameters, t.function.name);
    for (const t of schemas.get("openai-responses").tools) {
      expectObjectSchema(t.parameters, t.name);
      expect(typeof t.strict).toBe("boolean");
    }
    for (const t of schemas.get("anthropic").tools) expectObjectSchema(t.input_schema, t.name);
    const [gemini, ...rest] = schemas.get("gemini").tools;
    expect(rest).toEqual([]);
    for (const f of gemini!.functionDeclarations) expectObjectSchema(f.parametersJsonSchema, f.name);
  });

  it("ollama: object roots holding only the keywords its type lists", () => {
    for (const t of schemas.get("ollama").tools) {
      const { parameters } = t.function;
      expect(parameters.type, t.function.name).toBe("object");
      for (const [name, property] of Object.entries(parameters.properties))
        expectOllamaProperty(property, `${t.function.name}.${name}`);
    }
  });

  it("gemini: no tools is an empty payload, not an empty declaration list", () => {
    expect(lowerTools([], "gemini").tools).toEqual([]);
  });
});
