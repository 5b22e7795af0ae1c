/**
 * The context window as a hard budget, against test servers that behave as the real ones do with an
 * over-long prompt (llm/testdata/prompt-window.ts): an Ollama that cuts it silently and counts only what it
 * kept, one that refuses it (0.12.6+, told `truncate: false`), llama.cpp's server, vLLM and OpenAI
 * (`context_length_exceeded`) refusing it with their own 400s, and a server reporting absurd usage (1 token).
 * Sessions of twenty rounds each reading a 3,000-line file, in windows of 4 K, 8 K and 32 K: every request
 * the server saw fits its window by its own count and by a conservative one (3 characters a token), the
 * task is in every request, and the answer arrives. Then recovery: a result that tokenizes far denser
 * than what was learned overflows once, is recovered from with a notice, and a second overflow ends the
 * turn with a clear error.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createScope } from "../agents/index.js";
import { type ModelServer, type ModelServerOptions, startModelServer } from "../llm/testdata/model-server.js";
import { SUMMARY_HEADING, SUMMARY_INSTRUCTIONS } from "./context.js";
import { AgentSession } from "./session.js";
import { CUT_MARK } from "./shape.js";
import { makeGate, makeWorkspace, modelOf, removeWorkspace } from "./testdata/harness.js";
import { bigFiles, readingAnswer, readingModel, readingTask, requestProblems } from "./testdata/reading.js";
import { readTranscript, Transcript } from "./transcript.js";
import type { SessionOptions } from "./types.js";

const FILES = 20;

/** The servers, as the real ones behave with an over-long prompt. */
const SERVERS = {
  "Ollama before 0.12.6 (cuts silently)": { provider: "ollama", options: { behaviour: { ollama: "cut" } } },
  "Ollama 0.12.6+ (refuses)": { provider: "ollama", options: { behaviour: { ollama: "refuse" } } },
  "llama.cpp's server": { provider: "openai", options: { behaviour: { openai: "llama.cpp" } } },
  vLLM: { provider: "openai", options: { behaviour: { openai: "vllm" } } },
  "OpenAI (context_length_exceeded)": { provider: "openai", options: { behaviour: { openai: "openai" } } },
  "a server reporting 1 prompt token": {
    provider: "openai",
    options: { behaviour: { openai: "llama.cpp" }, reportPrompt: () => 1 },
  },
} as const satisfies Record<string, { provider: "ollama" | "openai"; options: ModelServerOptions }>;
type ServerName = keyof typeof SERVERS;

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** A server, a workspace of files and a gate over it, all removed after the test. */
async function setup(
  name: ServerName,
  window: number,
  files: Record<string, string>,
  tokenize?: ModelServerOptions["tokenize"],
) {
  const { provider, options } = SERVERS[name];
  const server: ModelServer = await startModelServer(["test-model"], window, {
    ...options,
    ...(tokenize ? { tokenize } : {}),
  });
  const root = await makeWorkspace(files);
  const gate = await makeGate(root, 'default = "allow"\n');
  cleanup.push(async () => {
    await gate.close();
    await server.close();
    await removeWorkspace(root);
  });
  const model = modelOf(server, provider);
  const notices: string[] = [];
  /** A session in `window` (with read_file only, unless `allTools`), its notices collected. */
  const reader = (window: number, extra: Partial<SessionOptions> = {}, allTools = false) =>
    new AgentSession({
      gate,
      model,
      root,
      contextWindow: window,
      ...(allTools ? {} : { scope: createScope(["read_file"]) }),
      onEvent: (e) => {
        if (e.type === "notice") notices.push(e.message);
      },
      ...extra,
    });
  return { server, root, gate, model, notices, reader };
}

describe.each([
  ["Ollama before 0.12.6 (cuts silently)", 4096],
  ["Ollama before 0.12.6 (cuts silently)", 8192],
  ["Ollama before 0.12.6 (cuts silently)", 32_768],
  ["llama.cpp's server", 4096],
  ["llama.cpp's server", 8192],
  ["llama.cpp's server", 32_768],
  ["a server reporting 1 prompt token", 4096],
  ["a server reporting 1 prompt token", 8192],
  ["a server reporting 1 prompt token", 32_768],
  ["Ollama 0.12.6+ (refuses)", 8192],
  ["vLLM", 8192],
  ["OpenAI (context_length_exceeded)", 8192],
] as const)("%s, a window of %i tokens", (name, window) => {
  it("reads twenty 3,000-line files one per round, every request inside the window, and answers", async () => {
    const { server, root, notices, reader } = await setup(name, window, bigFiles(FILES));
    const transcript = await Transcript.create(`${root}/.toolgate/sessions`, "context");
    for (let i = 0; i < 80; i++) server.push(readingModel(FILES));
    const task = readingTask(FILES);
    // A 4 K window holds the system prompt and one tool's definition; the full set would not fit.
    const turn = await reader(window, { transcript, maxSteps: 30 }, window > 4096).send(task);
    expect(turn, notices.join("\n")).toMatchObject({
      stopReason: "answer",
      answer: readingAnswer(FILES),
      steps: FILES + 1,
    });
    expect(turn.calls.filter((c) => c.result.ok)).toHaveLength(FILES);
    expect(requestProblems(server.prompts, server.requests, task)).toEqual([]);
    // Nothing overflowed, so nothing had to be recovered.
    expect(notices.filter((n) => n.includes("trying once more"))).toEqual([]);
    // Each read came back cut to its share, saying how to read on.
    const reads = server.requests.map((r) => r.messages.at(-1)!).filter((m) => m.role === "tool");
    expect(reads.length).toBeGreaterThanOrEqual(FILES);
    expect(String(reads[0]!.content)).toContain(`${CUT_MARK}call read_file again with startLine `);
    await transcript.flush();
    const records = await readTranscript(transcript.file);
    expect(records.filter((r) => r.type === "compaction").length).toBeGreaterThan(0);
    if (window < 32_768) expect(records.some((r) => r.type === "compaction" && r.summarised > 0)).toBe(true);
  });
});

describe("what the session sends", () => {
  it("Ollama gets num_ctx and truncate: false with every request, summaries included; the task stays verbatim", async () => {
    const { server, reader } = await setup("Ollama before 0.12.6 (cuts silently)", 4096, bigFiles(4));
    for (let i = 0; i < 20; i++) server.push(readingModel(4));
    const session = reader(4096);
    const task = readingTask(4);
    expect((await session.send(task)).answer).toBe(readingAnswer(4));
    for (const body of server.requests) {
      expect(body.options).toEqual({ num_ctx: 4096 });
      expect(body.truncate).toBe(false);
    }
    const last = server.requests.at(-1)!;
    expect(last.messages[0]!.role).toBe("system");
    expect(last.messages.filter((m) => m.content === task)).toHaveLength(1);
    expect(last.messages.some((m) => String(m.content).startsWith(SUMMARY_HEADING))).toBe(true);
  });

  it("a task too large for the window is not sent, and the error says why", async () => {
    const { server, reader } = await setup("llama.cpp's server", 4096, {});
    const session = reader(4096);
    const turn = await session.send(`Summarise this: ${"word ".repeat(4000)}`);
    expect(turn.stopReason).toBe("model_error");
    expect(turn.errorKind).toBe("context_overflow");
    expect(turn.error).toMatch(
      /over the budget of 3072 \(the window of 4096 less 1024 kept for the reply\): the system prompt, the 1 tool definition\(s\) and the task take too much/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it("with routing on, the routing request is held to the budget too: nothing is sent for such a task", async () => {
    const { server, reader } = await setup("Ollama before 0.12.6 (cuts silently)", 4096, {});
    const session = reader(4096, { routing: true });
    const turn = await session.send(`Summarise this: ${"word ".repeat(4000)}`);
    expect(turn.errorKind).toBe("context_overflow");
    expect(server.requests).toHaveLength(0);
    // A task that fits is routed as before, in the session's window.
    server.push({ text: '{"query_type":"chat","sub_questions":[],"suggested_tools":[]}' }, { text: "Hi." });
    expect((await reader(4096, { routing: true }).send("hello")).answer).toBe("Hi.");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.format).toBe("json");
    expect(server.requests[0]!.options).toEqual({ num_ctx: 4096 });
  });
});

/** A tokenizer that splits digits finely: two tokens a digit (other text a token per 4 characters). */
const denseDigits = (text: string) => {
  const digits = text.replace(/[^0-9]/g, "").length;
  return 2 * digits + Math.ceil((text.length - digits) / 4);
};

describe.each([
  "Ollama before 0.12.6 (cuts silently)",
  "Ollama 0.12.6+ (refuses)",
  "llama.cpp's server",
  "vLLM",
  "OpenAI (context_length_exceeded)",
] as const)("recovery with %s", (name) => {
  it("a result far denser than learned overflows once: compacted, retried with a smaller share, answered", async () => {
    // f1 is prose (the rate is learned from it), f2 is digits: two tokens each, some seven times the rate.
    const { server, notices, reader } = await setup(
      name,
      8192,
      bigFiles(2, 3000, (i) => i === 2),
      denseDigits,
    );
    for (let i = 0; i < 10; i++) server.push(readingModel(2));
    const session = reader(8192);
    const task = readingTask(2);
    const turn = await session.send(task);
    expect(turn, notices.join("\n")).toMatchObject({ stopReason: "answer", answer: readingAnswer(2) });
    const overflowed = server.prompts.filter((p) => p.outcome !== "whole");
    expect(overflowed).toHaveLength(1);
    expect(overflowed[0]!.outcome).toBe(name.includes("cuts") ? "cut" : "refused");
    const recovery = notices.filter((n) => n.includes("trying once more with a smaller share"));
    expect(recovery).toHaveLength(1);
    expect(recovery[0]).toMatch(
      name.includes("cuts")
        ? /^context: the prompt did not fit the model's context window of 8192 tokens: the server shortened the prompt without saying so: it counted 8192 prompt tokens, the whole window of 8192/
        : /^context: the prompt did not fit the model's context window/,
    );
    // Every request after the overflow fits again, and still holds the task.
    const after = server.prompts.slice(server.prompts.indexOf(overflowed[0]!) + 1);
    expect(after.every((p) => p.outcome === "whole" && p.tokens <= 8192)).toBe(true);
    expect(server.requests.every((r) => JSON.stringify(r.messages).includes(task))).toBe(true);
  });
});

describe.each(["llama.cpp's server", "vLLM"] as const)("a window set larger than %s holds", (name) => {
  it("is corrected from the refusal, which names the server's window", async () => {
    const { server, reader } = await setup(name, 4096, bigFiles(3));
    for (let i = 0; i < 20; i++) server.push(readingModel(3));
    const session = reader(32_768);
    const turn = await session.send(readingTask(3));
    expect(turn).toMatchObject({ stopReason: "answer", answer: readingAnswer(3), tokens: { window: 4096 } });
    expect(server.prompts.filter((p) => p.outcome === "refused")).toHaveLength(1);
    expect(
      requestProblems(
        server.prompts.filter((p) => p.outcome === "whole"),
        [],
        "",
      ),
    ).toEqual([]);
  });
});

describe("a second overflow", () => {
  it("ends the turn with a clear error (no third try)", async () => {
    // Three tokens a character: denser than any plausible rate, so the retry overflows too.
    const { server, reader } = await setup(
      "llama.cpp's server",
      8192,
      bigFiles(1, 3000),
      (t) => t.length * 3,
    );
    server.push(readingModel(1), readingModel(1));
    const session = reader(8192);
    const turn = await session.send("Read f1.txt.");
    expect(turn.stopReason).toBe("model_error");
    expect(turn.errorKind).toBe("context_overflow");
    expect(turn.error).toMatch(
      /^the prompt did not fit the model's context window \(\d+ tokens for a window of 8192\): .* — and again after compacting: set \[llm\] context_window to what the model really holds, use fewer tools, or ask for less at a time$/,
    );
    expect(server.prompts.filter((p) => p.outcome === "refused").length).toBeGreaterThanOrEqual(2);
  });
});

describe("history", () => {
  it("does not send <think> text back, and compact({ force }) summarises older turns", async () => {
    const { server, gate, model } = await setup("Ollama before 0.12.6 (cuts silently)", 8192, {
      "a.txt": "alpha\n",
    });
    server.push({ text: "<think>secret plan</think>Hello!" }, { text: "Second answer." });
    const session = new AgentSession({ gate, model });
    await session.send("hi");
    await session.send("again");
    const sent = server.requests.at(-1)!.messages;
    expect(sent.find((m) => m.role === "assistant")).toEqual({ role: "assistant", content: "Hello!" });
    expect(JSON.stringify(sent)).not.toContain("secret plan");
    server.push({ text: "The user greeted twice." });
    const said = await session.compact({ force: true });
    expect(said).toMatch(/^context: summarised 4 older message\(s\) — about \d+ → \d+ tokens$/);
    expect(session.messages.slice(1)).toEqual([
      { role: "user", content: `${SUMMARY_HEADING}\nThe user greeted twice.` },
    ]);
  });
});

describe("a summary request the server refuses", () => {
  it("is sent once more at half the length, and the session goes on", async () => {
    // The summary request tokenizes far denser than the conversation did (4 tokens a character).
    const tokenize = (text: string) =>
      text.includes(SUMMARY_INSTRUCTIONS) ? text.length * 4 : Math.ceil(text.length / 4);
    const { server, notices, reader } = await setup("llama.cpp's server", 8192, bigFiles(6), tokenize);
    for (let i = 0; i < 30; i++) server.push(readingModel(6));
    const turn = await reader(8192).send(readingTask(6));
    expect(turn, notices.join("\n")).toMatchObject({ stopReason: "answer", answer: readingAnswer(6) });
    const summaries = server.prompts.filter(
      (_, i) => server.requests[i]!.messages[0]!.content === SUMMARY_INSTRUCTIONS,
    );
    expect(summaries[0]!.outcome).toBe("refused");
    expect(summaries[1]!.outcome).toBe("whole");
    expect(summaries[1]!.chars).toBeLessThan(summaries[0]!.chars * 0.6);
    // Only summary requests were refused; the conversation's own requests all fit.
    const refused = server.prompts.filter((p) => p.outcome !== "whole");
    expect(refused.every((p) => summaries.includes(p))).toBe(true);
  });
});
