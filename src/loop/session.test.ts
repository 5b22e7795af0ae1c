/**
 * The agent loop end to end: a local server speaking Ollama's or the OpenAI-compatible wire format replays
 * a model's replies; the real gate runs the real built-in tools in a temp workspace under a real policy.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createScope } from "../agents/index.js";
import { ConfirmationBroker } from "./approvals.js";
import { AgentSession } from "./session.js";
import { loopTestbed, modelOf } from "./testdata/harness.js";
import { readTranscript, Transcript } from "./transcript.js";
import type { LoopEvent } from "./types.js";

const bed = loopTestbed();

const setup = bed.setup;

/** The content of the newest tool message the model was sent. */
const lastTool = (i: number) => String(bed.server.requests[i]!.messages.at(-1)?.content);

describe.each(["ollama", "openai"] as const)("over %s", (provider) => {
  it("reads, edits and verifies a file, each call through the pipeline, and saves the transcript", async () => {
    const { root, gate } = await setup(
      { "notes.txt": "helo world\n" },
      'default = "deny"\n[[rules]]\ntool = ["read_file", "edit_file"]\ndecision = "allow"\n',
    );
    const start = bed.server.requests.length;
    bed.server.push(
      { text: "Let me look.", toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
      (body) => {
        expect(String(body.messages.at(-1)?.content)).toContain("helo world");
        return {
          toolCalls: [
            {
              name: "edit_file",
              arguments: { path: "notes.txt", edits: [{ oldText: "helo", newText: "hello" }] },
            },
          ],
        };
      },
      { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
      { text: "Fixed the typo: it now says hello world." },
    );
    const transcript = await Transcript.create(join(root, ".toolgate", "sessions"), "chat");
    const events: LoopEvent[] = [];
    const session = new AgentSession({
      gate,
      model: modelOf(bed.server, provider),
      root,
      transcript,
      onEvent: (e) => events.push(e),
    });
    const turn = await session.send("Fix the typo in notes.txt");
    expect(turn.stopReason).toBe("answer");
    expect(turn.answer).toBe("Fixed the typo: it now says hello world.");
    expect(turn.steps).toBe(4);
    expect(turn.calls.map((c) => [c.name, c.result.ok, c.result.decision])).toEqual([
      ["read_file", true, "allow"],
      ["edit_file", true, "allow"],
      ["read_file", true, "allow"],
    ]);
    expect(await readFile(join(root, "notes.txt"), "utf8")).toBe("hello world\n");
    expect(lastTool(start + 3)).toContain("hello world");
    // The model saw only tools, in its provider's schema shape.
    const sent = bed.server.requests[start]!.tools!.map((t) => t.function.name);
    expect(sent).toContain("read_file");
    expect(events.filter((e) => e.type === "tool_end").map((e) => e.type === "tool_end" && e.name)).toEqual([
      "read_file",
      "edit_file",
      "read_file",
    ]);
    await transcript.flush();
    const records = await readTranscript(transcript.file);
    expect(records[0]).toMatchObject({ type: "session", provider, model: "test-model", root });
    expect(
      records.filter((r) => r.type === "tool_result").map((r) => r.type === "tool_result" && r.decision),
    ).toEqual(["allow", "allow", "allow"]);
    expect(records.at(-1)).toMatchObject({ type: "turn_end", stopReason: "answer", steps: 4 });
  });

  it("answers a tool outside the agent's scope with 'tool not found', and the model recovers", async () => {
    const { gate } = await setup({ "a.txt": "alpha\n", "gone.txt": "x" }, 'default = "allow"\n');
    const start = bed.server.requests.length;
    bed.server.push(
      { toolCalls: [{ name: "shell", arguments: { command: "rm gone.txt" } }] },
      { toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] },
      { text: "a.txt says alpha." },
    );
    const session = new AgentSession({
      gate,
      model: modelOf(bed.server, provider),
      scope: createScope(["read_file"], "reader", 0),
    });
    const turn = await session.send("What does a.txt say?");
    expect(turn.answer).toBe("a.txt says alpha.");
    expect(lastTool(start + 1)).toBe('Error (tool_not_found): tool not found: "shell"');
    expect(turn.calls[0]!.result.error?.type).toBe("tool_not_found");
    expect(bed.server.requests[start]!.tools!.map((t) => t.function.name)).toEqual(["read_file"]);
  });
});

describe("the guard path and policy", () => {
  it("extracts a call from a text-only model's prose (guarded), and treats prose after results as the answer", async () => {
    const { gate } = await setup({ "README.md": "# Demo\n" }, 'default = "allow"\n');
    const start = bed.server.requests.length;
    bed.server.push(
      {
        text: "<think>The user asks about README.md. I could use web_fetch but there is no URL; read_file fits.</think>I will open README.md with read_file.",
      },
      { text: "README.md is a heading: Demo. (I used read_file.)" },
    );
    const events: LoopEvent[] = [];
    const session = new AgentSession({
      gate,
      model: modelOf(bed.server, "openai"),
      nativeTools: false,
      onEvent: (e) => events.push(e),
    });
    const turn = await session.send("What is in README.md?");
    expect(bed.server.requests[start]!.tools).toBeUndefined();
    expect(turn.calls.map((c) => [c.name, c.args])).toEqual([["read_file", { path: "README.md" }]]);
    expect(events.find((e) => e.type === "plan")).toMatchObject({ method: "text" });
    expect(lastTool(start + 1)).toContain("# Demo");
    expect(turn.answer).toBe("README.md is a heading: Demo. (I used read_file.)");
    expect(turn.stopReason).toBe("answer");
  });

  it("returns a denied shell command to the model as an error; nothing runs", async () => {
    const { root, gate } = await setup(
      { "keep.txt": "k" },
      'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "deny"\nmessage = "no shell in this project"\n',
    );
    const start = bed.server.requests.length;
    bed.server.push(
      { toolCalls: [{ name: "shell", arguments: { command: "rm keep.txt" } }] },
      { text: "I may not run commands here." },
    );
    const session = new AgentSession({ gate, model: modelOf(bed.server, "ollama") });
    const turn = await session.send("delete keep.txt");
    expect(lastTool(start + 1)).toBe("Error (denied_by_policy): shell was denied: no shell in this project");
    expect(turn.calls[0]!.result.decision).toBe("deny");
    expect(await readFile(join(root, "keep.txt"), "utf8")).toBe("k");
    expect(turn.answer).toBe("I may not run commands here.");
  });

  it("asks through the bus: a listener approves one write and refuses another", async () => {
    const { root, gate } = await setup({}, 'default = "ask"\n');
    const asked: string[] = [];
    gate.bus.onConfirmation((request) => {
      asked.push(`${request.details.toolName}:${request.details.locations.join(",")}`);
      return { approved: request.details.locations.some((l) => l.endsWith("ok.txt")) };
    });
    const start = bed.server.requests.length;
    bed.server.push(
      {
        toolCalls: [
          { name: "write_file", arguments: { path: "ok.txt", content: "yes" } },
          { name: "write_file", arguments: { path: "no.txt", content: "no" } },
        ],
      },
      { text: "Wrote ok.txt; no.txt was refused." },
    );
    const session = new AgentSession({ gate, model: modelOf(bed.server, "openai") });
    const turn = await session.send("write two files");
    expect(asked).toEqual([`write_file:${join(root, "ok.txt")}`, `write_file:${join(root, "no.txt")}`]);
    expect(turn.calls.map((c) => [c.result.decision, c.result.error?.type ?? "ok"])).toEqual([
      ["ask", "ok"],
      ["ask", "denied_by_policy"],
    ]);
    expect(await readFile(join(root, "ok.txt"), "utf8")).toBe("yes");
    const messages = bed.server.requests[start + 1]!.messages.filter((m) => m.role === "tool");
    expect(String(messages[1]!.content)).toBe(
      "Error (denied_by_policy): write_file was denied: it was not approved",
    );
  });

  it("remembers 'always' for the exact call only: the same write is not asked again, another one is", async () => {
    const { gate } = await setup({}, 'default = "ask"\n');
    const asked: string[] = [];
    // The broker is given to each call (no bus listener): the request itself names the call.
    const broker = new ConfirmationBroker(async ({ call }) => {
      asked.push(JSON.stringify({ name: call.name, args: call.args }));
      return { approved: true, always: true };
    });
    const write = (content: string) => ({
      toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content, overwrite: true } }],
    });
    bed.server.push(write("1"), write("1"), write("2"), { text: "done" });
    const session = new AgentSession({ gate, model: modelOf(bed.server, "ollama"), broker, maxRepeats: 5 });
    const turn = await session.send("write");
    expect(turn.calls.map((c) => c.result.ok)).toEqual([true, true, true]);
    expect(asked).toEqual([
      JSON.stringify({ name: "write_file", args: { path: "a.txt", content: "1", overwrite: true } }),
      JSON.stringify({ name: "write_file", args: { path: "a.txt", content: "2", overwrite: true } }),
    ]);
    expect(broker.approvals.size).toBe(2);
  });
});
