/**
 * @module llm/testdata/model-server
 * A local model server for tests (127.0.0.1, port 0) speaking Ollama's `/api/chat` (NDJSON) and the
 * OpenAI-compatible `/v1/chat/completions` (SSE) exactly: streamed text pieces, tool calls (whole objects
 * for Ollama; index-keyed deltas with argument fragments for OpenAI), errors in each server's shape. It
 * replays scripted replies, or raw recorded wire text from fixture files, and records every request.
 * Failure modes real servers show are scriptable: silence (before or after the headers), a reset connection
 * (before the reply or in the middle of it), a stream without its terminal chunk, `length`, an error object
 * inside a 200 stream, a non-streamed JSON body, 429 with `Retry-After`. It also answers `/api/show`
 * (context length), `/v1/models` and `/props`. Every prompt is counted and held against the window as the
 * server it plays would (`prompt-window.ts`): an over-long one is cut and counted as kept (Ollama before
 * 0.12.6) or refused with that server's own 400 (before a reply is taken from the queue); token counts are
 * the server's count of the prompt unless a reply scripts its own.
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  fourCharsPerToken,
  type JudgedPrompt,
  judgePrompt,
  type Tokenizer,
  type WindowBehaviour,
} from "./prompt-window.js";

/** One scripted reply. */
export interface ScriptedReply {
  text?: string;
  /** Sent as `message.thinking` (Ollama) or `delta.reasoning_content` (OpenAI). */
  thinking?: string;
  toolCalls?: { name: string; arguments: unknown }[];
  /** An HTTP error instead of a reply. */
  error?: { status: number; message: string };
  /** Raw wire text (NDJSON lines or SSE events), sent as recorded. */
  raw?: string;
  /** Stop after the headers and never finish (for cancellation). */
  hang?: boolean;
  /** Accept the request and send nothing at all, not even headers. */
  silent?: boolean;
  /** Reset the connection before answering. */
  reset?: boolean;
  /** Send this share (0–1) of the wire text, then reset the connection. */
  cutAt?: number;
  /** Send this share (0–1) of the wire text, then go silent with the connection open. */
  stallAt?: number;
  /** Leave out the terminal chunk (Ollama `done: true`; OpenAI `finish_reason` and `[DONE]`). */
  noTerminal?: boolean;
  /** The finish reason to report (default "stop", or "tool_calls" with calls on OpenAI). */
  finishReason?: string;
  /** Answer with one JSON body, as a server that ignores `stream: true` does. */
  whole?: boolean;
  /** After the text, an error object inside the 200 stream. */
  streamError?: string;
  /** Token counts to report (Ollama `prompt_eval_count`/`eval_count`, OpenAI `usage`). */
  usage?: { prompt: number; completion: number };
  /** Headers added to an `error` reply (e.g. `Retry-After`). */
  headers?: Record<string, string>;
}

/** A reply, or a function of the request body that picks one. */
export type ReplySource = ScriptedReply | ((body: ChatBody) => ScriptedReply);

/** What a client sent (the JSON body). */
export interface ChatBody {
  model: string;
  messages: { role: string; content?: string | null; [key: string]: unknown }[];
  tools?: { function: { name: string } }[];
  stream?: boolean;
  [key: string]: unknown;
}

/** How the server plays a real one with the window (see prompt-window.ts). */
export interface ModelServerOptions {
  behaviour?: WindowBehaviour;
  /** How it counts a rendered prompt (default: a token per 4 characters). */
  tokenize?: Tokenizer;
  /** The prompt count it reports instead of its own (a server reporting nonsense). */
  reportPrompt?: (judged: JudgedPrompt) => number;
  /** Fields added to each model's entry in `/v1/models` (a build that lists more than its flavour does). */
  listing?: Record<string, unknown>;
}

export interface ModelServer {
  /** `http://127.0.0.1:PORT` (Ollama base URL). */
  url: string;
  /** `http://127.0.0.1:PORT/v1` (OpenAI base URL). */
  openaiUrl: string;
  /** Every request body, in order. */
  requests: ChatBody[];
  /** What the server made of each chat request's prompt, in order (for requests to a known model). */
  prompts: JudgedPrompt[];
  /** Queues replies; each request takes the next one. */
  push(...replies: ReplySource[]): void;
  /** Replies still queued. */
  remaining(): number;
  /** Drops the replies still queued. */
  clear(): void;
  close(): Promise<void>;
}

const here = dirname(fileURLToPath(import.meta.url));

/** Reads a recorded fixture from `src/llm/testdata/fixtures/` (works from `dist/` too). */
export function fixture(name: string): string {
  const candidates = [join(here, "fixtures", name), join(here, "../../../src/llm/testdata/fixtures", name)];
  for (const path of candidates) {
    try {
      return readFileSync(path, "utf8");
    } catch {
      // try the next
    }
  }
  throw new Error(`fixture ${name} not found`);
}

/**
 * Starts a server. `models` lists the models it has (others get each API's "not found" error).
 * @example const server = await startModelServer(["qwen3"]); server.push({ text: "hi" });
 */
export async function startModelServer(
  models: readonly string[] = ["test-model"],
  contextLength = 8192,
  options: ModelServerOptions = {},
): Promise<ModelServer> {
  const queue: ReplySource[] = [];
  const requests: ChatBody[] = [];
  const prompts: JudgedPrompt[] = [];
  const flavour = options.behaviour?.openai ?? "openai";
  const open = new Set<ServerResponse>();
  const server: Server = createServer(async (req, res) => {
    open.add(res);
    res.on("close", () => open.delete(res));
    const body = JSON.parse((await readBody(req)) || "{}") as ChatBody;
    if (req.url === "/api/show" && req.method === "POST") {
      if (!models.includes(body.model)) sendJson(res, 404, { error: `model '${body.model}' not found` });
      else
        sendJson(res, 200, {
          details: { family: "test" },
          // A model named "…:text" cannot call tools natively, as Ollama reports for such models.
          capabilities: body.model.endsWith(":text") ? ["completion"] : ["completion", "tools"],
          model_info: { "general.architecture": "test", "test.context_length": contextLength },
          // A model named "…-ctxN" has a Modelfile setting num_ctx N, as `ollama show` lists parameters.
          parameters: `${/-ctx(\d+)$/.test(body.model) ? `num_ctx                        ${/-ctx(\d+)$/.exec(body.model)![1]}\n` : ""}stop                           "<|im_end|>"`,
        });
      return;
    }
    if (req.url === "/v1/models" && req.method === "GET") {
      sendJson(res, 200, {
        object: "list",
        data: models.map((id) => ({ ...listed(id, flavour, contextLength), ...options.listing })),
      });
      return;
    }
    if (req.url === "/props" && req.method === "GET" && flavour === "llama.cpp") {
      // llama.cpp: the window of one slot, beside the sampling defaults.
      sendJson(res, 200, {
        default_generation_settings: { n_ctx: contextLength, params: { temperature: 0.8 } },
        total_slots: 1,
        model_path: `/models/${models[0]}.gguf`,
      });
      return;
    }
    const api =
      req.url === "/api/chat" ? "ollama" : req.url === "/v1/chat/completions" ? "openai" : undefined;
    if (!api || req.method !== "POST") {
      res.writeHead(404, { "content-type": "text/plain" }).end("404 page not found");
      return;
    }
    requests.push(body);
    if (!models.includes(body.model)) {
      if (api === "ollama")
        sendJson(res, 404, { error: `model "${body.model}" not found, try pulling it first` });
      else
        sendJson(res, 404, {
          error: {
            message: `The model \`${body.model}\` does not exist.`,
            type: "invalid_request_error",
            param: null,
            code: "model_not_found",
          },
        });
      return;
    }
    const judged = judgePrompt(
      api,
      body,
      contextLength,
      options.behaviour ?? {},
      options.tokenize ?? fourCharsPerToken,
    );
    prompts.push(judged);
    if (judged.refusal) {
      sendJson(res, judged.refusal.status, judged.refusal.body);
      return;
    }
    const counted = options.reportPrompt ? options.reportPrompt(judged) : judged.kept;
    const source = queue.shift();
    const scripted: ScriptedReply = !source
      ? { error: { status: 500, message: "the test server has no reply queued" } }
      : typeof source === "function"
        ? source(body)
        : source;
    // The server's own count, unless the script says one.
    const reply: ScriptedReply = { ...scripted, usage: scripted.usage ?? { prompt: counted, completion: 3 } };
    if (reply.silent) return;
    if (reply.reset) {
      req.socket.resetAndDestroy();
      return;
    }
    if (reply.error) {
      for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
      if (api === "ollama") sendJson(res, reply.error.status, { error: reply.error.message });
      else
        sendJson(res, reply.error.status, { error: { message: reply.error.message, type: "server_error" } });
      return;
    }
    if (reply.whole) {
      sendJson(res, 200, api === "ollama" ? ollamaWhole(body.model, reply) : openaiWhole(body.model, reply));
      return;
    }
    const contentType = api === "ollama" ? "application/x-ndjson" : "text/event-stream";
    res.writeHead(200, { "content-type": contentType, "cache-control": "no-cache" });
    if (reply.hang) {
      res.write(api === "ollama" ? ollamaChunk(body.model, { content: "" }, false) : ": waiting\n\n");
      return;
    }
    const text =
      reply.raw ?? (api === "ollama" ? ollamaWire(body.model, reply) : openaiWire(body.model, reply));
    const share = reply.cutAt ?? reply.stallAt;
    const end = share === undefined ? text.length : Math.floor(text.length * share);
    // Several writes, so clients see a real stream (pieces may split anywhere).
    const cut = Math.max(1, Math.floor(text.length / 3));
    for (let i = 0; i < end; i += cut) {
      res.write(text.slice(i, Math.min(end, i + cut)));
      await new Promise((r) => setImmediate(r));
    }
    if (reply.stallAt !== undefined) return;
    if (reply.cutAt !== undefined) {
      // Let the written part reach the client, then cut the connection as a crashing server would.
      await new Promise((r) => setTimeout(r, 50));
      req.socket.resetAndDestroy();
      return;
    }
    res.end();
  });
  // Idle keep-alive connections are closed by the client (fetch keeps one a little less than the server
  // says), never by this server: with Node's 5 s default the server could close a connection just as a
  // starved client sent its next request on it, which reached the test as a connection reset.
  server.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    openaiUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    prompts,
    push: (...replies) => void queue.push(...replies),
    remaining: () => queue.length,
    clear: () => void queue.splice(0),
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A model in `/v1/models` as each server lists it. */
function listed(
  id: string,
  flavour: WindowBehaviour["openai"],
  contextLength: number,
): Record<string, unknown> {
  const own =
    flavour === "vllm"
      ? { owned_by: "vllm", root: id, max_model_len: contextLength }
      : flavour === "llama.cpp"
        ? // Older llama.cpp servers list the training context only; the window is in /props.
          { owned_by: "llamacpp", meta: { n_ctx_train: contextLength * 4 } }
        : { owned_by: "test" };
  return { id, object: "model", ...(flavour === "openai" ? {} : { created: 1735689600 }), ...own };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = "";
    req.setEncoding("utf8");
    req.on("data", (c) => {
      data += c;
    });
    req.on("end", () => resolve(data));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(value));
}

/** Splits text into a few pieces, as a model streams tokens. */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 7) out.push(text.slice(i, i + 7));
  return out;
}

function ollamaChunk(model: string, message: Record<string, unknown>, done: boolean, extra = {}): string {
  const base = {
    model,
    created_at: "2025-01-01T00:00:00.000000Z",
    message: { role: "assistant", ...message },
  };
  return `${JSON.stringify({ ...base, done, ...extra })}\n`;
}

/** Ollama NDJSON: thinking pieces, content pieces, one chunk with the tool calls, then `done`. */
export function ollamaWire(model: string, reply: ScriptedReply): string {
  let out = "";
  for (const p of pieces(reply.thinking ?? ""))
    out += ollamaChunk(model, { content: "", thinking: p }, false);
  for (const p of pieces(reply.text ?? "")) out += ollamaChunk(model, { content: p }, false);
  if (reply.toolCalls?.length)
    out += ollamaChunk(
      model,
      {
        content: "",
        tool_calls: reply.toolCalls.map((c) => ({ function: { name: c.name, arguments: c.arguments } })),
      },
      false,
    );
  if (reply.streamError) return `${out}${JSON.stringify({ error: reply.streamError })}\n`;
  if (reply.noTerminal) return out;
  out += ollamaChunk(model, { content: "" }, true, {
    done_reason: reply.finishReason ?? "stop",
    total_duration: 1000,
    prompt_eval_count: reply.usage?.prompt ?? 10,
    eval_count: reply.usage?.completion ?? 3,
  });
  return out;
}

/** Ollama's reply to `stream: false`: one object with the whole message. */
function ollamaWhole(model: string, reply: ScriptedReply): Record<string, unknown> {
  const message: Record<string, unknown> = { role: "assistant", content: reply.text ?? "" };
  if (reply.thinking) message.thinking = reply.thinking;
  if (reply.toolCalls?.length)
    message.tool_calls = reply.toolCalls.map((c) => ({ function: { name: c.name, arguments: c.arguments } }));
  return {
    model,
    created_at: "2025-01-01T00:00:00.000000Z",
    message,
    done: true,
    done_reason: reply.finishReason ?? "stop",
    prompt_eval_count: reply.usage?.prompt ?? 10,
    eval_count: reply.usage?.completion ?? 3,
  };
}

/** OpenAI's reply to `stream: false`: a `chat.completion` with `message` and `usage`. */
function openaiWhole(model: string, reply: ScriptedReply): Record<string, unknown> {
  const message: Record<string, unknown> = { role: "assistant", content: reply.text ?? null };
  if (reply.thinking) message.reasoning_content = reply.thinking;
  if (reply.toolCalls?.length)
    message.tool_calls = reply.toolCalls.map((c, i) => ({
      id: `call_${i}_x`,
      type: "function",
      function: {
        name: c.name,
        arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
      },
    }));
  return {
    id: "chatcmpl-test",
    object: "chat.completion",
    created: 1735689600,
    model,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: reply.finishReason ?? (reply.toolCalls?.length ? "tool_calls" : "stop"),
      },
    ],
    usage: {
      prompt_tokens: reply.usage?.prompt ?? 10,
      completion_tokens: reply.usage?.completion ?? 3,
      total_tokens: (reply.usage?.prompt ?? 10) + (reply.usage?.completion ?? 3),
    },
  };
}

/** OpenAI SSE: role delta, reasoning/content deltas, tool call deltas by index with argument fragments. */
export function openaiWire(model: string, reply: ScriptedReply): string {
  const id = "chatcmpl-test";
  const event = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created: 1735689600,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    })}\n\n`;
  let out = event({ role: "assistant", content: "" });
  for (const p of pieces(reply.thinking ?? "")) out += event({ reasoning_content: p });
  for (const p of pieces(reply.text ?? "")) out += event({ content: p });
  (reply.toolCalls ?? []).forEach((call, index) => {
    const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
    out += event({
      tool_calls: [
        { index, id: `call_${index}_x`, type: "function", function: { name: call.name, arguments: "" } },
      ],
    });
    for (const fragment of pieces(args))
      out += event({ tool_calls: [{ index, function: { arguments: fragment } }] });
  });
  if (reply.streamError)
    return `${out}data: ${JSON.stringify({ error: { message: reply.streamError, type: "server_error", code: null } })}\n\n`;
  if (reply.noTerminal) return out;
  out += event({}, reply.finishReason ?? (reply.toolCalls?.length ? "tool_calls" : "stop"));
  // With stream_options.include_usage, a last chunk with no choices carries the counts.
  out += `data: ${JSON.stringify({
    id,
    object: "chat.completion.chunk",
    created: 1735689600,
    model,
    choices: [],
    usage: {
      prompt_tokens: reply.usage?.prompt ?? 10,
      completion_tokens: reply.usage?.completion ?? 3,
      total_tokens: (reply.usage?.prompt ?? 10) + (reply.usage?.completion ?? 3),
    },
  })}\n\n`;
  out += "data: [DONE]\n\n";
  return out;
}
