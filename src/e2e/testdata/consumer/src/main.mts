// A strict TypeScript consumer of the installed package: the root and every published subpath, type-checked
// with skipLibCheck off, then run. It prints one JSON line the test compares.
import { mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AnthropicTool,
  createToolgate,
  type OpenAIChatTool,
  PROVIDER_NAMES,
  type ProviderName,
  type ProviderTool,
} from "toolgate";
import { type McpTransport, serveMcp } from "toolgate/mcp";
import { plan } from "toolgate/planner";
import { compileToolPattern, createCommandKind, createUrlKind, evaluate, parsePolicy } from "toolgate/policy";
import { Workspace } from "toolgate/workspace";

const dir = await realpath(await mkdtemp(join(tmpdir(), "tg-consumer-")));
await writeFile(join(dir, "notes.txt"), "hello from the consumer\n");

const gate = await createToolgate({ roots: [dir] });
const anthropic: AnthropicTool[] = gate.schemas("anthropic");
const openai: OpenAIChatTool[] = gate.schemas("openai");
const providers: readonly ProviderName[] = PROVIDER_NAMES;
const first: ProviderTool<"gemini"> | undefined = gate.schemas("gemini")[0];
gate.bus.onConfirmation(async () => ({ approved: true }));
const read = await gate.execute({ name: "read_file", args: { path: "notes.txt" } });

const policy = await parsePolicy(
  'default = "deny"\n[[rules]]\ntool = "mcp__{github,jira}__*"\ndecision = "allow"\n',
  "consumer.toml",
);
// Plug-ins of different value types, passed as they come (no casts) in a strict project.
const withKinds = await parsePolicy(
  '[[rules]]\ntool = "shell"\ndecision = "allow"\nwhen.command = { prefix = "git status" }\n',
  "kinds.toml",
  { plugins: [createCommandKind(), createUrlKind()] },
);
const decide = (name: string) =>
  evaluate(policy, { tool: { name, kind: "other" }, args: {}, risk: "low" }).decision;

const workspace = await Workspace.create([dir]);
const resolved = await workspace.resolve("notes.txt", "read");

const planned = plan({
  query: "read the notes",
  reply: { toolCalls: [{ function: { name: "read_file", arguments: '{"path":"notes.txt"}' } }] },
  scope: ["read_file"],
});

// Type level only: a transport written against toolgate's structural type (the MCP run is in mcp-check.mjs).
const transport: McpTransport = {
  start: async () => {},
  send: async () => {},
  close: async () => {},
};
const serve: typeof serveMcp = serveMcp;

console.log(
  JSON.stringify({
    providers,
    anthropicHasReadFile: anthropic.some((t) => t.name === "read_file" && t.input_schema.type === "object"),
    openaiHasReadFile: openai.some((t) => t.function.name === "read_file"),
    geminiDeclarations: (first?.functionDeclarations.length ?? 0) > 0,
    read: { ok: read.ok, text: String(read.llmContent).includes("hello from the consumer") },
    pattern: compileToolPattern("mcp__{github,jira}__*").test("mcp__jira__get_issue"),
    policy: [decide("mcp__github__create_issue"), decide("shell")],
    resolved: resolved.absolute === join(dir, "notes.txt"),
    planned: planned.calls.map((c) => c.name),
    serveMcp: typeof serve === "function" && typeof transport.start === "function",
    kinds: withKinds.plugins.map((p) => p.kind),
  }),
);
