/**
 * Sub-agents through the real pool and pipeline: spawn_agents runs this loop at depth + 1 with the child's
 * resolved scope; an opted-in child spawns at depth 2 where spawn_agents is gone; the child's confirmation
 * reaches the parent's bus tagged with its name; each run keeps its transcript; answers come back up —
 * in a context window, each child within a budget of its own and its answer shaped like any result.
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../llm/testdata/model-server.js";
import { ConfirmationBroker } from "./approvals.js";
import { attachToolPool } from "./host.js";
import { AgentSession } from "./session.js";
import { CUT_MARK } from "./shape.js";
import { createAgentRunner } from "./sub-agents.js";
import { makeGate, makeWorkspace, modelOf, removeWorkspace, systemOf } from "./testdata/harness.js";
import { bigFiles, requestProblems } from "./testdata/reading.js";
import { readTranscript, sessionsDir, Transcript } from "./transcript.js";
import type { LoopEvent } from "./types.js";

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(["test-model"]);
});
afterAll(async () => server.close());

const toolNames = (body: { tools?: { function: { name: string } }[] }) =>
  (body.tools ?? []).map((t) => t.function.name);

describe("spawn_agents backed by the loop", () => {
  it("runs children at depth + 1 with their own scopes, up to the depth limit", async () => {
    const root = await makeWorkspace({ "seed.txt": "seed\n" });
    await mkdir(join(root, ".toolgate", "agents"), { recursive: true });
    await writeFile(
      join(root, ".toolgate", "agents", "helper.md"),
      "---\ndescription: Delegates\ntools: [read_file, spawn_agents]\n---\nDelegate the writing to leaf.\n",
    );
    await writeFile(
      join(root, ".toolgate", "agents", "leaf.md"),
      "---\ndescription: Writes\ntools: [read_file, write_file, spawn_agents]\n---\nWrite what you are told.\n",
    );
    const gate = await makeGate(
      root,
      'default = "allow"\n[[rules]]\ntool = "write_file"\ndecision = "ask"\n',
    );
    const model = modelOf(server, "openai");
    const asked: (string | undefined)[] = [];
    const requestedBy: (string | undefined)[] = [];
    const broker = new ConfirmationBroker(async ({ details, agent }) => {
      asked.push(details.agent);
      requestedBy.push(agent);
      return "yes";
    });
    const events: LoopEvent[] = [];
    const dir = sessionsDir(root);
    const runner = createAgentRunner({
      gate,
      model,
      root,
      sessionsDir: dir,
      broker,
      onEvent: (e) => events.push(e),
    });
    const host = await attachToolPool(gate, { root, runner, logger: { warn: () => undefined } });
    try {
      expect(gate.registry.has("spawn_agents")).toBe(true);
      const spawn = (agent: string, task: string) => ({
        toolCalls: [{ name: "spawn_agents", arguments: { agents: [{ agent, task }] } }],
      });
      const last = (body: { messages: { content?: unknown }[] }) => String(body.messages.at(-1)?.content);
      server.push(
        spawn("helper", "get leaf to write leaf.txt"),
        (body) => {
          expect(systemOf(body)).toContain('You are the agent "helper"');
          expect(toolNames(body).sort()).toEqual(["read_file", "spawn_agents"]);
          return spawn("leaf", "write leaf.txt");
        },
        (body) => {
          expect(systemOf(body)).toContain("Write what you are told.");
          expect(toolNames(body).sort()).toEqual(["read_file", "write_file"]);
          return spawn("leaf", "again");
        },
        (body) => {
          expect(last(body)).toBe('Error (tool_not_found): tool not found: "spawn_agents"');
          return {
            toolCalls: [{ name: "write_file", arguments: { path: "leaf.txt", content: "from leaf\n" } }],
          };
        },
        { text: "leaf wrote leaf.txt" },
        (body) => {
          expect(last(body)).toContain("leaf wrote leaf.txt");
          return { text: "helper: leaf wrote leaf.txt" };
        },
        (body) => {
          expect(last(body)).toContain("helper: leaf wrote leaf.txt");
          return { text: "all done" };
        },
      );
      const transcript = await Transcript.create(dir, "chat");
      const session = new AgentSession({
        gate,
        model,
        root,
        broker,
        transcript,
        onEvent: (e) => events.push(e),
      });
      const turn = await session.send("have the helper write a file");
      expect(turn.answer).toBe("all done");
      expect(server.remaining()).toBe(0);
      expect(await readFile(join(root, "leaf.txt"), "utf8")).toBe("from leaf\n");
      // The child's call brought the parent's broker, and its request names the child.
      expect(asked).toEqual(["leaf"]);
      expect(requestedBy).toEqual(["leaf"]);
      expect(events).toContainEqual({
        type: "notice",
        agent: "leaf",
        depth: 2,
        message: "agent leaf: spawn_agents removed: max depth 2 reached (depth 2)",
      });
      expect(
        events.some((e) => e.type === "tool_end" && e.agent === "helper" && e.name === "spawn_agents"),
      ).toBe(true);
      // Three transcripts, linked parent → child.
      await transcript.flush();
      const files = (await readdir(dir)).sort();
      expect(files).toHaveLength(3);
      const main = await readTranscript(transcript.file);
      const link = main.find((r) => r.type === "sub_agent");
      expect(link).toMatchObject({ agent: "helper", depth: 1, ok: true });
      const helper = await readTranscript(link!.type === "sub_agent" ? link!.file : "");
      expect(helper[0]).toMatchObject({
        type: "session",
        agent: "helper",
        depth: 1,
        tools: ["read_file", "spawn_agents"],
      });
      expect(helper.find((r) => r.type === "sub_agent")).toMatchObject({ agent: "leaf", depth: 2, ok: true });
    } finally {
      await host.close();
      await gate.close();
      await removeWorkspace(root);
    }
  });

  it("reports a child that cannot finish as a failed sub-agent, not a crash", async () => {
    const root = await makeWorkspace({});
    await mkdir(join(root, ".toolgate", "agents"), { recursive: true });
    await writeFile(join(root, ".toolgate", "agents", "w.md"), "---\ndescription: W\ntools: []\n---\n");
    const gate = await makeGate(root, 'default = "allow"\n');
    const model = modelOf(server, "ollama");
    const runner = createAgentRunner({ gate, model, root });
    const host = await attachToolPool(gate, { root, runner });
    try {
      server.push(
        { toolCalls: [{ name: "spawn_agents", arguments: { agents: [{ agent: "w", task: "t" }] } }] },
        { error: { status: 500, message: "crashed" } },
        { text: "the worker failed" },
      );
      const session = new AgentSession({ gate, model });
      const turn = await session.send("go");
      // Every child failed: the call failed, with the report.
      expect(turn.calls[0]!.result.error?.type).toBe("execution_failed");
      expect(turn.calls[0]!.result.llmContent).toBe(
        "Error (execution_failed): 0 of 1 sub-agent(s) succeeded\n\n## 1. w: failed\nthe agent stopped (model_error): the model server failed (500): crashed",
      );
      expect(turn.answer).toBe("the worker failed");
    } finally {
      await host.close();
      await gate.close();
      await removeWorkspace(root);
    }
  });
});

describe("sub-agents in a context window", () => {
  it("each child keeps to the window with a budget of its own, and its answer is shaped like any result", async () => {
    const windowed = await startModelServer(["test-model"], 8192, { behaviour: { openai: "llama.cpp" } });
    const root = await makeWorkspace(bigFiles(1));
    await mkdir(join(root, ".toolgate", "agents"), { recursive: true });
    await writeFile(
      join(root, ".toolgate", "agents", "reader.md"),
      "---\ndescription: Reads\ntools: [read_file]\n---\nQuote what you read.\n",
    );
    const gate = await makeGate(root, 'default = "allow"\n');
    const model = modelOf(windowed, "openai");
    const runner = createAgentRunner({ gate, model, root, contextWindow: 8192 });
    const host = await attachToolPool(gate, { root, runner, logger: { warn: () => undefined } });
    try {
      const last = (body: { messages: { content?: unknown }[] }) => String(body.messages.at(-1)?.content);
      windowed.push(
        {
          toolCalls: [
            { name: "spawn_agents", arguments: { agents: [{ agent: "reader", task: "quote f1.txt" }] } },
          ],
        },
        { toolCalls: [{ name: "read_file", arguments: { path: "f1.txt" } }] },
        (body) => {
          // The child's read came back cut to the child's own share.
          expect(last(body)).toContain(`${CUT_MARK}call read_file again with startLine `);
          // A long answer: far more than the parent's share for a round's results.
          return { text: `f1.txt says: ${"the quick brown fox jumps over the dog. ".repeat(1500)}` };
        },
        (body) => {
          expect(last(body)).toContain(
            `${CUT_MARK}ask the agent for a shorter answer, or for one part at a time]`,
          );
          return { text: "The reader quoted f1.txt." };
        },
      );
      const session = new AgentSession({ gate, model, root, contextWindow: 8192 });
      const turn = await session.send("have the reader quote f1.txt");
      expect(turn.answer).toBe("The reader quoted f1.txt.");
      expect(windowed.remaining()).toBe(0);
      // Every request, the child's and the parent's, inside the window.
      expect(requestProblems(windowed.prompts, [], "")).toEqual([]);
    } finally {
      await host.close();
      await gate.close();
      await windowed.close();
      await removeWorkspace(root);
    }
  });
});
