/**
 * Honest prompts (issue 27.6): a model's text cannot forge or hide what a person approves. Every hostile
 * text of `testdata/hostile-text.json` goes into every text argument of a call of every built-in tool, the
 * coordination tools and an MCP tool; each call asks, and each front end's drawing is checked — `toolgate
 * call`'s terminal prompt, chat's question, the MCP elicitation a client receives (over a real MCP client and
 * server), and the details as JSON. None may carry a hidden character from the call, no row may be wider
 * than the terminal (so none wraps into a line of its own), and the last line is the sandbox line, exactly in
 * toolgate's words. A call that ends before any question is checked where its error shows (chat's tool line,
 * `--json`).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline/promises";
import { PassThrough } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createListAvailableAgentsTool, createSpawnAgentsTool } from "../agents/index.js";
import { terminalConfirm } from "../cli/chat/ask.js";
import { toolLine } from "../cli/chat/render.js";
import type { CliIo } from "../cli/io.js";
import { askOnTerminal } from "../cli/prompt.js";
import {
  type CallResult,
  type ConfirmationDetails,
  type ConfirmationRequest,
  displaySafeJson,
  type JsonSchema,
  okResult,
  type Tool,
} from "../core/index.js";
import { type McpServing, serveMcp } from "../mcp/index.js";
import { createMcpTool } from "../mcp-client/mcp-tool.js";
import { createToolgate, type Toolgate } from "../toolgate.js";
import HOSTILE from "./testdata/hostile-text.json" with { type: "json" };

/** The terminal's width in columns the prompts are drawn for. */
const WIDTH = 80;
const SHELL_SANDBOX =
  "workspace-write (writes only inside the workspace; WITH NETWORK through toolgate's proxy: no loopback, private or metadata addresses; home folder hidden; secrets unreadable) — the command asks for network access";
const MCP_SANDBOX = 'none (the MCP server "srv" runs this call, outside toolgate)';
const notShell = (name: string) => `none (${name} is not a shell command; toolgate runs it itself)`;
const expectedSandbox = (name: string) =>
  name === "shell" ? SHELL_SANDBOX : name.startsWith("mcp__") ? MCP_SANDBOX : notShell(name);

const MCP_SCHEMA = {
  type: "object",
  properties: {
    path: { type: "string" },
    command: { type: "string" },
    note: { type: "string" },
    items: { type: "array", items: { type: "string" } },
    nested: { type: "object", properties: { url: { type: "string" } } },
  },
};

type Slot = (string | number)[];

/** Where a text can go in a tool's arguments: string properties (not enums), string items, nested objects. */
function textSlots(schema: JsonSchema, at: Slot = []): Slot[] {
  const out: Slot[] = [];
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, prop] of Object.entries(props)) {
    if (prop.type === "string" && !prop.enum) out.push([...at, name]);
    else if (prop.type === "object") out.push(...textSlots(prop, [...at, name]));
    else if (prop.type === "array") {
      const items = (prop.items ?? {}) as JsonSchema;
      if (items.type === "string") out.push([...at, name, 0]);
      else if (items.type === "object") out.push(...textSlots(items, [...at, name, 0]));
    }
  }
  return out;
}

/** `base` with `text` at `slot` (containers made as needed). */
function withText(base: unknown, slot: Slot, text: string): Record<string, unknown> {
  const args = structuredClone(base) as Record<string, unknown>;
  let node = args as Record<string | number, unknown>;
  for (const [i, key] of slot.entries()) {
    if (i === slot.length - 1) node[key] = text;
    else {
      node[key] ??= typeof slot[i + 1] === "number" ? [] : {};
      node = node[key] as Record<string | number, unknown>;
    }
  }
  return args;
}

/** Characters a front end must never draw from a call: everything but printable text and its own line breaks. */
function hiddenIn(text: string): string[] {
  const found: string[] = [];
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === "\n") continue;
    const c0 = code < 0x20 || code === 0x7f || (code >= 0x80 && code <= 0x9f);
    const invisible = /[\u00A0\u00AD\u061C\u200B-\u200F\u2028-\u202F\u205F-\u206F\u3000\u3164\uFEFF]/u.test(
      ch,
    );
    if (c0 || invisible || (code >= 0xe0000 && code <= 0xe01ef))
      found.push(`U+${code.toString(16).padStart(4, "0")}`);
  }
  return found;
}

/** The checks every drawn prompt passes: nothing hidden, nothing too wide, the sandbox line last and alone. */
function expectHonest(drawn: string, sandboxLine: string, where: string, width?: number): void {
  expect(hiddenIn(drawn), where).toEqual([]);
  const rows = drawn.replace(/\n+$/, "").split("\n");
  expect(rows.at(-1), where).toBe(sandboxLine);
  expect(
    rows.filter((row) => /^\s*sandbox:/.test(row)),
    where,
  ).toEqual([sandboxLine]);
  // Quoted rows fit the terminal, so it never wraps a call's text onto a row of its own.
  if (width !== undefined)
    for (const row of rows.filter((r) => r.includes("│")))
      expect([...row].length, `${where}: ${row}`).toBeLessThanOrEqual(width);
}

/**
 * `toolgate call`'s prompt on a terminal, answered "n"; returns what it drew before the question, or a note
 * of what went wrong (no assertions here: it runs inside `confirm`).
 */
async function callPrompt(request: ConfirmationRequest): Promise<string> {
  let drawn = "";
  const stdin = new PassThrough();
  const io = { stdin, stderr: (t: string) => (drawn += t), stdout: () => undefined } as unknown as CliIo;
  stdin.end("n\n");
  const columns = process.stderr.columns;
  process.stderr.columns = WIDTH;
  try {
    if ((await askOnTerminal(io, request)).approved) return "(approved on a no)";
  } finally {
    process.stderr.columns = columns;
  }
  if (!drawn.endsWith("Allow? [y/N] ")) return `(no question after)\n${drawn}`;
  return drawn.slice(0, -"Allow? [y/N] ".length);
}

/** chat's question, answered "n"; returns what it drew before the question (or a note of what went wrong). */
async function chatPrompt(request: ConfirmationRequest): Promise<string> {
  let drawn = "";
  const input = new PassThrough();
  const rl = createInterface({ input, output: new PassThrough(), terminal: false });
  const ask = terminalConfirm(
    rl,
    (t) => {
      drawn += t;
    },
    () => undefined,
    () => WIDTH,
  );
  const answer = ask(request);
  input.end("n\n");
  const said = await answer;
  rl.close();
  return said.approved ? `(answered ${JSON.stringify(said)})` : drawn;
}

let root: string;
let gate: Toolgate;
let client: Client;
let serving: McpServing;
/** The elicitation messages the MCP client received, newest last. */
const elicited: { message: string; schema: unknown }[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "tg-honest-"));
  await writeFile(join(root, "notes.txt"), "hello\n");
  const host = {
    root,
    agents: async () => ({ agents: [], warnings: [] }),
    poolNames: async () => [],
  };
  const mcpTool = createMcpTool(
    "mcp__srv__act",
    { server: "srv", tool: "act" },
    { name: "act", inputSchema: MCP_SCHEMA },
    async () => okResult("acted"),
  );
  gate = await createToolgate({
    roots: [root],
    policyText: 'default = "ask"\n',
    config: {
      sandbox: { mode: "workspace-write" },
      jira: { base_url: "https://jira.example.test" },
      confluence: { base_url: "https://wiki.example.test" },
    },
    env: { JIRA_API_TOKEN: "token", CONFLUENCE_API_TOKEN: "token" },
    tools: [
      createSpawnAgentsTool(host as never),
      createListAvailableAgentsTool(host as never),
      mcpTool,
    ] as Tool[],
    logger: { warn: () => undefined },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serving = await serveMcp(gate, serverSide);
  client = new Client({ name: "honest-test", version: "1" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicited.push({
      message: String(request.params.message),
      schema: "requestedSchema" in request.params ? request.params.requestedSchema : undefined,
    });
    return { action: "decline" };
  });
  await client.connect(clientSide);
});
afterAll(async () => {
  await client?.close();
  await serving?.close();
  await gate?.close();
  await rm(root, { recursive: true, force: true });
});

describe("honest prompts: model text in every field of every tool", () => {
  it("covers every tool the gate serves, with a call that reaches its question", () => {
    expect(gate.registry.names().sort()).toEqual(Object.keys(HOSTILE.base).sort());
  });

  const tools = Object.keys(HOSTILE.base).sort();
  it.each(tools)("%s: every front end shows the call quoted and its sandbox line last", async (name) => {
    const tool = gate.registry.get(name)!;
    const base = HOSTILE.base[name as keyof typeof HOSTILE.base];
    const slots = textSlots(tool.parameters);
    // Not vacuous: the tool's base call reaches a question (a hostile text may be refused before it).
    let baseAsked = false;
    await gate.execute(
      { name, args: base },
      {
        confirm: async () => {
          baseAsked = true;
          return { approved: false };
        },
      },
    );
    expect(baseAsked, `${name}'s base call asks`).toBe(true);
    for (const slot of slots.length > 0 ? slots : [[]]) {
      for (const { note, text } of HOSTILE.texts) {
        const args = slot.length > 0 ? withText(base, slot, text) : base;
        const where = `${name} ${slot.join(".")}: ${note}`;
        // Drawn inside `confirm`, checked after the call: a `confirm` that throws is a refusal, so an
        // assertion failing in there would be swallowed.
        let details: ConfirmationDetails | undefined;
        let drawn: { call: string; chat: string } | undefined;
        const result: CallResult = await gate.execute(
          { name, args },
          {
            confirm: async (request) => {
              details = request.details;
              drawn = { call: await callPrompt(request), chat: await chatPrompt(request) };
              return { approved: false };
            },
          },
        );
        if (details) {
          expect(drawn, where).toBeDefined();
          expect(details.sandbox, where).toBe(expectedSandbox(name));
          expectHonest(drawn!.call, `  sandbox: ${details.sandbox}`, `call ${where}`, WIDTH);
          expectHonest(drawn!.chat, `  sandbox: ${details.sandbox}`, `chat ${where}`, WIDTH);
          // The details as JSON (the bus, a host's own UI) carry nothing hidden even before escaping.
          expect(hiddenIn(JSON.stringify(details)), `json ${where}`).toEqual([]);
        }
        // Where an error shows: chat's tool line and `--json`.
        expect(hiddenIn(toolLine("", name, String(text), result)), `tool line ${where}`).toEqual([]);
        expect(hiddenIn(displaySafeJson(result)), `--json ${where}`).toEqual([]);
        expect(JSON.parse(displaySafeJson(result))).toEqual(JSON.parse(JSON.stringify(result)));
        if (!details) continue;

        // The same call from an MCP client that can elicit: the message it gets.
        const before = elicited.length;
        const mcp = await client.callTool({ name, arguments: args });
        expect(mcp.isError, where).toBe(true);
        expect(elicited.length, where).toBe(before + 1);
        const { message, schema } = elicited.at(-1)!;
        expectHonest(message, `sandbox: ${details.sandbox}`, `mcp ${where}`);
        expect(hiddenIn(JSON.stringify(schema)), `mcp schema ${where}`).toEqual([]);
      }
    }
  });

  it("quotes a sub-agent's name and the shell's justification, never in toolgate's sandbox line", async () => {
    for (const { note, text } of HOSTILE.texts) {
      let drawn: string | undefined;
      let details: ConfirmationDetails | undefined;
      await gate.execute(
        {
          name: "shell",
          args: { command: "echo hi", sandbox: "off", justification: text },
        },
        {
          scope: { tools: new Set(gate.registry.names()), agent: `helper${text}`, depth: 1 },
          confirm: async (request) => {
            details = request.details;
            drawn = await callPrompt(request);
            return { approved: false };
          },
        },
      );
      expect(details?.agent, note).toBeDefined();
      expect(details?.justification, note).toBeDefined();
      const sandbox =
        "  sandbox: NONE: this command runs outside the sandbox — the command asks to run OUTSIDE the sandbox";
      expectHonest(drawn ?? "", sandbox, note, WIDTH);
      expect(drawn).toMatch(/\n {2}sub-agent +│ helper/);
      expect(drawn).toMatch(/\n {2}justification +│ /);
    }
  });
});
