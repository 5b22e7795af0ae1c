/**
 * Context management against a local server that counts tokens the way a server does (it reports
 * `prompt_eval_count` / `usage` for each request): a 20-step session reading large files stays inside an
 * 8 K-token window — old tool results shortened first, older steps summarised by the model — and still
 * finishes; `<think>` text is not sent back; Ollama gets `num_ctx`; `compact({ force })` summarises.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatBody, ModelServer, ScriptedReply } from "../llm/testdata/model-server.js";
import { startModelServer } from "../llm/testdata/model-server.js";
import { SUMMARY_HEADING, SUMMARY_INSTRUCTIONS } from "./context.js";
import { AgentSession } from "./session.js";
import { makeGate, makeWorkspace, modelOf, removeWorkspace } from "./testdata/harness.js";
import { Transcript } from "./transcript.js";

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(["test-model"]);
});
afterAll(async () => server.close());

/** The server's token count for a request: 4 characters a token, over everything it was sent. */
const tokensOf = (body: ChatBody) => Math.ceil(JSON.stringify(body.messages).length / 4);

const FILES = 20;
const big = (i: number) => `file ${i}\n${`line ${i}: ${"x".repeat(70)}\n`.repeat(100)}`;

describe.each(["ollama", "openai"] as const)("context over %s", (provider) => {
  it("keeps a 20-step session with large tool results inside an 8 K window and finishes", async () => {
    const files: Record<string, string> = {};
    for (let i = 1; i <= FILES; i++) files[`f${i}.txt`] = big(i);
    const root = await makeWorkspace(files);
    const gate = await makeGate(root, 'default = "allow"\n');
    const transcript = await Transcript.create(`${root}/.toolgate/sessions`, "context");
    let read = 0;
    const peaks: number[] = [];
    const summaries: number[] = [];
    const reply = (body: ChatBody): ScriptedReply => {
      const prompt = tokensOf(body);
      peaks.push(prompt);
      const usage = { prompt, completion: 40 };
      if (body.messages[0]?.content === SUMMARY_INSTRUCTIONS) {
        summaries.push(prompt);
        return { text: `Read f1.txt to f${read}.txt so far; each holds 100 lines of x.`, usage };
      }
      if (read === FILES) return { text: `Done: read all ${FILES} files.`, usage };
      read++;
      return {
        text: `Step ${read}: ${"I am reading the next file to check its lines carefully. ".repeat(8)}`,
        toolCalls: [{ name: "read_file", arguments: { path: `f${read}.txt` } }],
        usage,
      };
    };
    for (let i = 0; i < 40; i++) server.push(reply);
    const notices: string[] = [];
    const session = new AgentSession({
      gate,
      model: modelOf(server, provider),
      root,
      transcript,
      contextWindow: 8192,
      maxSteps: 30,
      onEvent: (e) => {
        if (e.type === "notice") notices.push(e.message);
      },
    });
    const start = server.requests.length;
    try {
      const turn = await session.send("Read f1.txt to f20.txt one by one, then say done.");
      expect(turn).toMatchObject({ stopReason: "answer", answer: "Done: read all 20 files.", steps: 21 });
      expect(turn.calls.filter((c) => c.result.ok)).toHaveLength(FILES);
      expect(turn.tokens).toEqual({ used: expect.any(Number), window: 8192 });
      // Every request the server saw fit the window.
      expect(Math.max(...peaks)).toBeLessThanOrEqual(8192);
      expect(summaries.length).toBeGreaterThan(0);
      expect(notices.some((n) => /shortened \d+ old tool result/.test(n))).toBe(true);
      expect(notices.some((n) => /summarised \d+ older message/.test(n))).toBe(true);
      // The task itself is never summarised away.
      const last = server.requests.at(-1)!;
      expect(
        last.messages.some((m) => m.content === "Read f1.txt to f20.txt one by one, then say done."),
      ).toBe(true);
      expect(last.messages.some((m) => String(m.content).startsWith(SUMMARY_HEADING))).toBe(true);
      if (provider === "ollama") expect(server.requests[start]!.options).toEqual({ num_ctx: 8192 });
      await transcript.flush();
      const records = (await readFile(transcript.file, "utf8"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(records.filter((r) => r.type === "compaction").length).toBeGreaterThan(0);
    } finally {
      server.clear();
      await gate.close();
      await removeWorkspace(root);
    }
  });
});

describe("history", () => {
  it("does not send <think> text back, and compact({ force }) summarises older turns", async () => {
    const root = await makeWorkspace({ "a.txt": "alpha\n" });
    const gate = await makeGate(root, 'default = "allow"\n');
    try {
      server.push({ text: "<think>secret plan</think>Hello!" }, { text: "Second answer." });
      const session = new AgentSession({ gate, model: modelOf(server, "ollama") });
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
    } finally {
      await gate.close();
      await removeWorkspace(root);
    }
  });
});
