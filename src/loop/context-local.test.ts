/**
 * The embedded model (node-llama-cpp on a generated tiny GGUF, whose byte-level vocabulary makes about a
 * token a character) in a small window: the session measures every prompt exactly with the model's own
 * template and tokenizer, keeps each inside the budget (results cut to their share, the conversation
 * compacted), and node-llama-cpp never has to drop part of it (which would end the turn as an overflow).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScope } from "../agents/index.js";
import { type ChatModel, createLocalModel } from "../llm/index.js";
import { writeTinyModel } from "../test-support/tiny-gguf.js";
import { budgetFor } from "./budget.js";
import { AgentSession } from "./session.js";
import { CUT_MARK } from "./shape.js";
import { makeGate } from "./testdata/harness.js";
import { bigFile } from "./testdata/reading.js";

const SLOW = 300_000;
const WINDOW = 4096;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tg-local-window-"));
  // The model calls read_file on big.txt, whatever it is sent.
  await writeTinyModel(join(dir, "reader.gguf"), {
    script: [
      "||call: ",
      "read_file",
      "(",
      '{"endLine": null, "path": "big.txt", "startLine": null, "tail": null}',
      ")",
    ],
  });
  await writeFile(join(dir, "big.txt"), bigFile(1, 3000));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the embedded model in a 4 K window", () => {
  it(
    "measures every prompt exactly and keeps it inside the budget, with no overflow",
    async () => {
      const local = createLocalModel({
        provider: "local",
        model: join(dir, "reader.gguf"),
        baseUrl: "",
        threads: 1,
        contextWindow: WINDOW,
      });
      const probe = await local.probe();
      expect(probe).toMatchObject({ ok: true, window: { tokens: WINDOW } });
      // Every request the session makes, and the count the model reported for it.
      const sent: { tokens: number; counted: number | undefined; cut: boolean }[] = [];
      const model: ChatModel = {
        ...local,
        countTokens: (req) => local.countTokens!(req),
        async chat(req) {
          const tokens = await local.countTokens!(req);
          const reply = await local.chat(req);
          sent.push({
            tokens,
            counted: reply.usage?.promptTokens,
            cut: req.messages.some((m) => m.content.includes(CUT_MARK)),
          });
          return reply;
        },
      };
      const gate = await makeGate(dir, 'default = "allow"\n');
      const notices: string[] = [];
      try {
        const session = new AgentSession({
          gate,
          model,
          root: dir,
          contextWindow: WINDOW,
          scope: createScope(["read_file"]),
          maxRepeats: 6,
          onEvent: (e) => {
            if (e.type === "notice") notices.push(e.message);
          },
        });
        const turn = await session.send("Read big.txt.");
        // The tiny model can only ever call read_file again: the turn ends on its repetition, not an overflow.
        expect(turn.stopReason, `${turn.answer}\n${notices.join("\n")}`).toBe("loop");
        expect(turn.calls.length).toBe(5);
        const { prompt } = budgetFor(WINDOW);
        expect(sent.length).toBeGreaterThanOrEqual(6);
        for (const s of sent) {
          expect(s.tokens).toBeLessThanOrEqual(prompt);
          // Counted exactly: what the session planned with is what the model reports.
          expect(s.counted).toBe(s.tokens);
        }
        // The file (some 120,000 characters, a token each) came back cut to fit, and compaction ran.
        expect(sent.some((s) => s.cut)).toBe(true);
        expect(notices.some((n) => n.startsWith("context: "))).toBe(true);
        expect(notices.filter((n) => n.includes("trying once more"))).toEqual([]);
      } finally {
        await gate.close();
      }
    },
    SLOW,
  );
});
