import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolgate } from "../index.js";
import { writeTinyModel } from "../test-support/tiny-gguf.js";
import { ModelError } from "./errors.js";
import { createLocalModel, grammarSchema, toFunctions, toHistory } from "./local.js";
import { getLlama, loadRuntime } from "./local-runtime.js";
import type { ChatMessage, ChatModel } from "./types.js";

// Real node-llama-cpp (a dev dependency) on generated models; loading is slow on a busy machine.
const SLOW = 180_000;
const LONG_SCRIPT = Array.from({ length: 60 }, (_, i) => `w${i}▁`);

let dir: string;
const paths = { chat: "", call: "", long: "", bad: "" };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tg-local-"));
  paths.chat = join(dir, "chat.gguf");
  paths.call = join(dir, "call.gguf");
  paths.long = join(dir, "long.gguf");
  paths.bad = join(dir, "bad.gguf");
  await writeTinyModel(paths.chat, { script: ["Hello", "▁from", "▁the", "▁tiny", "▁model."] });
  // node-llama-cpp's generic function-call syntax, `||call: NAME(PARAMS)`. Its grammar writes every property
  // of the schema in order, so the optional ones of read_file come as null (which means "not given").
  await writeTinyModel(paths.call, {
    script: [
      "||call: ",
      "read_file",
      "(",
      '{"endLine": null, "path": "notes.txt", "startLine": null, "tail": null}',
      ")",
    ],
  });
  await writeTinyModel(paths.long, { script: LONG_SCRIPT });
  await writeFile(paths.bad, "this is not a GGUF file\n");
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function local(path: string): ChatModel {
  // One thread: llama.cpp's threads wait for each other by spinning, which a busy 2-core machine turns
  // from milliseconds into minutes.
  return createLocalModel({ provider: "local", model: path, baseUrl: "", threads: 1 });
}

describe("the local provider on a generated model", () => {
  it(
    "loads the model and streams a chat turn through its chat template",
    async () => {
      const model = local(paths.chat);
      const check = await model.probe();
      expect(check).toMatchObject({ ok: true });
      expect(check.ok && check.window?.tokens).toBeGreaterThan(0);
      const chunks: string[] = [];
      const reply = await model.chat({
        messages: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "say hello" },
        ],
        onText: (c) => chunks.push(c),
        signal: new AbortController().signal,
      });
      expect(reply.text).toBe("Hello from the tiny model.");
      expect(chunks.length).toBeGreaterThan(1);
      expect(chunks.join("")).toBe(reply.text);
      expect(reply.toolCalls).toEqual([]);
      expect(reply.finishReason).toBe("stop");
      expect(reply.usage?.completionTokens).toBeGreaterThan(0);
      expect(reply.usage?.promptTokens).toBeGreaterThan(0);
    },
    SLOW,
  );

  it(
    "returns a grammar-constrained tool call whose arguments validate and run through the pipeline",
    async () => {
      const workspace = await mkdtemp(join(tmpdir(), "tg-local-ws-"));
      try {
        await writeFile(join(workspace, "notes.txt"), "the notes\n");
        const gate = await createToolgate({ roots: [workspace], trustWorkspace: true });
        const reply = await local(paths.call).chat({
          messages: [{ role: "user", content: "read notes.txt" }],
          tools: gate.schemas("openai"),
        });
        expect(reply.finishReason).toBe("tool_calls");
        expect(reply.text).toBe("");
        expect(reply.toolCalls).toHaveLength(1);
        const call = reply.toolCalls[0]!;
        expect(call.name).toBe("read_file");
        // Optional arguments left out come as null; the pipeline drops them against read_file's schema.
        expect(call.arguments).toEqual({ endLine: null, path: "notes.txt", startLine: null, tail: null });
        const result = await gate.execute({
          name: call.name,
          args: call.arguments as Record<string, unknown>,
        });
        expect(result.error).toBeUndefined();
        expect(result.llmContent).toContain("the notes");
      } finally {
        await rm(workspace, { recursive: true, force: true });
      }
    },
    SLOW,
  );

  it(
    "stops generating when the signal aborts",
    async () => {
      const model = local(paths.long);
      const controller = new AbortController();
      const chunks: string[] = [];
      const error = await model
        .chat({
          messages: [{ role: "user", content: "go on" }],
          signal: controller.signal,
          onText: (c) => {
            chunks.push(c);
            if (chunks.length === 3) controller.abort();
          },
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelError);
      expect((error as ModelError).kind).toBe("cancelled");
      expect(chunks.length).toBeGreaterThanOrEqual(3);
      expect(chunks.length).toBeLessThan(LONG_SCRIPT.length);
      // The model is free again: the next turn runs to its end.
      const next = await model.chat({ messages: [{ role: "user", content: "again" }], onText: () => {} });
      expect(next.text.startsWith("w0 w1 w2")).toBe(true);
    },
    SLOW,
  );

  it(
    "counts a prompt exactly: the runtime's own context holds that many tokens, then the reply",
    async () => {
      const gate = await createToolgate({ roots: [dir], trustWorkspace: true });
      const tools = gate
        .schemas("openai")
        .filter((t) => (t as { function: { name: string } }).function.name === "read_file");
      const messages: ChatMessage[] = [
        { role: "system", content: "You are terse." },
        { role: "user", content: "read notes.txt" },
      ];
      const model = local(paths.call);
      for (const offered of [[], tools]) {
        const count = await model.countTokens!({ messages, tools: offered });
        // An independent reading: a fresh context of the runtime, fed the same conversation.
        const llama = await getLlama();
        const runtime = await loadRuntime();
        const loaded = await llama.loadModel({ modelPath: paths.call });
        const context = await loaded.createContext({ contextSize: 4096, threads: 1 });
        try {
          const sequence = context.getSequence();
          const chat = new runtime.LlamaChat({ contextSequence: sequence });
          const functions = toFunctions(offered);
          await chat.generateResponse(toHistory(messages), {
            ...(offered.length > 0 ? { functions } : {}),
            maxTokens: 1,
          });
          const tokens: number[] = [...sequence.contextTokens];
          // The prompt ends exactly at the count: the assistant's turn opens there, and what follows is the reply.
          expect(loaded.detokenize(tokens.slice(0, count), true).endsWith("<|im_start|>assistant\n")).toBe(
            true,
          );
          expect(loaded.detokenize(tokens.slice(count), true)).toBe(offered.length > 0 ? "||call: " : "");
        } finally {
          await context.dispose();
          await loaded.dispose();
        }
        // The reply reports the same count.
        const reply = await model.chat({ messages, tools: offered });
        expect(reply.usage?.promptTokens).toBe(count);
      }
      await gate.close();
    },
    SLOW,
  );

  it(
    "says plainly when the file is not a model, or not there",
    async () => {
      const bad = await local(paths.bad).probe();
      expect(bad.ok).toBe(false);
      if (!bad.ok) {
        expect(bad.error.kind).toBe("model_invalid");
        expect(bad.error.message).toContain(paths.bad);
        expect(bad.error.message).toMatch(/not a model file/);
      }
      const missing = await local(join(dir, "nope.gguf")).probe();
      expect(missing.ok).toBe(false);
      if (!missing.ok) {
        expect(missing.error.kind).toBe("model_not_found");
        expect(missing.error.message).toMatch(/check the path/);
      }
      const unpulled = await createLocalModel({
        provider: "local",
        model: "qwen3-1.7b",
        baseUrl: "",
      }).probe();
      if (!unpulled.ok) expect(unpulled.error.message).toMatch(/toolgate models pull qwen3-1.7b/);
    },
    SLOW,
  );
});

describe("translations to node-llama-cpp", () => {
  it("puts each tool result into its call, and asks for the next model response", () => {
    expect(
      toHistory([
        { role: "system", content: "s" },
        { role: "user", content: "u" },
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "ls", arguments: { path: "." } }] },
        { role: "tool", content: "a.txt", toolCallId: "c1", name: "ls" },
      ]),
    ).toEqual([
      { type: "system", text: "s" },
      { type: "user", text: "u" },
      {
        type: "model",
        response: [{ type: "functionCall", name: "ls", params: { path: "." }, result: "a.txt" }],
      },
      { type: "model", response: [] },
    ]);
  });

  it.each([
    [
      { type: "string", pattern: "^a", description: "d" },
      { description: "d", type: "string" },
    ],
    [{ type: "integer", minimum: 1 }, { type: "integer" }],
    [{ type: ["string", "null"] }, { type: ["string", "null"] }],
    [{ enum: ["a", "b"] }, { enum: ["a", "b"] }],
    [
      { anyOf: [{ type: "string" }, { type: "number" }] },
      { oneOf: [{ type: "string" }, { type: "number" }] },
    ],
    [
      {
        type: "object",
        properties: { a: { type: "array", items: { type: "string" }, maxItems: 3 } },
        required: ["a"],
      },
      {
        type: "object",
        properties: { a: { type: "array", items: { type: "string" }, maxItems: 3 } },
        required: ["a"],
      },
    ],
    [{ type: "object" }, { type: "object", properties: {}, additionalProperties: true }],
    [
      { type: "object", properties: { a: { type: "string" }, b: { type: "integer" } }, required: ["a"] },
      {
        type: "object",
        properties: { a: { type: "string" }, b: { oneOf: [{ type: "integer" }, { type: "null" }] } },
        required: ["a"],
      },
    ],
    [{}, { type: ["string", "number", "boolean", "null"] }],
  ])("reduces %j to what a grammar can express", (input, output) => {
    expect(grammarSchema(input)).toEqual(output);
  });
});
