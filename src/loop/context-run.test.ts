/**
 * The context budget through the real binary: `toolgate run` (dist/bin/toolgate.js, a child process)
 * reads twenty 3,000-line files one per round against test servers that behave as the real ones do with
 * an over-long prompt — an Ollama that cuts silently, llama.cpp's server refusing with 400 (its window
 * learned from its `/props`), a server reporting 1 prompt token. Every request fits the window by the
 * server's count and at 3 characters a token, holds the task, and the answer arrives with exit 0.
 */
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ModelServerOptions, startModelServer } from "../llm/testdata/model-server.js";
import { tempWorkspace, toolgate } from "../test-support/cli.js";
import { bigFiles, readingAnswer, readingModel, readingTask, requestProblems } from "./testdata/reading.js";

const FILES = 20;
/** Twenty rounds, and as many summaries, in a child process on a busy machine. */
const SLOW = 240_000;

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

describe.each([
  {
    name: "an Ollama that cuts silently, context_window 8192, every built-in tool",
    provider: "ollama",
    window: 8192,
    options: { behaviour: { ollama: "cut" } },
    config: "[llm]\ncontext_window = 8192\n",
    agent: undefined,
  },
  {
    name: "llama.cpp's server, its 4096-token window read from /props, an agent with read_file only",
    provider: "openai",
    window: 4096,
    options: { behaviour: { openai: "llama.cpp" } },
    config: "",
    agent: "reader",
  },
  {
    name: "a server reporting 1 prompt token, context_window 32768",
    provider: "openai",
    window: 32_768,
    options: { behaviour: { openai: "llama.cpp" }, reportPrompt: () => 1 },
    config: "[llm]\ncontext_window = 32768\n",
    agent: undefined,
  },
] as const satisfies readonly {
  name: string;
  provider: "ollama" | "openai";
  window: number;
  options: ModelServerOptions;
  config: string;
  agent: string | undefined;
}[])("toolgate run with $name", ({ provider, window, options, config, agent }) => {
  it(
    "reads twenty 3,000-line files inside the window and prints the answer (exit 0)",
    async () => {
      const server = await startModelServer(["test-model"], window, options);
      const ws = await tempWorkspace({
        ...bigFiles(FILES),
        ".toolgate/config.toml": config,
        ".toolgate/agents/reader.md":
          "---\ndescription: Reads files\ntools: [read_file]\n---\nRead what you are asked to.\n",
      });
      const home = join(ws, ".home");
      await mkdir(home);
      cleanup.push(async () => {
        await server.close();
        await rm(ws, { recursive: true, force: true });
      });
      for (let i = 0; i < 80; i++) server.push(readingModel(FILES));
      const task = readingTask(FILES);
      const r = await toolgate(
        [
          "run",
          "--json",
          "--yes",
          "--workspace",
          ws,
          "--provider",
          provider,
          "--base-url",
          provider === "ollama" ? server.url : server.openaiUrl,
          "--model",
          "test-model",
          "--max-steps",
          "30",
          ...(agent ? ["--agent", agent] : []),
          task,
        ],
        { cwd: ws, env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config") } },
      );
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out).toMatchObject({
        answer: readingAnswer(FILES),
        stopReason: "answer",
        steps: FILES + 1,
        tokens: { window },
      });
      expect(out.calls).toHaveLength(FILES);
      expect(requestProblems(server.prompts, server.requests, task)).toEqual([]);
    },
    SLOW,
  );
});

describe("toolgate run when the prompt overflows twice", () => {
  it(
    "says so plainly and exits 1",
    async () => {
      // Three tokens a character: denser than any plausible rate, so the retry overflows too.
      const server = await startModelServer(["test-model"], 8192, {
        behaviour: { openai: "llama.cpp" },
        tokenize: (text) => text.length * 3,
      });
      const ws = await tempWorkspace({
        ...bigFiles(1),
        ".toolgate/agents/reader.md": "---\ndescription: Reads files\ntools: [read_file]\n---\n",
      });
      cleanup.push(async () => {
        await server.close();
        await rm(ws, { recursive: true, force: true });
      });
      server.push(readingModel(1), readingModel(1));
      const r = await toolgate(
        ["run", "--yes", "--workspace", ws, "--provider", "openai", "--base-url", server.openaiUrl].concat([
          "--model",
          "test-model",
          "--agent",
          "reader",
          "Read f1.txt.",
        ]),
        { cwd: ws, env: { HOME: ws, XDG_CONFIG_HOME: join(ws, ".config") } },
      );
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(
        /toolgate: the prompt did not fit the model's context window \(\d+ tokens for a window of 8192\): .* — and again after compacting: set \[llm\] context_window to what the model really holds, use fewer tools, or ask for less at a time\n/,
      );
      expect(server.prompts.filter((p) => p.outcome === "refused")).toHaveLength(2);
    },
    SLOW,
  );
});
