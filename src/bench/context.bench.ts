/**
 * @module bench/context
 * The context budget's own cost, no model call: per request, the check that the prompt fits (a
 * 30-message conversation of about 8 K tokens, with the tool definitions) and the shaping of a round's
 * result (a 3,000-line read cut to its share); then one compaction step (20 rounds of 8 KB results
 * shortened down to the target). Each beside an anchor doing the same work by hand on the same messages
 * in the same run: serialising them to measure their size (`JSON.stringify(...).length`), and slicing the
 * result(s) to the same size. Runs are interleaved.
 */

import type { ChatMessage } from "../llm/index.js";
import { createChatModel } from "../llm/index.js";
import { ContextKeeper } from "../loop/keeper.js";
import { fmt, interleaved, report } from "./harness.js";

const TOOLS = Array.from({ length: 13 }, (_, i) => ({
  type: "function",
  function: {
    name: `tool_${i}`,
    description: "Does one thing well, with a description about as long as the built-in tools have. ".repeat(
      4,
    ),
    parameters: { type: "object", properties: { path: { type: "string", description: "A path." } } },
  },
}));

/** A keeper over a model that is never called (the budget works from characters and the gauge). */
function keeper(window: number): ContextKeeper {
  const model = createChatModel({ provider: "ollama", model: "m", baseUrl: "http://127.0.0.1:9" });
  const k = new ContextKeeper(
    { model: () => model, emit: () => undefined, record: () => undefined, modeOf: () => "head" },
    window,
  );
  k.setTools(TOOLS);
  return k;
}

/** `rounds` rounds of a read_file call and its result of `resultChars`, after a system prompt and a task. */
function conversation(rounds: number, resultChars: number): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: "system", content: "You are a careful assistant. ".repeat(25) },
    { role: "user", content: "Read the files one by one and tell me what they hold." },
  ];
  for (let i = 0; i < rounds; i++) {
    const id = `c${i}`;
    messages.push({
      role: "assistant",
      content: `Step ${i}: reading the next file.`,
      toolCalls: [{ id, name: "read_file", arguments: { path: `f${i}.txt` } }],
    });
    const line = `line of f${i}.txt: the quick brown fox jumps over the lazy dog\n`;
    messages.push({
      role: "tool",
      content: line.repeat(Math.ceil(resultChars / line.length)).slice(0, resultChars),
      toolCallId: id,
      name: "read_file",
    });
  }
  return messages;
}

export default async function run(): Promise<void> {
  const signal = new AbortController().signal;

  // Per request: 30 messages (14 rounds of ~1.8 KB, about 8 K tokens with the tools), then a 3,000-line read.
  const history = conversation(14, 1800);
  const read = `${"line of big.txt: the quick brown fox jumps over the lazy dog\n".repeat(3000)}`;
  const k = keeper(16_384);
  const result = { id: "r", name: "read_file", args: { path: "big.txt" }, content: read };
  const [shaped] = await k.shapeRound(history, [result]);
  const share = shaped!.length;
  if (share >= read.length || history.length !== 30 || (await k.measure(history)) < 7500)
    throw new Error("the per-request bench no longer checks an 8 K-token conversation and cuts a read");
  const [ours, anchor] = await interleaved(
    async () => {
      if ((await k.fit(history, signal)) !== undefined)
        throw new Error("the bench conversation needed compacting");
      await k.shapeRound(history, [result]);
    },
    () => {
      if (JSON.stringify(history).length + JSON.stringify(TOOLS).length > 16_384 * 4)
        throw new Error("unexpected");
      if (read.slice(0, share).length !== share) throw new Error("unexpected");
    },
    2000,
  );
  report({
    name: "budget check + shaping per request (30 messages, ~8 K tokens; a 3,000-line read), p50 / p99",
    ours: `${fmt(ours.p50)} / ${fmt(ours.p99)}`,
    anchor: `${fmt(anchor.p50)} / ${fmt(anchor.p99)} (JSON.stringify(messages).length + one slice)`,
    ratio: ours.p50 / anchor.p50,
    target: "≤ 1 ms at p50",
    pass: ours.p50 <= 1,
  });

  // One compaction step: 20 rounds of 8 KB results over a 32 K window, shortened to the target (no summary).
  const long = conversation(20, 8000);
  const big = keeper(32_768);
  const check = [...long];
  const said = await big.fit(check, signal);
  const shortenedCount = Number(/shortened (\d+) old tool result/.exec(said ?? "")?.[1] ?? 0);
  if (!said || said.includes("summarised") || shortenedCount === 0)
    throw new Error(`the compaction bench no longer shortens without a summary: ${said}`);
  const [compact, plain] = await interleaved(
    () => big.fit([...long], signal),
    () => {
      const messages = [...long];
      let n = 0;
      for (let i = 0; i < messages.length && n < shortenedCount; i++) {
        const m = messages[i]!;
        if (m.role !== "tool") continue;
        messages[i] = { ...m, content: `${m.content.slice(0, 300)}\n[shortened]` };
        n++;
      }
      if (JSON.stringify(messages).length === 0) throw new Error("unexpected");
    },
    500,
  );
  report({
    name: `compaction step: ${shortenedCount} of 20 results × 8 KB shortened to the target (no model call), p50 / p99`,
    ours: `${fmt(compact.p50)} / ${fmt(compact.p99)}`,
    anchor: `${fmt(plain.p50)} / ${fmt(plain.p99)} (slice the same results + JSON.stringify(messages).length)`,
    ratio: compact.p50 / plain.p50,
    target: "≤ 5 ms at p50",
    pass: compact.p50 <= 5,
  });
}
