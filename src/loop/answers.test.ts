/**
 * Answers stay answers (issue 15, item 2), against a local server in both wire formats: with native tool
 * calling, a JSON example inside prose, a tool named with a path, or a hedged mention while thinking is an
 * answer — nothing runs, even where everything is allowed; a reply that is nothing but the call, or the
 * model's own call markup, is a call. After tool results the same holds for text-only models.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentSession } from "./session.js";
import { loopTestbed, modelOf } from "./testdata/harness.js";

const bed = loopTestbed();

const setup = () => bed.setup({ "a.txt": "alpha\n", "keep.txt": "k" }, 'default = "allow"\n');

const example =
  'To delete a file, a tool call looks like this:\n```json\n{"name": "shell", "arguments": {"command": "rm keep.txt"}}\n```\nI did not run it.';

describe.each(["ollama", "openai"] as const)("over %s with native tool calling", (provider) => {
  it.each([
    ["a JSON example inside prose", example],
    [
      "an answer naming a tool and a path",
      "You can read a.txt with read_file, or delete keep.txt with shell.",
    ],
    [
      "a hedged mention while thinking, with a visible answer",
      "<think>maybe read_file would help on a.txt</think>Hello! What would you like to do?",
    ],
  ])("%s is the answer; nothing runs", async (_, text) => {
    const { root, gate } = await setup();
    bed.server.push({ text });
    const session = new AgentSession({ gate, model: modelOf(bed.server, provider) });
    const turn = await session.send("how do tools work here?");
    expect(turn).toMatchObject({ stopReason: "answer", calls: [] });
    expect(turn.answer).toBe(text.replace(/<think>[\s\S]*<\/think>/, ""));
    expect(await readFile(join(root, "keep.txt"), "utf8")).toBe("k");
  });

  it.each([
    ["a reply that is nothing but the call", '{"name": "read_file", "arguments": {"path": "a.txt"}}'],
    ["a lone fenced call", '```json\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n```'],
    [
      "the model's own call markup inside prose",
      'Reading it now.\n<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>',
    ],
  ])("%s is a call", async (_, text) => {
    const { gate } = await setup();
    bed.server.push({ text }, { text: "a.txt says alpha." });
    const session = new AgentSession({ gate, model: modelOf(bed.server, provider) });
    const turn = await session.send("read a.txt");
    expect(turn.calls.map((c) => [c.name, c.args, c.result.ok])).toEqual([
      ["read_file", { path: "a.txt" }, true],
    ]);
    expect(turn.answer).toBe("a.txt says alpha.");
  });
});

describe("a text-only model", () => {
  it("after tool results, a JSON example inside prose is the answer", async () => {
    const { root, gate } = await setup();
    bed.server.push({ text: '{"name": "read_file", "arguments": {"path": "a.txt"}}' }, { text: example });
    const session = new AgentSession({ gate, model: modelOf(bed.server, "ollama"), nativeTools: false });
    const turn = await session.send("read a.txt, then show me a tool call example");
    expect(turn.calls.map((c) => c.name)).toEqual(["read_file"]);
    expect(turn).toMatchObject({ stopReason: "answer", answer: example });
    expect(await readFile(join(root, "keep.txt"), "utf8")).toBe("k");
  });

  it("a hedged mention while thinking does not replace a visible answer", async () => {
    const { gate } = await setup();
    bed.server.push({ text: "<think>maybe read_file would help on a.txt</think>Hi! How can I help?" });
    const session = new AgentSession({ gate, model: modelOf(bed.server, "ollama"), nativeTools: false });
    const turn = await session.send("hello");
    expect(turn).toMatchObject({ stopReason: "answer", answer: "Hi! How can I help?", calls: [] });
  });
});
