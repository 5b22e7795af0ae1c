/**
 * @module llm/openai
 * The OpenAI-compatible Chat Completions API (`/v1/chat/completions`: OpenAI, llama.cpp's server, vLLM,
 * LM Studio, hosted services) over `fetch`: SSE streaming (or one JSON body from a server that ignores
 * `stream`), `tool_calls` deltas assembled by index with `function.arguments` arriving as JSON text
 * fragments, `reasoning_content` kept apart, `usage` asked for with `stream_options.include_usage`. A stream
 * ends only with a `finish_reason` or `[DONE]`; an `error` object inside it is an error.
 */
import { cancelledError, ModelError, modelNotFoundMessage, oneLine } from "./errors.js";
import { isWholeJson, lines, request, streamError, wholeBody } from "./http.js";
import { ReplyBuilder } from "./reply.js";
import { DEFAULT_MAX_RETRIES, withLengthRetry, withRetries } from "./retry.js";
import type {
  ChatMessage,
  ChatModel,
  ChatReply,
  ChatRequest,
  LlmSettings,
  ModelProbe,
  ModelToolCall,
} from "./types.js";

/** A tool call being assembled from deltas. */
interface Partial {
  id: string;
  name: string;
  args: string;
}

/**
 * Creates a model talking to an OpenAI-compatible server.
 * @example createOpenAIModel({ provider: "openai", model: "gpt-4o-mini", baseUrl: "https://api.openai.com/v1", apiKey })
 */
export function createOpenAIModel(settings: LlmSettings): ChatModel {
  const s = { ...settings, provider: "openai" as const };
  return {
    provider: "openai",
    model: settings.model,
    baseUrl: settings.baseUrl,
    schemaProvider: "openai",
    ...(settings.contextWindow ? { contextWindow: settings.contextWindow } : {}),
    chat: (req) =>
      withLengthRetry(s, req, (r) =>
        withRetries(settings.maxRetries ?? DEFAULT_MAX_RETRIES, r, () => chatOnce(s, r)),
      ),
    probe: (signal) => probeOpenAI(s, signal ?? new AbortController().signal),
  };
}

/** The request body: messages in OpenAI's shape and `[llm]` options in OpenAI's terms. */
export function openaiBody(settings: LlmSettings, req: ChatRequest): Record<string, unknown> {
  const o = settings.options ?? {};
  const hasTools = Boolean(req.tools && req.tools.length > 0);
  const effort = o.think === true ? "medium" : typeof o.think === "string" ? o.think : undefined;
  return {
    model: settings.model,
    messages: req.messages.map(toWireMessage),
    ...(hasTools ? { tools: req.tools } : {}),
    ...(req.schema
      ? {
          response_format: {
            type: "json_schema",
            json_schema: { name: req.schema.name, schema: req.schema.schema, strict: true },
          },
        }
      : req.json
        ? { response_format: { type: "json_object" } }
        : {}),
    stream: true,
    stream_options: { include_usage: true },
    ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    ...((req.maxTokens ?? o.maxTokens) !== undefined ? { max_tokens: req.maxTokens ?? o.maxTokens } : {}),
    ...(effort ? { reasoning_effort: effort } : {}),
    ...(hasTools && o.toolChoice ? { tool_choice: o.toolChoice } : {}),
    ...(hasTools && o.parallelToolCalls !== undefined ? { parallel_tool_calls: o.parallelToolCalls } : {}),
  };
}

async function chatOnce(settings: LlmSettings, req: ChatRequest): Promise<ChatReply> {
  const signal = req.signal ?? new AbortController().signal;
  const server = `the model server at ${settings.baseUrl}`;
  const res = await request(
    settings,
    `${settings.baseUrl}/chat/completions`,
    openaiBody(settings, req),
    signal,
  );
  const reply = new ReplyBuilder(req);
  const partials = new Map<number, Partial>();
  const read = (payload: string) => {
    let chunk: OpenAIChunk;
    try {
      chunk = JSON.parse(payload) as OpenAIChunk;
    } catch {
      throw new ModelError("bad_reply", `${server} sent data that is not JSON: ${oneLine(payload, 120)}`);
    }
    readChunk(settings, chunk, reply, partials);
  };
  try {
    if (isWholeJson(res.contentType)) {
      for await (const body of wholeBody(res.chunks())) read(body);
    } else {
      for await (const line of lines(res.chunks())) {
        // SSE: only `data:` lines carry payloads; comments (`:`), `event:` and `id:` lines do not.
        if (!line.startsWith("data:")) continue;
        const payload = line.slice(5).trim();
        if (payload === "[DONE]") {
          reply.finished = true;
          break;
        }
        if (payload !== "") read(payload);
      }
    }
  } catch (error) {
    reply.toolCalls = assemble(partials);
    throw reply.cut(error instanceof ModelError ? error : new ModelError("bad_reply", String(error)));
  }
  reply.toolCalls = assemble(partials);
  if (signal.aborted) throw cancelledError();
  return reply.finish(server);
}

interface OpenAIDelta {
  content?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
  tool_calls?: unknown;
  refusal?: unknown;
}

interface OpenAIChunk {
  choices?: { delta?: OpenAIDelta; message?: OpenAIDelta; finish_reason?: unknown }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: unknown;
}

function readChunk(
  settings: LlmSettings,
  chunk: OpenAIChunk,
  reply: ReplyBuilder,
  partials: Map<number, Partial>,
): void {
  if (chunk.error !== undefined && chunk.error !== null)
    throw streamError(settings, `the model server at ${settings.baseUrl}`, chunk.error);
  if (chunk.usage && typeof chunk.usage === "object")
    reply.usage = {
      promptTokens: chunk.usage.prompt_tokens ?? 0,
      completionTokens: chunk.usage.completion_tokens ?? 0,
    };
  const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  if (!choice) return;
  // A stream's chunks carry `delta`; a whole (non-streamed) body carries `message`.
  const delta = choice.delta ?? choice.message;
  reply.addThinking(delta?.reasoning_content ?? delta?.reasoning);
  reply.addText(delta?.content);
  if (typeof delta?.refusal === "string") reply.refusal += delta.refusal;
  const parts = Array.isArray(delta?.tool_calls) ? delta.tool_calls : [];
  parts.forEach((raw, i) => {
    const part = raw as { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    const index = typeof part?.index === "number" ? part.index : choice.message ? i : partials.size;
    let entry = partials.get(index);
    if (!entry) {
      entry = { id: "", name: "", args: "" };
      partials.set(index, entry);
    }
    if (typeof part?.id === "string" && part.id) entry.id = part.id;
    // Servers that send a name or arguments as JSON values instead of text get them read as text.
    const fn = part?.function;
    if (fn?.name !== undefined && fn.name !== null)
      entry.name += typeof fn.name === "string" ? fn.name : JSON.stringify(fn.name);
    if (fn?.arguments !== undefined && fn.arguments !== null)
      entry.args += typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments);
  });
  if (parts.length > 0) reply.sawToolCall = true;
  if (typeof choice.finish_reason === "string" && choice.finish_reason) {
    reply.finishReason = choice.finish_reason;
    reply.finished = true;
  }
}

function assemble(partials: Map<number, Partial>): ModelToolCall[] {
  return [...partials.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, p]) => ({
      id: p.id || `call_${index + 1}`,
      name: p.name,
      arguments: parseArguments(p.args),
    }));
}

/** Arguments as an object when the text is JSON; otherwise the raw text (validation will say what is wrong). */
function parseArguments(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toWireMessage(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case "assistant": {
      const out: Record<string, unknown> = { role: "assistant", content: message.content };
      if (message.toolCalls?.length)
        out.tool_calls = message.toolCalls.map((c) => ({
          id: c.id,
          type: "function",
          function: {
            name: c.name,
            arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
          },
        }));
      return out;
    }
    case "tool":
      return { role: "tool", content: message.content, tool_call_id: message.toolCallId };
    default:
      return { role: message.role, content: message.content };
  }
}

/**
 * `GET /models`: is the server there, does it list the model, and what window does it state — vLLM's
 * `max_model_len`; for llama.cpp's server, `/props` (`default_generation_settings.n_ctx`, the window of one
 * slot), else `meta.n_ctx` where a build lists it (upstream lists only `n_ctx_train`, the model's maximum,
 * which is not used). A server without the list is trusted.
 */
async function probeOpenAI(settings: LlmSettings, signal: AbortSignal): Promise<ModelProbe> {
  let entry: ListedModel | undefined;
  try {
    const data = (
      JSON.parse(await getText(settings, `${settings.baseUrl}/models`, signal)) as {
        data?: ListedModel[];
      }
    ).data;
    if (Array.isArray(data)) {
      entry = data.find((m) => m?.id === settings.model);
      if (!entry)
        return { ok: false, error: new ModelError("model_not_found", modelNotFoundMessage(settings), 404) };
    }
  } catch (error) {
    if (error instanceof ModelError && SETUP_FAILURES.has(error.kind)) return { ok: false, error };
    // A server without a model list (404 on /models) may still serve the model.
    return { ok: true };
  }
  const window = entry ? await listedWindow(settings, entry, signal) : undefined;
  return { ok: true, ...(window ? { window } : {}) };
}

/** Failures of the listing that mean the server cannot be used as configured. */
const SETUP_FAILURES = new Set(["unreachable", "auth", "timeout"]);

interface ListedModel {
  id?: unknown;
  owned_by?: unknown;
  max_model_len?: unknown;
  meta?: { n_ctx?: unknown };
}

async function listedWindow(
  settings: LlmSettings,
  entry: ListedModel,
  signal: AbortSignal,
): Promise<{ tokens: number; source: string } | undefined> {
  if (wholeNumber(entry.max_model_len))
    return { tokens: entry.max_model_len as number, source: "/models (max_model_len, vLLM)" };
  // /props first: a listed n_ctx may be the whole context, shared by several slots.
  const slot = entry.owned_by === "llamacpp" ? await propsWindow(settings, signal) : undefined;
  if (slot) return slot;
  if (wholeNumber(entry.meta?.n_ctx))
    return { tokens: entry.meta?.n_ctx as number, source: "/models (meta.n_ctx, llama.cpp)" };
  return undefined;
}

/** llama.cpp's `/props`: the context of one slot, which is what one request may fill. */
async function propsWindow(
  settings: LlmSettings,
  signal: AbortSignal,
): Promise<{ tokens: number; source: string } | undefined> {
  try {
    const props = JSON.parse(
      await getText(settings, `${settings.baseUrl.replace(/\/v1$/, "")}/props`, signal),
    ) as {
      default_generation_settings?: { n_ctx?: unknown };
    };
    const nCtx = props.default_generation_settings?.n_ctx;
    return wholeNumber(nCtx) ? { tokens: nCtx as number, source: "/props (n_ctx, llama.cpp)" } : undefined;
  } catch {
    return undefined;
  }
}

function wholeNumber(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value > 0;
}

async function getText(settings: LlmSettings, url: string, signal: AbortSignal): Promise<string> {
  const res = await request(settings, url, undefined, signal);
  let text = "";
  for await (const piece of res.chunks()) text += piece;
  return text;
}
