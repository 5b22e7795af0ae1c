/**
 * @module bench/loop
 * The agent loop's own cost, model time excluded: a turn of two model calls (a read_file call, then the
 * answer) through `AgentSession` against a replay server on 127.0.0.1 speaking Ollama NDJSON, beside an
 * anchor doing the same work by hand in the same run — the same two requests posted with `fetch` and read
 * to the end, and the same read_file call through `gate.execute`. (The context budget's own cost is in
 * context.bench.ts.)
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChatMessage, createChatModel } from "../llm/index.js";
import { AgentSession } from "../loop/index.js";
import { createToolgate } from "../toolgate.js";
import { fmt, measure, report } from "./harness.js";

const CALL =
  '{"model":"m","created_at":"2025-06-01T10:00:00Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"read_file","arguments":{"path":"notes.txt"}}}]},"done":false}\n' +
  '{"model":"m","created_at":"2025-06-01T10:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":900,"eval_count":20}\n';
const ANSWER =
  '{"model":"m","created_at":"2025-06-01T10:00:01Z","message":{"role":"assistant","content":"notes.txt says "},"done":false}\n' +
  '{"model":"m","created_at":"2025-06-01T10:00:01Z","message":{"role":"assistant","content":"alpha."},"done":false}\n' +
  '{"model":"m","created_at":"2025-06-01T10:00:01Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":950,"eval_count":5}\n';

/** Replays recorded replies: a tool call when the last message is the user's, else the answer. */
async function replayServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const body = JSON.parse(await text(req)) as { messages: { role: string }[] };
    if (req.url === "/api/show") {
      res.writeHead(200, { "content-type": "application/json" }).end('{"model_info":{}}');
      return;
    }
    res.writeHead(200, { "content-type": "application/x-ndjson" });
    res.end(body.messages.at(-1)?.role === "tool" ? ANSWER : CALL);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function text(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let data = "";
    req.setEncoding("utf8");
    req.on("data", (c) => {
      data += c;
    });
    req.on("end", () => resolve(data));
  });
}

export default async function run(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "toolgate-bench-loop-"));
  await writeFile(join(root, "notes.txt"), "alpha\n");
  const server = await replayServer();
  const gate = await createToolgate({
    roots: [root],
    cwd: root,
    config: {},
    policyText: 'default = "allow"\n',
    logger: { warn: () => undefined },
  });
  const model = createChatModel({ provider: "ollama", model: "m", baseUrl: server.url });
  try {
    // The two request bodies a turn sends, captured once, for the anchor to post by hand.
    const session0 = new AgentSession({ gate, model, root });
    await session0.send("What is in notes.txt?");
    const first = session0.messages.slice(0, 2);
    const second = session0.messages.slice(0, 4);
    const tools = gate.schemas("ollama");
    const bodyOf = (messages: ChatMessage[]) =>
      JSON.stringify({ model: "m", messages: messages.map(wire), tools, stream: true });
    const bodies = [bodyOf(first), bodyOf(second)];

    const ours = await measure(async () => {
      const session = new AgentSession({ gate, model, root });
      const turn = await session.send("What is in notes.txt?");
      if (turn.stopReason !== "answer") throw new Error(`the bench turn ended with ${turn.stopReason}`);
    }, 300);
    const anchor = await measure(async () => {
      for (const body of bodies) {
        const res = await fetch(`${server.url}/api/chat`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        await res.text();
      }
      const result = await gate.execute({ name: "read_file", args: { path: "notes.txt" } });
      if (!result.ok) throw new Error("the anchor's read_file failed");
    }, 300);
    report({
      name: "loop turn (2 model calls + 1 read_file), p50 / p99",
      ours: `${fmt(ours.p50)} / ${fmt(ours.p99)}`,
      anchor: `${fmt(anchor.p50)} / ${fmt(anchor.p99)} (fetch ×2 + gate.execute)`,
      ratio: ours.p50 / anchor.p50,
      target: "loop overhead per step ≤ 2 ms at p50 (ours − anchor, 2 steps)",
      pass: (ours.p50 - anchor.p50) / 2 <= 2,
    });
    console.log(`      loop overhead per step: ${fmt(Math.max(0, ours.p50 - anchor.p50) / 2)} at p50`);
  } finally {
    await gate.close();
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** A message in Ollama's shape (what the session sends). */
function wire(m: ChatMessage): Record<string, unknown> {
  if (m.role === "assistant")
    return {
      role: "assistant",
      content: m.content,
      ...(m.toolCalls?.length
        ? { tool_calls: m.toolCalls.map((c) => ({ function: { name: c.name, arguments: c.arguments } })) }
        : {}),
    };
  if (m.role === "tool") return { role: "tool", content: m.content, tool_name: m.name };
  return { role: m.role, content: m.content };
}
