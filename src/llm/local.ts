/**
 * @module llm/local
 * The `local` provider: a GGUF model run in this process by node-llama-cpp, with no server. The model's own
 * chat template formats the conversation; toolgate's tools become node-llama-cpp functions, whose arguments
 * are generated under a grammar built from each tool's JSON schema (so a call is always well-formed JSON of
 * the declared shape); text streams as it is generated; the caller's signal stops generation; the context
 * window is the one the model was loaded with. Calls to one model take turns (one context sequence).
 * Prompts are counted exactly, with the model's own template and tokenizer (`countTokens`); a prompt
 * node-llama-cpp had to shorten to fit (its context shift drops the oldest turns) is a `context_overflow`.
 */
import { existsSync } from "node:fs";
import { modelFile } from "../models/index.js";
import { cancelledError, ModelError, oneLine } from "./errors.js";
import { getLlama, type LlamaModule, loadRuntime } from "./local-runtime.js";
import { contextOverflowError } from "./overflow.js";
import { ReplyBuilder } from "./reply.js";
import type { ChatMessage, ChatModel, ChatReply, ChatRequest, LlmSettings, ModelProbe } from "./types.js";

interface Loaded {
  model: LlamaModule;
  context: LlamaModule;
  chat: LlamaModule;
  /** The tail of the queue: calls to one model run one after another. */
  turn: Promise<unknown>;
}

const loaded = new Map<string, Promise<Loaded>>();

/**
 * Creates a model run in-process. `settings.model` is a path to a GGUF file or the name of a pulled model.
 * @example const model = createLocalModel({ provider: "local", model: "qwen3-1.7b", baseUrl: "" });
 */
export function createLocalModel(settings: LlmSettings): ChatModel {
  const path = modelFile(settings.model);
  const where = `the local model ${path}`;
  return {
    provider: "local",
    model: settings.model,
    baseUrl: path,
    schemaProvider: "openai",
    ...(settings.contextWindow ? { contextWindow: settings.contextWindow } : {}),
    chat: (req) => chatOnce(settings, path, where, req),
    countTokens: async (req) => promptTokens(await load(settings, path), req),
    probe: () => probeLocal(settings, path),
  };
}

async function chatOnce(
  settings: LlmSettings,
  path: string,
  where: string,
  req: ChatRequest,
): Promise<ChatReply> {
  const signal = req.signal ?? new AbortController().signal;
  if (signal.aborted) throw cancelledError();
  const state = await load(settings, path);
  const run = state.turn.then(() => generate(settings, state, where, req, signal));
  state.turn = run.catch(() => undefined);
  return run;
}

async function generate(
  settings: LlmSettings,
  state: Loaded,
  where: string,
  req: ChatRequest,
  signal: AbortSignal,
): Promise<ChatReply> {
  if (signal.aborted) throw cancelledError();
  const reply = new ReplyBuilder(req);
  const functions = toFunctions(req.tools ?? []);
  // A reply bound to a schema (the quarantined reader) is generated under a grammar built from it, with no
  // functions: node-llama-cpp takes one or the other.
  let grammar: LlamaModule | undefined;
  if (req.schema) {
    try {
      grammar = await (await getLlama()).createGrammarForJsonSchema(grammarSchema(req.schema.schema));
    } catch (error) {
      throw new ModelError(
        "bad_request",
        `${where} cannot follow the schema ${req.schema.name}: ${oneLine(String((error as Error)?.message ?? error))}`,
      );
    }
  }
  const options = settings.options ?? {};
  // The sequence's meter counts what this turn generated (an onToken callback would slow every token); the
  // prompt is counted whole, as the template renders it (the meter sees only what the cache did not hold).
  const meter = state.chat.sequence?.tokenMeter;
  const before = meter?.usedOutputTokens ?? 0;
  const prompt = promptTokens(state, req);
  let result: LlamaModule;
  try {
    result = await state.chat.generateResponse(toHistory(req.messages), {
      ...(grammar ? { grammar } : Object.keys(functions).length > 0 ? { functions } : {}),
      signal,
      stopOnAbortSignal: false,
      onTextChunk: (text: string) => reply.addText(text),
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
    });
  } catch (error) {
    if (signal.aborted) throw cancelledError();
    throw reply.cut(
      new ModelError("server", `${where} failed: ${oneLine(String((error as Error)?.message ?? error))}`),
    );
  }
  if (signal.aborted) throw cancelledError();
  // node-llama-cpp dropped part of the conversation to make it fit: the reply answers something else.
  if (result.lastEvaluation?.contextShiftMetadata != null)
    throw contextOverflowError(
      { promptTokens: prompt, window: state.context.contextSize },
      "the embedded model had to drop the oldest part of the conversation",
    );
  (result.functionCalls ?? []).forEach((call: { functionName: string; params: unknown }, i: number) => {
    reply.toolCalls.push({
      id: `call_${Date.now().toString(36)}_${i}`,
      name: call.functionName,
      // Nulls for optional arguments left out stay: the pipeline drops them against the tool's own schema.
      arguments: call.params ?? {},
    });
  });
  const stop: string = result.metadata?.stopReason ?? "eogToken";
  reply.finished = true;
  reply.finishReason = stop === "functionCalls" ? "tool_calls" : stop === "maxTokens" ? "length" : "stop";
  reply.usage = { promptTokens: prompt, completionTokens: meter ? meter.usedOutputTokens - before : 0 };
  return reply.finish(where);
}

/** Loads the model once per process (GPU when found) with a context as large as asked or as the model allows. */
function load(settings: LlmSettings, path: string): Promise<Loaded> {
  const key = `${path}\0${settings.contextWindow ?? ""}\0${settings.threads ?? ""}`;
  let entry = loaded.get(key);
  if (!entry) {
    entry = loadModel(settings, path);
    loaded.set(key, entry);
    entry.catch(() => loaded.delete(key));
  }
  return entry;
}

async function loadModel(settings: LlmSettings, path: string): Promise<Loaded> {
  if (!existsSync(path)) throw notFound(settings, path);
  const llama = await getLlama();
  let model: LlamaModule;
  try {
    model = await llama.loadModel({ modelPath: path });
  } catch (error) {
    throw new ModelError(
      "model_invalid",
      `cannot load ${path}: it is not a model file llama.cpp can read (${oneLine(String((error as Error)?.message ?? error), 160)})`,
    );
  }
  const context = await model.createContext({
    ...(settings.contextWindow
      ? { contextSize: Math.min(settings.contextWindow, model.trainContextSize) }
      : {}),
    ...(settings.threads ? { threads: settings.threads } : {}),
  });
  const runtime = await loadRuntime();
  const chat = new runtime.LlamaChat({ contextSequence: context.getSequence() });
  return { model, context, chat, turn: Promise.resolve() };
}

/**
 * The exact size of a request's prompt: the conversation rendered by the model's chat template, with the
 * tools documented as node-llama-cpp documents them, in the model's own tokens.
 */
function promptTokens(state: Loaded, req: Pick<ChatRequest, "messages" | "tools">): number {
  const functions = toFunctions(req.tools ?? []);
  const { contextText } = state.chat.chatWrapper.generateContextState({
    chatHistory: toHistory(req.messages),
    ...(Object.keys(functions).length > 0 ? { availableFunctions: functions } : {}),
  });
  return contextText.tokenize(state.model.tokenizer).length;
}

/** Whether the runtime is there and the model file loads; the window is the loaded context's size. */
async function probeLocal(settings: LlmSettings, path: string): Promise<ModelProbe> {
  try {
    const state = await load(settings, path);
    return {
      ok: true,
      window: { tokens: state.context.contextSize, source: "the embedded model's loaded context" },
    };
  } catch (error) {
    return {
      ok: false,
      error: error instanceof ModelError ? error : new ModelError("model_invalid", String(error)),
    };
  }
}

function notFound(settings: LlmSettings, path: string): ModelError {
  const ref = settings.model;
  const hint =
    ref.includes("/") || ref.endsWith(".gguf") ? "check the path" : `run \`toolgate models pull ${ref}\``;
  return new ModelError("model_not_found", `model ${ref} not found (${path}) — ${hint}`);
}

/** toolgate's messages as node-llama-cpp's chat history; tool results become their call's `result`. */
export function toHistory(messages: readonly ChatMessage[]): unknown[] {
  const history: Record<string, unknown>[] = [];
  const pending = new Map<string, { result?: unknown }>();
  for (const m of messages) {
    if (m.role === "system") history.push({ type: "system", text: m.content });
    else if (m.role === "user") history.push({ type: "user", text: m.content });
    else if (m.role === "assistant") {
      const response: unknown[] = m.content ? [m.content] : [];
      for (const call of m.toolCalls ?? []) {
        const item = { type: "functionCall", name: call.name, params: call.arguments, result: "" as unknown };
        pending.set(call.id, item);
        response.push(item);
      }
      history.push({ type: "model", response });
    } else {
      const call = pending.get(m.toolCallId);
      if (call) call.result = m.content;
    }
  }
  history.push({ type: "model", response: [] });
  return history;
}

/** The OpenAI-flavoured tools payload as node-llama-cpp functions, each schema cut to what a grammar can do. */
export function toFunctions(
  tools: readonly unknown[],
): Record<string, { description?: string; params?: unknown }> {
  const out: Record<string, { description?: string; params?: unknown }> = {};
  for (const tool of tools) {
    const fn = (tool as { function?: { name?: unknown; description?: unknown; parameters?: unknown } })
      .function;
    if (!fn || typeof fn.name !== "string") continue;
    out[fn.name] = {
      ...(typeof fn.description === "string" ? { description: fn.description } : {}),
      ...(fn.parameters ? { params: grammarSchema(fn.parameters) } : {}),
    };
  }
  return out;
}

const ANY = { type: ["string", "number", "boolean", "null"] };
const SCALARS = new Set(["string", "number", "integer", "boolean", "null"]);

/**
 * A JSON schema reduced to the subset node-llama-cpp turns into a grammar: types, properties, required,
 * items, enum, const, one/anyOf, string lengths and array sizes. Whatever else a schema says (patterns,
 * ranges) is still checked by the pipeline's validation before the tool runs.
 */
export function grammarSchema(schema: unknown): unknown {
  if (!schema || typeof schema !== "object") return ANY;
  const s = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  if (typeof s.description === "string") out.description = s.description;
  if (Array.isArray(s.enum)) return { ...out, enum: s.enum };
  if ("const" in s) return { ...out, const: s.const };
  const choices = (s.oneOf ?? s.anyOf) as unknown[] | undefined;
  if (Array.isArray(choices)) return { ...out, oneOf: choices.map(grammarSchema) };
  const type = Array.isArray(s.type) ? s.type : [s.type];
  if (type.includes("object") || s.properties) {
    const properties = (s.properties ?? {}) as Record<string, unknown>;
    // node-llama-cpp's grammar writes every property; an optional one may be null, which means "not given".
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    return {
      ...out,
      type: "object",
      properties: Object.fromEntries(
        Object.entries(properties).map(([k, v]) => [
          k,
          required.has(k) ? grammarSchema(v) : orNull(grammarSchema(v)),
        ]),
      ),
      ...(Array.isArray(s.required) ? { required: s.required } : {}),
      ...(Object.keys(properties).length === 0 ? { additionalProperties: true } : {}),
    };
  }
  if (type.includes("array")) {
    return {
      ...out,
      type: "array",
      items: grammarSchema(s.items),
      ...(typeof s.minItems === "number" ? { minItems: s.minItems } : {}),
      ...(typeof s.maxItems === "number" ? { maxItems: s.maxItems } : {}),
    };
  }
  const scalars = type.filter((t): t is string => typeof t === "string" && SCALARS.has(t));
  if (scalars.length === 0) return { ...out, ...ANY };
  if (scalars.length === 1 && scalars[0] === "string") {
    return {
      ...out,
      type: "string",
      ...(typeof s.minLength === "number" ? { minLength: s.minLength } : {}),
      ...(typeof s.maxLength === "number" ? { maxLength: s.maxLength } : {}),
    };
  }
  return { ...out, type: scalars.length === 1 ? scalars[0] : scalars };
}

/** `schema`, or null (an optional argument the model leaves out). */
function orNull(schema: unknown): unknown {
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.type) && s.type.includes("null")) return schema;
  return { oneOf: [schema, { type: "null" }] };
}
