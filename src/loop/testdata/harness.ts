/**
 * @module loop/testdata/harness
 * What the loop's end-to-end tests share: a temp workspace with files, a real gate (`createToolgate`) with
 * the real built-in tools and a policy given inline, and a model server speaking a real wire format.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import type { ChatModel, LlmSettings } from "../../llm/index.js";
import { createChatModel } from "../../llm/index.js";
import { type ChatBody, type ModelServer, startModelServer } from "../../llm/testdata/model-server.js";
import { createToolgate, type Toolgate } from "../../toolgate.js";

/** Creates a temp workspace holding `files` (relative path → content). */
export async function makeWorkspace(files: Record<string, string> = {}): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "toolgate-loop-"));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

export async function removeWorkspace(root: string): Promise<void> {
  await rm(root, { recursive: true, force: true });
}

/** A gate over `root` with the built-in tools and `policy` (TOML). Warnings are collected, not printed. */
export async function makeGate(root: string, policy: string, warnings: string[] = []): Promise<Toolgate> {
  return createToolgate({
    roots: [root],
    cwd: root,
    config: {},
    policyText: policy,
    logger: { warn: (m: string) => warnings.push(m) },
  });
}

/**
 * A model of `server` in the given wire format. No retries unless asked: a scripted failure is the reply
 * under test (retries have their own tests in `llm/failures.test.ts`).
 */
export function modelOf(
  server: ModelServer,
  provider: "ollama" | "openai",
  model = "test-model",
  extra: Partial<LlmSettings> = {},
): ChatModel {
  return createChatModel({
    provider,
    model,
    baseUrl: provider === "ollama" ? server.url : server.openaiUrl,
    maxRetries: 0,
    ...extra,
  });
}

/** The last message of a request (the newest tool result, usually). */
export function lastMessage(body: ChatBody): { role: string; content?: string | null } {
  return body.messages.at(-1)!;
}

/** The system message of a request. */
export function systemOf(body: ChatBody): string {
  return String(body.messages.find((m) => m.role === "system")?.content ?? "");
}

/** What `loopTestbed` gives a test file: its model server (made before its tests) and a per-test set-up. */
export interface LoopTestbed {
  server: ModelServer;
  /** A workspace of `files` and a gate over it under `policy`, both removed after the test. */
  setup(files: Record<string, string>, policy?: string): Promise<{ root: string; gate: Toolgate }>;
}

/**
 * Registers a scripted model server for the file's tests and a clean-up after each test, which also checks
 * that the test used every reply it scripted.
 */
export function loopTestbed(): LoopTestbed {
  const cleanup: (() => Promise<void>)[] = [];
  const bed = {
    async setup(files: Record<string, string>, policy = 'default = "allow"\n') {
      const root = await makeWorkspace(files);
      const gate = await makeGate(root, policy);
      cleanup.push(async () => {
        await gate.close();
        await removeWorkspace(root);
      });
      return { root, gate };
    },
  } as LoopTestbed;
  beforeAll(async () => {
    bed.server = await startModelServer(["test-model"]);
  });
  afterAll(async () => bed.server?.close());
  afterEach(async () => {
    while (cleanup.length) await cleanup.pop()!();
    expect(bed.server.remaining()).toBe(0);
  });
  return bed;
}
