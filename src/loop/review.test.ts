/**
 * A reviewer's adversarial cases for the loop: replies a model or server can send that must not crash a
 * turn, secrets that must not reach a transcript, and loop detection that must not stop progress.
 */
import { writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createChatModel } from "../llm/index.js";
import { AgentSession } from "./session.js";
import { loopTestbed, modelOf } from "./testdata/harness.js";
import { sessionsDir, Transcript } from "./transcript.js";

const bed = loopTestbed();

const setup = bed.setup;

const ollamaLine = (message: Record<string, unknown>, done = false) =>
  `${JSON.stringify({ model: "test-model", created_at: "2025-01-01T00:00:00Z", message: { role: "assistant", content: "", ...message }, done, ...(done ? { done_reason: "stop" } : {}) })}\n`;

const sse = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 1, model: "test-model", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

describe("malformed model replies never crash a turn", () => {
  it.each([
    ["a name that is a number", [{ function: { name: 42, arguments: {} } }]],
    ["a name that is an object", [{ function: { name: { x: 1 }, arguments: {} } }]],
    ["a call without a function", [{}]],
    ["arguments that are a string", [{ function: { name: "read_file", arguments: "not json" } }]],
  ])("Ollama: %s", async (_label, calls) => {
    const { gate } = await setup({ "a.txt": "a" });
    bed.server.push({ raw: ollamaLine({ tool_calls: calls }) + ollamaLine({}, true) }, { text: "recovered" });
    const start = bed.server.requests.length;
    const session = new AgentSession({ gate, model: modelOf(bed.server, "ollama") });
    const turn = await session.send("go");
    expect(turn).toMatchObject({ stopReason: "answer", answer: "recovered", steps: 2 });
    // The unreadable call was answered with an error the model can act on, not dropped.
    const last = bed.server.requests[start + 1]!.messages.at(-1)!;
    expect(last.role).toBe("tool");
    expect(String(last.content)).toMatch(/^Error \((invalid_params|tool_not_found)\)/);
  });

  it.each([
    ["a name that is a number", { index: 0, id: "c1", function: { name: 42, arguments: "{}" } }, "error"],
    [
      "arguments that are an object (read as their JSON)",
      { index: 0, id: "c1", function: { name: "read_file", arguments: { path: "a.txt" } } },
      "ok",
    ],
    [
      "arguments that are not JSON",
      { index: 0, id: "c1", function: { name: "read_file", arguments: "{path: a" } },
      "error",
    ],
  ])("OpenAI: %s", async (_label, part, want) => {
    const { gate } = await setup({ "a.txt": "a" });
    bed.server.push(
      {
        raw:
          sse({ role: "assistant", content: "" }) +
          sse({ tool_calls: [part] }) +
          sse({}, "tool_calls") +
          "data: [DONE]\n\n",
      },
      { text: "recovered" },
    );
    const start = bed.server.requests.length;
    const session = new AgentSession({ gate, model: modelOf(bed.server, "openai") });
    const turn = await session.send("go");
    expect(turn).toMatchObject({ stopReason: "answer", answer: "recovered", steps: 2 });
    const last = bed.server.requests[start + 1]!.messages.at(-1)!;
    expect(last.role).toBe("tool");
    expect(String(last.content).startsWith("Error (")).toBe(want === "error");
  });
});

describe("secrets", () => {
  it("a server that echoes the API key does not get it into the error or the transcript", async () => {
    const { root, gate } = await setup({});
    const key = "sk-test-SECRET-1234567890abcdef";
    bed.server.push({ error: { status: 401, message: `Incorrect API key provided: ${key}` } });
    const model = createChatModel({
      provider: "openai",
      model: "test-model",
      baseUrl: bed.server.openaiUrl,
      apiKey: key,
      apiKeyEnv: "TEST_KEY",
    });
    const transcript = await Transcript.create(sessionsDir(root), "chat");
    const session = new AgentSession({ gate, model, transcript });
    const turn = await session.send("hi");
    await transcript.flush();
    expect(turn.stopReason).toBe("model_error");
    expect(turn.error).not.toContain(key);
    expect(turn.error).toContain("check the API key in $TEST_KEY");
    expect(await readFile(transcript.file, "utf8")).not.toContain(key);
  });
});

describe("loop detection", () => {
  it("does not stop a model polling a file whose content changes between rounds", async () => {
    const { root, gate } = await setup({ "status.txt": "pending 1\n" });
    const poll = { toolCalls: [{ name: "read_file", arguments: { path: "status.txt" } }] };
    bed.server.push(poll, poll, poll, { text: "the build is done" });
    let polls = 0;
    const session = new AgentSession({
      gate,
      model: modelOf(bed.server, "openai"),
      onEvent: (e) => {
        // Between rounds, the "build" moves on: each poll sees new content.
        if (e.type === "tool_end") writeFileSync(join(root, "status.txt"), `pending ${++polls + 1}\n`);
      },
    });
    const turn = await session.send("wait until status.txt says done");
    expect(turn.stopReason).toBe("answer");
    expect(turn.calls.map((c) => c.result.llmContent.includes(`pending`))).toEqual([true, true, true]);
  });
});
