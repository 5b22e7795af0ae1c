/**
 * @module llm/ollama
 * Ollama's native API over `fetch`: `/api/chat` as NDJSON (or one JSON body from a server that ignores
 * `stream`), tool calls whose `function.arguments` are objects, `message.thinking` kept apart, token counts
 * from `prompt_eval_count`/`eval_count`, a stream ends only with `done: true`. `/api/show` tells whether
 * the model is there and its context window. Every request says `truncate: false`: an Ollama that knows the
 * flag (0.12.6 and later) then refuses a prompt longer than `num_ctx` instead of dropping its oldest messages
 * (the system prompt stays, the user's task goes) or cutting it; older servers still cut silently, which
 * the loop reads from `prompt_eval_count` (`cutsLongPrompts`).
 */
import { randomBytes } from "node:crypto";
import { cancelledError, ModelError, modelNotFoundMessage, oneLine } from "./errors.js";
import { isWholeJson, lines, request, streamError, wholeBody } from "./http.js";
import { ReplyBuilder } from "./reply.js";
import { DEFAULT_MAX_RETRIES, withLengthRetry, withRetries } from "./retry.js";
import type { ChatMessage, ChatModel, ChatReply, ChatRequest, LlmSettings, ModelProbe } from "./types.js";

/** Ollama's default address. */
export const OLLAMA_DEFAULT_URL = "http://127.0.0.1:11434";

/**
 * Creates a model talking to Ollama.
 * @example const model = createOllamaModel({ provider: "ollama", model: "qwen3", baseUrl: OLLAMA_DEFAULT_URL });
 */
export function createOllamaModel(settings: LlmSettings): ChatModel {
  const s = { ...settings, provider: "ollama" as const };
  return {
    provider: "ollama",
    model: settings.model,
    baseUrl: settings.baseUrl,
    schemaProvider: "ollama",
    ...(settings.contextWindow ? { contextWindow: settings.contextWindow } : {}),
    cutsLongPrompts: true,
    chat: (req) =>
      withLengthRetry(s, req, (r) =>
        withRetries(settings.maxRetries ?? DEFAULT_MAX_RETRIES, r, () => chatOnce(s, r)),
      ),
    probe: (signal) => probeOllama(s, signal ?? new AbortController().signal),
  };
}

/** The request body: messages in Ollama's shape and `[llm]` options in Ollama's terms. */
export function ollamaBody(settings: LlmSettings, req: ChatRequest): Record<string, unknown> {
  const o = settings.options ?? {};
  const options: Record<string, unknown> = {};
  if (o.temperature !== undefined) options.temperature = o.temperature;
  const maxTokens = req.maxTokens ?? o.maxTokens;
  if (maxTokens !== undefined) options.num_predict = maxTokens;
  const numCtx = req.contextWindow ?? settings.contextWindow;
  if (numCtx) options.num_ctx = numCtx;
  return {
    model: settings.model,
    messages: req.messages.map(toOllamaMessage),
    ...(req.tools && req.tools.length > 0 ? { tools: req.tools } : {}),
    ...(req.schema ? { format: req.schema.schema } : req.json ? { format: "json" } : {}),
    stream: true,
    truncate: false,
    ...(Object.keys(options).length > 0 ? { options } : {}),
    ...(o.think !== undefined ? { think: o.think } : {}),
    ...(o.keepAlive !== undefined ? { keep_alive: o.keepAlive } : {}),
  };
}

async function chatOnce(settings: LlmSettings, req: ChatRequest): Promise<ChatReply> {
  const signal = req.signal ?? new AbortController().signal;
  const server = `Ollama at ${settings.baseUrl}`;
  const res = await request(settings, `${settings.baseUrl}/api/chat`, ollamaBody(settings, req), signal);
  const reply = new ReplyBuilder(req);
  try {
    const source = isWholeJson(res.contentType) ? wholeBody(res.chunks()) : lines(res.chunks());
    for await (const line of source) {
      if (line.trim() === "") continue;
      let chunk: OllamaChunk;
      try {
        chunk = JSON.parse(line) as OllamaChunk;
      } catch {
        throw new ModelError("bad_reply", `${server} sent a line that is not JSON: ${oneLine(line, 120)}`);
      }
      readChunk(settings, chunk, reply);
    }
  } catch (error) {
    throw reply.cut(error instanceof ModelError ? error : new ModelError("bad_reply", String(error)));
  }
  if (signal.aborted) throw cancelledError();
  return reply.finish(server);
}

interface OllamaChunk {
  message?: { content?: unknown; thinking?: unknown; tool_calls?: unknown };
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  error?: unknown;
}

function readChunk(settings: LlmSettings, chunk: OllamaChunk, reply: ReplyBuilder): void {
  if (chunk.error !== undefined) throw streamError(settings, `Ollama at ${settings.baseUrl}`, chunk.error);
  const message = chunk.message;
  reply.addThinking(message?.thinking);
  reply.addText(message?.content);
  for (const call of Array.isArray(message?.tool_calls) ? message.tool_calls : []) {
    // A malformed call (no function, a name that is not text) is kept, for the loop to answer.
    const c = call as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    reply.toolCalls.push({
      // Ollama gives no id (or one per round); ours are unique in the session, so answers never mix.
      id: `call_${randomBytes(6).toString("hex")}`,
      name: typeof c?.function?.name === "string" ? c.function.name : "",
      arguments: c?.function?.arguments ?? {},
    });
  }
  if (chunk.done === true) {
    reply.finished = true;
    if (typeof chunk.done_reason === "string") reply.finishReason = chunk.done_reason;
    if (typeof chunk.prompt_eval_count === "number" || typeof chunk.eval_count === "number")
      reply.usage = { promptTokens: chunk.prompt_eval_count ?? 0, completionTokens: chunk.eval_count ?? 0 };
  }
}

function toOllamaMessage(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case "assistant": {
      const out: Record<string, unknown> = { role: "assistant", content: message.content };
      if (message.toolCalls?.length)
        out.tool_calls = message.toolCalls.map((c) => ({
          function: { name: c.name, arguments: argumentsObject(c.arguments) },
        }));
      return out;
    }
    case "tool":
      return { role: "tool", content: message.content, tool_name: message.name };
    default:
      return { role: message.role, content: message.content };
  }
}

/** Ollama wants an object; a call whose arguments were unreadable text goes back as `{}`. */
function argumentsObject(args: unknown): Record<string, unknown> {
  if (args && typeof args === "object" && !Array.isArray(args)) return args as Record<string, unknown>;
  if (typeof args === "string") {
    try {
      const parsed = JSON.parse(args);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed;
    } catch {
      // fall through
    }
  }
  return {};
}

/**
 * `/api/show`: is the model there, and its window — the `num_ctx` its Modelfile sets, else the largest
 * its architecture allows (`<arch>.context_length`, which toolgate caps: Ollama allocates what it is sent).
 */
async function probeOllama(settings: LlmSettings, signal: AbortSignal): Promise<ModelProbe> {
  try {
    const res = await request(settings, `${settings.baseUrl}/api/show`, { model: settings.model }, signal);
    let text = "";
    for await (const piece of res.chunks()) text += piece;
    const shown = JSON.parse(text) as {
      model_info?: Record<string, unknown>;
      capabilities?: unknown;
      parameters?: unknown;
    };
    const info = shown.model_info ?? {};
    const key = Object.keys(info).find((k) => k.endsWith(".context_length"));
    const maximum = key && typeof info[key] === "number" ? (info[key] as number) : undefined;
    const parameters = typeof shown.parameters === "string" ? shown.parameters : "";
    const set = /^\s*num_ctx\s+(\d+)\s*$/m.exec(parameters);
    const numCtx = set ? Number(set[1]) : undefined;
    const window =
      numCtx && numCtx > 0
        ? { tokens: maximum ? Math.min(numCtx, maximum) : numCtx, source: "/api/show (the model's num_ctx)" }
        : maximum
          ? { tokens: maximum, source: `/api/show (${key})`, maximum: true }
          : undefined;
    // Older servers list no capabilities: assume tools work (the chat request will say if not).
    const tools = Array.isArray(shown.capabilities) ? shown.capabilities.includes("tools") : undefined;
    return { ok: true, ...(window ? { window } : {}), ...(tools === false ? { tools } : {}) };
  } catch (error) {
    if (error instanceof ModelError) {
      // /api/show answers 404 for a model that is not pulled, whatever its text says.
      if (error.status === 404)
        return { ok: false, error: new ModelError("model_not_found", modelNotFoundMessage(settings), 404) };
      return { ok: false, error };
    }
    return {
      ok: false,
      error: new ModelError(
        "bad_reply",
        `Ollama at ${settings.baseUrl} answered /api/show with something else`,
      ),
    };
  }
}
