/**
 * Faithful proxying: the npm reference servers (everything, filesystem, memory) listed and called directly
 * with the SDK client, through the gate's pool, and through `toolgate mcp --pool` (an SDK client connected
 * to the toolgate process) — tool listings (title, annotations, outputSchema, `_meta`, every other field)
 * and call results (content blocks, structuredContent, embedded resources, images, resource links)
 * compared field by field.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everythingPath, filesystemPath, memoryPath } from "../mcp-client/testdata/servers.js";
import { BIN, tempWorkspace, toolgate } from "../test-support/cli.js";
import { createToolgate, type Toolgate } from "../toolgate.js";
import { toCallToolResult, toMcpTool } from "./server.js";

type Listed = Awaited<ReturnType<Client["listTools"]>>["tools"][number];

/** The calls compared: deterministic results covering text, structuredContent, resources, images, links. */
const CALLS: { server: string; tool: string; args: Record<string, unknown> }[] = [
  { server: "everything", tool: "echo", args: { message: "hello" } },
  { server: "everything", tool: "get-structured-content", args: { location: "Chicago" } },
  { server: "everything", tool: "get-resource-reference", args: { resourceType: "Text", resourceId: 2 } },
  { server: "everything", tool: "get-resource-links", args: { count: 2 } },
  { server: "everything", tool: "get-tiny-image", args: {} },
  { server: "everything", tool: "get-annotated-message", args: { messageType: "error", includeImage: true } },
  { server: "filesystem", tool: "read_text_file", args: { path: "notes.txt" } },
  { server: "filesystem", tool: "list_directory", args: { path: "." } },
  {
    server: "memory",
    tool: "create_entities",
    args: { entities: [{ name: "a", entityType: "t", observations: ["x"] }] },
  },
  { server: "memory", tool: "read_graph", args: {} },
];

/** Dynamic resources carry their creation time; nothing else may differ. */
function timeless(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value).replace(/\d{1,2}:\d{2}:\d{2}\s?[AP]M/g, "<time>"));
}

let ws: string;
let xdg: string;
const direct = new Map<string, Client>();

/** Each server's configuration; `memoryFile` keeps each connection's graph apart. */
function serverConfigs(root: string, memoryFile: string) {
  return {
    everything: { command: process.execPath, args: [everythingPath, "stdio"] },
    filesystem: { command: process.execPath, args: [filesystemPath, root] },
    memory: { command: process.execPath, args: [memoryPath], env: { MEMORY_FILE_PATH: memoryFile } },
  };
}

async function connect(command: string, args: string[], env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "proxy-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command,
      args,
      env: { ...(process.env as Record<string, string>), ...env },
      stderr: "pipe",
    }),
  );
  return client;
}

/** A `filesystem` path made absolute (the server resolves relative paths against its own cwd). */
function argsFor(server: string, args: Record<string, unknown>): Record<string, unknown> {
  return server === "filesystem" && typeof args.path === "string"
    ? { ...args, path: join(ws, args.path) }
    : args;
}

beforeAll(async () => {
  ws = await tempWorkspace({
    "notes.txt": "proxied faithfully\n",
    ".toolgate/policy.toml": 'default = "allow"\n',
  });
  xdg = await mkdtemp(join(tmpdir(), "tg-proxy-xdg-"));
  const memDir = await mkdtemp(join(tmpdir(), "tg-proxy-mem-"));
  await writeFile(
    join(ws, ".mcp.json"),
    JSON.stringify({ mcpServers: serverConfigs(ws, join(memDir, "via-toolgate.jsonl")) }),
  );
  // The direct connections get their own memory files: the same calls then meet the same state.
  const configs = serverConfigs(ws, join(memDir, "direct.jsonl"));
  for (const [name, c] of Object.entries(configs))
    direct.set(name, await connect(c.command, c.args, "env" in c ? c.env : {}));
  await mkdir(join(xdg, "toolgate"), { recursive: true });
  // The servers' results count as trusted (the user's own config, given with --config, says so): this file
  // tests that results pass through unchanged; after an untrusted result the injection guard would ask before
  // the next open-world call (docs/injection.md, tested there), and this client cannot be asked.
  await writeFile(
    join(xdg, "labels.toml"),
    '[labels]\ntrusted_servers = ["everything", "filesystem", "memory"]\n',
  );
  const trusted = await toolgate(["trust", ws], { env: { XDG_CONFIG_HOME: xdg } });
  expect(trusted.code).toBe(0);
}, 120_000);

afterAll(async () => {
  for (const c of direct.values()) await c.close();
  await rm(ws, { recursive: true, force: true });
  await rm(xdg, { recursive: true, force: true });
});

/** Compares a proxied listing with the direct one: every field but the name (and `$schema`, dropped). */
function expectSameListing(proxied: readonly Listed[], server: string, upstream: readonly Listed[]) {
  const byName = new Map(proxied.map((t) => [t.name, t]));
  for (const tool of upstream) {
    const seen = byName.get(`mcp__${server}__${tool.name}`);
    expect(seen, `${server}/${tool.name} is listed`).toBeDefined();
    const { name: _a, inputSchema: proxiedInput, ...proxiedRest } = seen!;
    const { name: _b, inputSchema: upstreamInput, ...upstreamRest } = tool;
    expect(proxiedRest, `${server}/${tool.name}`).toEqual(upstreamRest);
    const { $schema: _dialect, ...upstreamSchema } = upstreamInput as Record<string, unknown>;
    expect(proxiedInput).toEqual(upstreamSchema);
  }
}

describe("through the gate's pool", () => {
  let gate: Toolgate;
  beforeAll(async () => {
    gate = await createToolgate({ roots: [ws], mcp: true, trustWorkspace: true, logger: { warn: () => {} } });
  });
  afterAll(async () => {
    await gate.close();
  });

  it("keeps each tool's listing: title, annotations (idempotentHint included), outputSchema", async () => {
    const { registry } = await gate.tools();
    const proxied = registry.list().map((t) => toMcpTool(t)) as Listed[];
    for (const [server, client] of direct)
      expectSameListing(proxied, server, (await client.listTools()).tools);
    // The read-only echo stays read-only and closed-world.
    const echo = proxied.find((t) => t.name === "mcp__everything__echo")!;
    expect(echo.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it.each(CALLS)("returns $server/$tool's result as the server sent it", async ({ server, tool, args }) => {
    const result = await gate.execute({ name: `mcp__${server}__${tool}`, args: argsFor(server, args) });
    expect(result.ok, result.llmContent).toBe(true);
    const upstream = await direct.get(server)!.callTool({ name: tool, arguments: argsFor(server, args) });
    expect(timeless(toCallToolResult(result))).toEqual(timeless(upstream));
  });
});

describe("through `toolgate mcp --pool` (an SDK client connected to the toolgate process)", () => {
  let client: Client;
  beforeAll(async () => {
    const config = join(xdg, "labels.toml");
    client = await connect(process.execPath, [BIN, "mcp", "--pool", "--workspace", ws, "--config", config], {
      XDG_CONFIG_HOME: xdg,
    });
  }, 120_000);
  afterAll(async () => {
    await client?.close();
  });

  it("lists every upstream tool as its server does", async () => {
    const { tools } = await client.listTools();
    for (const [server, c] of direct) expectSameListing(tools, server, (await c.listTools()).tools);
    // toolgate's own tools are still there, with annotations from their kinds.
    expect(tools.find((t) => t.name === "read_file")?.annotations).toMatchObject({ readOnlyHint: true });
  });

  it.each(CALLS)("passes $server/$tool's result on unchanged", async ({ server, tool, args }) => {
    const proxied = await client.callTool({
      name: `mcp__${server}__${tool}`,
      arguments: argsFor(server, args),
    });
    const upstream = await direct.get(server)!.callTool({ name: tool, arguments: argsFor(server, args) });
    expect(timeless(proxied)).toEqual(timeless(upstream));
    if (tool === "get-structured-content") expect(proxied.structuredContent).toBeDefined();
    if (tool === "get-resource-reference")
      expect((proxied.content as { type: string }[]).some((b) => b.type === "resource")).toBe(true);
  });
});
