// biome-ignore-all lint/suspicious/noTemplateCurlyInString: test names quote the ${VAR} references the host files use
/**
 * One fixture folder per host format (testdata/hosts/*): each is read as that host writes it, and every
 * server it enables comes up — real stdio children, a real streamable-HTTP server and a real SSE server on
 * 127.0.0.1 — with variables, `envFile`, `cwd` and headers resolved as the host would.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpClientPool } from "./client-pool.js";
import { loadMcpConfig, type McpConfigFile } from "./config.js";
import { type RunningHttpServer, startHttpTestServer, startSseTestServer } from "./testdata/http-server.js";

const testdata = join(dirname(fileURLToPath(import.meta.url)), "testdata");
const TOKEN = "fixture-token";
let http: RunningHttpServer;
let sse: RunningHttpServer;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  http = await startHttpTestServer(TOKEN);
  sse = await startSseTestServer(TOKEN);
  env = {
    PATH: process.env.PATH,
    MCP_FIXTURES: testdata,
    MCP_TOKEN: TOKEN,
    MCP_HTTP_URL: http.url,
    MCP_SSE_URL: sse.url,
  };
});
afterAll(async () => {
  await http?.close();
  await sse?.close();
});

async function text(pool: McpClientPool, server: string, tool: string, args: Record<string, unknown>) {
  const result = await pool.connection(server)!.callTool(tool, args, AbortSignal.timeout(60_000));
  return (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("");
}

/** Starts every server of the folder; returns the config and the pool (closed by the caller). */
async function bringUp(folder: string): Promise<{ config: McpConfigFile; pool: McpClientPool }> {
  const config = await loadMcpConfig(join(testdata, "hosts", folder), { env });
  const pool = new McpClientPool({ logger: { warn: () => {} }, startTimeoutMs: 60_000 });
  pool.configure(config.servers, config.problems);
  return { config, pool };
}

describe("host-format fixtures", () => {
  it("Claude Code: .mcp.json with ${VAR}, ${VAR:-default}, http and sse servers", async () => {
    const { config, pool } = await bringUp("claude-code");
    try {
      expect(config.problems).toEqual([]);
      expect(config.notes).toEqual([]);
      expect(config.sources.filter((s) => s.found).map((s) => [s.host, s.servers])).toEqual([
        ["Claude Code", ["legacy", "local", "remote"]],
      ]);
      expect(config.servers.remote).toMatchObject({
        type: "http",
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      expect(config.servers.legacy).toMatchObject({ type: "sse", url: sse.url });
      const { servers } = await pool.discover();
      expect(servers.map((s) => [s.name, s.type, s.state])).toEqual([
        ["legacy", "sse", "ready"],
        ["local", "stdio", "ready"],
        ["remote", "http", "ready"],
      ]);
      expect(await text(pool, "local", "env", { name: "GREETING" })).toBe("hello from claude code");
      expect(await text(pool, "local", "env", { name: "API_KEY" })).toBe(TOKEN);
      expect(await text(pool, "remote", "echo", { text: "over http" })).toBe("over http");
      expect(await text(pool, "legacy", "echo", { text: "over sse" })).toBe("over sse");
      expect(sse.requests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
    } finally {
      await pool.close();
    }
  }, 120_000);

  it("VS Code: .vscode/mcp.json (JSONC, servers, ${workspaceFolder}, ${env:VAR}, envFile, inputs noted)", async () => {
    const { config, pool } = await bringUp("vscode");
    try {
      const file = join(testdata, "hosts", "vscode", ".vscode", "mcp.json");
      expect(config.problems).toEqual([]);
      expect(config.notes).toEqual([
        { file, message: `"inputs" (VS Code prompts) are not supported; set environment variables instead` },
        { file, server: "watched", message: `unknown key "dev" ignored for a stdio server` },
      ]);
      expect(config.sources.filter((s) => s.found).map((s) => [s.file, s.servers])).toEqual([
        [file, ["local", "remote", "watched"]],
      ]);
      const { servers } = await pool.discover();
      expect(servers.map((s) => [s.name, s.state])).toEqual([
        ["local", "ready"],
        ["remote", "ready"],
        ["watched", "ready"],
      ]);
      expect(await text(pool, "local", "env", { name: "GREETING" })).toBe("hello from vs code");
      expect(await text(pool, "local", "env", { name: "FROM_ENV_FILE" })).toBe("yes");
      expect(await text(pool, "local", "env", { name: "API_KEY" })).toBe(TOKEN);
      expect(await text(pool, "remote", "echo", { text: "vs" })).toBe("vs");
    } finally {
      await pool.close();
    }
  }, 120_000);

  it("Cursor: .cursor/mcp.json (url → streamable HTTP, disabled honoured, autoApprove ignored)", async () => {
    const { config, pool } = await bringUp("cursor");
    try {
      const file = join(testdata, "hosts", "cursor", ".cursor", "mcp.json");
      expect(config.problems).toEqual([]);
      expect(config.notes).toEqual([
        {
          file,
          server: "local",
          message: `"autoApprove" ignored: toolgate's policy decides which calls run`,
        },
      ]);
      expect(config.servers.parked?.enabled).toBe(false);
      const { servers } = await pool.discover();
      expect(servers.map((s) => [s.name, s.type, s.state])).toEqual([
        ["local", "stdio", "ready"],
        ["parked", "stdio", "disabled"],
        ["remote", "http", "ready"],
      ]);
      expect(await text(pool, "local", "env", { name: "GREETING" })).toBe("hello from cursor");
      expect(await text(pool, "remote", "echo", { text: "cu" })).toBe("cu");
    } finally {
      await pool.close();
    }
  }, 120_000);

  it("gemini-cli: .gemini/settings.json (httpUrl, url → SSE, $VAR, cwd, trust ignored)", async () => {
    const { config, pool } = await bringUp("gemini-cli");
    try {
      const file = join(testdata, "hosts", "gemini-cli", ".gemini", "settings.json");
      expect(config.problems).toEqual([]);
      expect(config.notes).toEqual([
        { file, server: "local", message: `"trust" ignored: toolgate's policy decides which calls run` },
      ]);
      expect(config.servers.local).toMatchObject({ cwd: testdata, timeoutMs: 30_000 });
      expect(config.servers.remote).toMatchObject({ type: "http", url: http.url });
      expect(config.servers.legacy).toMatchObject({ type: "sse", url: sse.url });
      const { servers } = await pool.discover();
      expect(servers.map((s) => [s.name, s.type, s.state, s.toolCount])).toEqual([
        ["legacy", "sse", "ready", expect.any(Number)],
        ["local", "stdio", "ready", 3],
        ["remote", "http", "ready", expect.any(Number)],
      ]);
      expect(await text(pool, "local", "env", { name: "API_KEY" })).toBe(TOKEN);
      expect(await text(pool, "remote", "echo", { text: "ge" })).toBe("ge");
      expect(await text(pool, "legacy", "echo", { text: "ge-sse" })).toBe("ge-sse");
    } finally {
      await pool.close();
    }
  }, 120_000);

  it("refuses a server whose variable is unset instead of sending the placeholder", async () => {
    const { MCP_TOKEN: _gone, ...rest } = env;
    const config = await loadMcpConfig(join(testdata, "hosts", "cursor"), { env: rest });
    expect(config.problems.map((p) => p.message)).toEqual([
      `${join(testdata, "hosts", "cursor", ".cursor", "mcp.json")}: server "local": env.API_KEY: environment variable MCP_TOKEN is not set`,
      `${join(testdata, "hosts", "cursor", ".cursor", "mcp.json")}: server "remote": headers.Authorization: environment variable MCP_TOKEN is not set`,
    ]);
    expect(Object.keys(config.servers)).toEqual(["parked"]);
  });
});
