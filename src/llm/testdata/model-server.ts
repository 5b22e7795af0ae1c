/**
 * @module llm/testdata/model-server
 * A local model server for tests (127.0.0.1, port 0) speaking Ollama's `/api/chat` (NDJSON) and the
 * OpenAI-compatible `/v1/chat/completions` (SSE) exactly: streamed text pieces, tool calls (whole objects
 * for Ollama; index-keyed deltas with argument fragments for OpenAI), errors in each server's shape. It
 * replays scripted replies, or raw recorded wire text from fixture files, and records every request.
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

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

export interface ModelServer {
  /** `http://127.0.0.1:PORT` (Ollama base URL). */
  url: string;
  /** `http://127.0.0.1:PORT/v1` (OpenAI base URL). */
  openaiUrl: string;
  /** Every request body, in order. */
  requests: ChatBody[];
  /** Queues replies; each request takes the next one. */
  push(...replies: ReplySource[]): void;
  /** Replies still queued. */
  remaining(): number;
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
export async function startModelServer(models: readonly string[] = ["test-model"]): Promise<ModelServer> {
  const queue: ReplySource[] = [];
  const requests: ChatBody[] = [];
  const open = new Set<ServerResponse>();
  const server: Server = createServer(async (req, res) => {
    open.add(res);
    res.on("close", () => open.delete(res));
    const body = JSON.parse((await readBody(req)) || "{}") as ChatBody;
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
    const source = queue.shift();
    const reply: ScriptedReply = !source
      ? { error: { status: 500, message: "the test server has no reply queued" } }
      : typeof source === "function"
        ? source(body)
        : source;
    if (reply.error) {
      if (api === "ollama") sendJson(res, reply.error.status, { error: reply.error.message });
      else
        sendJson(res, reply.error.status, { error: { message: reply.error.message, type: "server_error" } });
      return;
    }
    const contentType = api === "ollama" ? "application/x-ndjson" : "text/event-stream";
    res.writeHead(200, { "content-type": contentType, "cache-control": "no-cache" });
    if (reply.hang) {
      res.write(api === "ollama" ? ollamaChunk(body.model, { content: "" }, false) : "");
      return;
    }
    const text =
      reply.raw ?? (api === "ollama" ? ollamaWire(body.model, reply) : openaiWire(body.model, reply));
    // Several writes, so clients see a real stream (pieces may split anywhere).
    const cut = Math.max(1, Math.floor(text.length / 3));
    for (let i = 0; i < text.length; i += cut) {
      res.write(text.slice(i, i + cut));
      await new Promise((r) => setImmediate(r));
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    openaiUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    push: (...replies) => void queue.push(...replies),
    remaining: () => queue.length,
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
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
  out += ollamaChunk(model, { content: "" }, true, {
    done_reason: "stop",
    total_duration: 1000,
    eval_count: 3,
  });
  return out;
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
  out += event({}, reply.toolCalls?.length ? "tool_calls" : "stop");
  out += "data: [DONE]\n\n";
  return out;
}
