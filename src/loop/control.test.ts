/**
 * How turns end and how rounds run: cancellation mid-tool (and the session goes on), loop detection, the
 * step limit, a model error, routing fan-out without an extra model call, invalid routing JSON, read-only
 * calls together and edits in order.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRoutingReply } from "./routing.js";
import { AgentSession } from "./session.js";
import { loopTestbed, modelOf } from "./testdata/harness.js";
import type { LoopEvent } from "./types.js";

const bed = loopTestbed();

const setup = bed.setup;

describe("ending a turn", () => {
  it("cancels a running tool through its signal; the conversation stays usable", async () => {
    const { gate } = await setup({});
    const controller = new AbortController();
    bed.server.push(
      { toolCalls: [{ name: "shell", arguments: { command: "sleep 30" } }] },
      { text: "still here" },
    );
    const session = new AgentSession({
      gate,
      model: modelOf(bed.server, "ollama"),
      onEvent: (e) => {
        if (e.type === "tool_start") setTimeout(() => controller.abort(), 100);
      },
    });
    const turn = await session.send("wait a long time", { signal: controller.signal });
    expect(turn.stopReason).toBe("cancelled");
    expect(turn.calls[0]!.result.error?.type).toBe("cancelled");
    // Every tool call has its tool message, so the next turn is a valid conversation.
    const roles = session.messages.map((m) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool"]);
    const next = await session.send("are you there?");
    expect(next.answer).toBe("still here");
  });

  it("cancels while the model is still answering", async () => {
    const { gate } = await setup({});
    const controller = new AbortController();
    bed.server.push({ hang: true });
    const session = new AgentSession({ gate, model: modelOf(bed.server, "openai") });
    setTimeout(() => controller.abort(), 100);
    const turn = await session.send("hello", { signal: controller.signal });
    expect(turn).toMatchObject({ stopReason: "cancelled", answer: "cancelled", steps: 0 });
  });

  it("stops when the same calls come back three rounds in a row", async () => {
    const { gate } = await setup({ "a.txt": "a" });
    const same = { toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] };
    bed.server.push(same, same, same);
    const events: LoopEvent[] = [];
    const session = new AgentSession({
      gate,
      model: modelOf(bed.server, "ollama"),
      onEvent: (e) => events.push(e),
    });
    const turn = await session.send("read a.txt");
    expect(turn.stopReason).toBe("loop");
    expect(turn.answer).toBe("stopped: the model made the same tool call(s) 3 times in a row");
    expect(turn.calls).toHaveLength(2);
    expect(events.at(-1)).toEqual({ type: "notice", message: turn.answer });
  });

  it("stops at the step limit", async () => {
    const { gate } = await setup({ "a.txt": "a", "b.txt": "b" });
    bed.server.push(
      { toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] },
      { toolCalls: [{ name: "read_file", arguments: { path: "b.txt" } }] },
    );
    const session = new AgentSession({ gate, model: modelOf(bed.server, "openai"), maxSteps: 2 });
    const turn = await session.send("read everything");
    expect(turn).toMatchObject({
      stopReason: "step_limit",
      steps: 2,
      answer: "stopped after 2 model calls without a final answer (step limit)",
    });
  });

  it("ends with the model error's one line", async () => {
    const { gate } = await setup({});
    bed.server.push({ error: { status: 500, message: "out of memory" } });
    const session = new AgentSession({ gate, model: modelOf(bed.server, "ollama") });
    const turn = await session.send("hi");
    expect(turn).toMatchObject({
      stopReason: "model_error",
      error: "the model server failed (500): out of memory",
    });
  });
});

describe("rounds", () => {
  it("runs consecutive reads together and an edit between them in order", async () => {
    const { root, gate } = await setup({ "a.txt": "a\n", "b.txt": "b\n" });
    bed.server.push(
      {
        toolCalls: [
          { name: "read_file", arguments: { path: "a.txt" } },
          { name: "read_file", arguments: { path: "b.txt" } },
          { name: "write_file", arguments: { path: "a.txt", content: "A\n", overwrite: true } },
          { name: "read_file", arguments: { path: "a.txt" } },
        ],
      },
      { text: "done" },
    );
    const order: string[] = [];
    const session = new AgentSession({
      gate,
      model: modelOf(bed.server, "openai"),
      onEvent: (e) => {
        if (e.type === "tool_start" || e.type === "tool_end") order.push(`${e.type}:${e.name}`);
      },
    });
    const turn = await session.send("go");
    expect(order).toEqual([
      "tool_start:read_file",
      "tool_start:read_file",
      "tool_end:read_file",
      "tool_end:read_file",
      "tool_start:write_file",
      "tool_end:write_file",
      "tool_start:read_file",
      "tool_end:read_file",
    ]);
    expect(turn.calls[0]!.result.llmContent).toContain("a");
    expect(turn.calls[3]!.result.llmContent).toContain("A");
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("A\n");
  });

  it("routes first, then fans sub-questions out to suggested tools without another model call", async () => {
    const { gate } = await setup({ "a.txt": "alpha\n", "b.txt": "beta\n" });
    const start = bed.server.requests.length;
    bed.server.push(
      {
        text: JSON.stringify({
          query_type: "compare",
          sub_questions: ["What is in a.txt?", "What is in b.txt?"],
          suggested_tools: ["read_file"],
        }),
      },
      { text: "a.txt has alpha, b.txt has beta." },
    );
    const events: LoopEvent[] = [];
    const session = new AgentSession({
      gate,
      model: modelOf(bed.server, "ollama"),
      routing: true,
      onEvent: (e) => events.push(e),
    });
    const turn = await session.send("Compare a.txt and b.txt");
    expect(turn.answer).toBe("a.txt has alpha, b.txt has beta.");
    expect(turn.steps).toBe(1);
    expect(turn.calls.map((c) => c.args)).toEqual([{ path: "a.txt" }, { path: "b.txt" }]);
    expect(bed.server.requests.length - start).toBe(2);
    expect(bed.server.requests[start]!.format).toBe("json");
    expect(bed.server.requests[start]!.tools).toBeUndefined();
    const tools = bed.server.requests[start + 1]!.messages.filter((m) => m.role === "tool");
    expect(
      tools.map((m) => String(m.content).includes("alpha") || String(m.content).includes("beta")),
    ).toEqual([true, true]);
    expect(events.find((e) => e.type === "plan")).toMatchObject({ method: "routing" });
  });

  it("limits text extraction to the routing plan's suggested tools", async () => {
    const { root, gate } = await setup({ "a.txt": "alpha\n", "gone.txt": "g" });
    bed.server.push(
      { text: JSON.stringify({ query_type: "lookup", sub_questions: [], suggested_tools: ["read_file"] }) },
      { text: "I could run shell to delete gone.txt, or use read_file on a.txt." },
      { text: "a.txt says alpha." },
    );
    const events: LoopEvent[] = [];
    const session = new AgentSession({
      gate,
      model: modelOf(bed.server, "openai"),
      routing: true,
      nativeTools: false,
      onEvent: (e) => events.push(e),
    });
    const turn = await session.send("What does a.txt say?");
    expect(turn.calls.map((c) => [c.name, c.args])).toEqual([["read_file", { path: "a.txt" }]]);
    expect(events.find((e) => e.type === "plan")).toMatchObject({
      method: "text",
      skipped: [{ name: "shell", reason: "not in the routing plan's suggested_tools" }],
    });
    expect(await readFile(join(root, "gone.txt"), "utf8")).toBe("g");
  });

  it("runs a structured call the model wrote as JSON in its text (no native tool calling)", async () => {
    const { gate } = await setup({ "a.txt": "alpha\n" });
    const start = bed.server.requests.length;
    bed.server.push(
      { text: 'I will read it.\n```json\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n```' },
      { text: "alpha" },
    );
    const session = new AgentSession({ gate, model: modelOf(bed.server, "ollama"), nativeTools: false });
    const turn = await session.send("read a.txt");
    expect(turn.calls.map((c) => c.result.ok)).toEqual([true]);
    // The model sees its call as a call, answered by a tool message.
    const sent = bed.server.requests[start + 1]!.messages.slice(-2);
    expect(sent[0]).toMatchObject({
      role: "assistant",
      tool_calls: [{ function: { name: "read_file", arguments: { path: "a.txt" } } }],
    });
    expect(sent[1]).toMatchObject({ role: "tool", tool_name: "read_file" });
    expect(bed.server.requests[start]!.tools).toBeUndefined();
    expect(turn.answer).toBe("alpha");
  });

  it("goes on without a plan when the routing reply is not valid JSON", async () => {
    const { gate } = await setup({});
    bed.server.push({ text: "Sure! The query is about greetings." }, { text: "Hello." });
    const events: LoopEvent[] = [];
    const session = new AgentSession({
      gate,
      model: modelOf(bed.server, "openai"),
      routing: true,
      onEvent: (e) => events.push(e),
    });
    const turn = await session.send("hi");
    expect(turn.answer).toBe("Hello.");
    expect(events[0]).toEqual({ type: "routing", plan: null });
    expect(turn.calls).toEqual([]);
  });

  it.each([
    ["not json", undefined],
    ['{"sub_questions": []}', undefined],
    ['{"query_type": "x", "sub_questions": "a"}', undefined],
    ['[{"query_type": "x"}]', undefined],
    [
      '<think>hmm</think>```json\n{"query_type": "x", "suggested_tools": ["grep", "grep"]}\n```',
      { query_type: "x", sub_questions: [], suggested_tools: ["grep"] },
    ],
  ])("validates a routing reply %j", (text, want) => {
    expect(parseRoutingReply(text)).toEqual(want);
  });
});
