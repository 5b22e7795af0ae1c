import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Tool, ToolResult } from "../core/index.js";
import { McpClientPool, type McpDiscovery } from "./client-pool.js";
import { type RunningHttpServer, startHttpTestServer } from "./testdata/http-server.js";
import { testServer } from "./testdata/servers.js";

async function run(tool: Tool | undefined, args: Record<string, unknown> = {}): Promise<ToolResult> {
  if (!tool) throw new Error("tool missing");
  return tool.build(args).run(new AbortController().signal);
}

function find(d: McpDiscovery, name: string): Tool | undefined {
  return d.tools.find((t) => t.name === name);
}

describe("McpClientPool with our SDK test server over stdio", () => {
  const warnings: string[] = [];
  const changed: string[] = [];
  let pool: McpClientPool;
  let discovery: McpDiscovery;

  beforeAll(async () => {
    pool = new McpClientPool({
      logger: { warn: (m) => warnings.push(m) },
      onToolsChanged: (s) => changed.push(s),
    });
    pool.configure({
      // 14 fixed tools + 45 generated, 12 per page: 5 pages.
      t: testServer(["--tools", "45", "--page-size", "12"]),
      slow: testServer([], { timeoutMs: 5000, includeTools: ["hang", "block", "pid", "echo"] }),
      broken: testServer([], { command: "/nonexistent/toolgate-no-such-binary" }),
      off: testServer([], { enabled: false }),
    });
    discovery = await pool.discover();
  });
  afterAll(async () => {
    await pool.close();
  });

  it("follows every page of tools/list", () => {
    const generated = discovery.tools.filter((t) => /^mcp__t__tool_\d+$/.test(t.name));
    expect(generated).toHaveLength(45);
    expect(find(discovery, "mcp__t__tool_44")).toBeDefined();
    expect(discovery.servers.find((s) => s.name === "t")).toMatchObject({ state: "ready", toolCount: 59 });
  });

  it("applies includeTools, and lists nothing from a disabled server", () => {
    const slow = discovery.tools.filter((t) => t.source === "mcp:slow").map((t) => t.name);
    expect(slow).toEqual(["mcp__slow__block", "mcp__slow__echo", "mcp__slow__hang", "mcp__slow__pid"]);
    expect(discovery.tools.some((t) => t.source === "mcp:off")).toBe(false);
    expect(discovery.servers.find((s) => s.name === "off")).toMatchObject({
      state: "disabled",
      toolCount: 0,
    });
  });

  it("reports a server that cannot start, and still builds the rest", () => {
    const broken = discovery.servers.find((s) => s.name === "broken");
    expect(broken?.state).toBe("failed");
    expect(broken?.error).toMatch(/^could not start: .*ENOENT/);
    expect(discovery.tools.some((t) => t.source === "mcp:broken")).toBe(false);
    // Named once: the connection's message already says which server.
    expect(warnings.some((w) => w.startsWith("MCP server broken could not start"))).toBe(true);
    expect(warnings.some((w) => w.includes("MCP server broken: MCP server broken"))).toBe(false);
  });

  it("backs off between start attempts of a server that keeps failing", async () => {
    const signal = new AbortController().signal;
    const second = await pool.call({ server: "broken", tool: "x" }, {}, signal);
    expect(second.error?.message).toMatch(/^MCP server broken could not start: /);
    const third = await pool.call({ server: "broken", tool: "x" }, {}, signal);
    expect(third.error?.message).toMatch(
      /^MCP server broken is unavailable \(could not start: .*\); next start attempt in 1 s$/,
    );
    expect(pool.status().find((s) => s.name === "broken")?.restarts).toBe(1);
  });

  it("sorts tools by name and exposes schemas the registry accepts", () => {
    const names = discovery.tools.map((t) => t.name);
    expect(names).toEqual([...names].sort());
    const echo = find(discovery, "mcp__t__echo")!;
    expect(echo.parameters).toEqual({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    });
    expect(echo).toMatchObject({
      kind: "other",
      source: "mcp:t",
      displayName: "echo (t)",
      description: "Echoes text",
    });
  });

  it.each([
    ["mcp__t__echo", "low"],
    ["mcp__t__danger", "high"],
    ["mcp__t__image", "high"],
  ])("reads the risk of %s from annotations as hints: %s", (name, risk) => {
    expect(find(discovery, name)?.risk).toBe(risk);
  });

  it("maps text, images, resources and structured content", async () => {
    // The server's own result rides along unchanged, for a proxy.
    expect(await run(find(discovery, "mcp__t__echo"), { text: "hello" })).toEqual({
      llmContent: "hello",
      returnDisplay: "hello",
      upstream: { content: [{ type: "text", text: "hello" }] },
    });
    const image = await run(find(discovery, "mcp__t__image"));
    expect(image.llmContent).toBe("a pixel\n[image: image/png, 8 bytes]");
    expect(image.attachments).toEqual([{ type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" }]);
    const resource = await run(find(discovery, "mcp__t__resource"));
    expect(resource.llmContent).toBe("[resource mem://note]\nnote body\n[resource link mem://other (other)]");
    expect(resource.attachments).toEqual([
      { type: "resource", mimeType: "application/octet-stream", uri: "mem://other" },
    ]);
    const structured = await run(find(discovery, "mcp__t__structured"));
    expect(structured).toMatchObject({ llmContent: '{"n":42}', data: { n: 42 } });
  });

  it("turns isError into a tool error", async () => {
    expect((await run(find(discovery, "mcp__t__fail"))).error).toEqual({
      type: "execution_failed",
      message: "fail reported an error: it broke",
    });
  });

  it("truncates a 20 MB result instead of failing", async () => {
    const result = await run(find(discovery, "mcp__t__big"), { mb: 20 });
    expect(result.error).toBeUndefined();
    expect(result.llmContent.length).toBeLessThan(300_000);
    expect(result.llmContent).toMatch(
      /\[\.\.\. output truncated: 20771520 of 20971520 characters omitted \.\.\.\]$/,
    );
  });

  it("captures stderr in the connection's log", async () => {
    await run(find(discovery, "mcp__t__stderr"));
    // The server's stderr arrives on its own pipe: wait for it rather than for a fixed time.
    for (let i = 0; i < 3000 && !pool.connection("t")?.stderr().includes("secret diagnostics"); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(pool.connection("t")?.stderr()).toContain("secret diagnostics");
  });

  it("gives a crash mid-call a tool error, and restarts the server on next use", async () => {
    const before = (await run(find(discovery, "mcp__t__pid"))).llmContent;
    const crash = await run(find(discovery, "mcp__t__crash"));
    expect(crash.error?.type).toBe("execution_failed");
    // Its exit code and last stderr lines, not only "Connection closed".
    expect(crash.error?.message).toMatch(
      /^MCP server t stopped during the call to crash \(it exited with code 3; its last stderr: "test server starting".*\); it will be restarted on next use$/,
    );
    expect(pool.status().find((s) => s.name === "t")).toMatchObject({ state: "crashed" });
    const after = await run(find(discovery, "mcp__t__pid"));
    expect(after.error).toBeUndefined();
    expect(after.llmContent).not.toBe(before);
    expect(pool.status().find((s) => s.name === "t")).toMatchObject({ state: "ready", restarts: 1 });
  });

  it("times out a call that hangs, and keeps a server that still answers pings", async () => {
    const pid = (await run(find(discovery, "mcp__slow__pid"))).llmContent;
    const hang = await run(find(discovery, "mcp__slow__hang"));
    expect(hang.error).toEqual({
      type: "timeout",
      message: "MCP server slow did not answer the call to hang within 5000 ms",
      details: { elapsedMs: 5000 },
    });
    expect((await run(find(discovery, "mcp__slow__pid"))).llmContent).toBe(pid);
  });

  it("times out a server that blocks, and restarts it because it stopped answering", async () => {
    const pid = (await run(find(discovery, "mcp__slow__pid"))).llmContent;
    const block = await run(find(discovery, "mcp__slow__block"));
    expect(block.error?.type).toBe("timeout");
    const echo = await run(find(discovery, "mcp__slow__echo"), { text: "back" });
    expect(echo).toMatchObject({ llmContent: "back", returnDisplay: "back" });
    expect((await run(find(discovery, "mcp__slow__pid"))).llmContent).not.toBe(pid);
  });

  it("cancels a call when the caller aborts", async () => {
    const controller = new AbortController();
    const pending = find(discovery, "mcp__slow__hang")!.build({}).run(controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect((await pending).error?.type).toBe("cancelled");
  });

  it("hears list_changed, and a new discovery lists the added tool", async () => {
    await run(find(discovery, "mcp__t__add_tool"));
    for (let i = 0; i < 3000 && !changed.includes("t"); i++) await new Promise((r) => setTimeout(r, 20));
    expect(changed).toContain("t");
    const again = await pool.discover();
    expect(again.tools.some((t) => /^mcp__t__added_\d+$/.test(t.name))).toBe(true);
  });
});

describe("McpClientPool: a message over the size cap", () => {
  it("fails the call, not the pool, and the server restarts on next use", async () => {
    const pool = new McpClientPool({ maxMessageBytes: 1024 * 1024 });
    try {
      pool.configure({ capped: testServer() });
      const d = await pool.discover();
      const result = await run(find(d, "mcp__capped__big"), { mb: 2 });
      expect(result.error?.type).toBe("execution_failed");
      expect(result.error?.message).toMatch(
        /^MCP server capped stopped during the call to big( \(it (exited with code|was stopped by) [^)]*\))?; it will be restarted on next use$/,
      );
      expect(await run(find(d, "mcp__capped__echo"), { text: "still here" })).toMatchObject({
        llmContent: "still here",
        returnDisplay: "still here",
      });
    } finally {
      await pool.close();
    }
  });
});

describe("McpClientPool: environment and streamable HTTP", () => {
  let http: RunningHttpServer;
  let pool: McpClientPool;
  beforeAll(async () => {
    http = await startHttpTestServer("tok-123", { count: 30, pageSize: 7 });
    process.env.TOOLGATE_TEST_HOST_SECRET = "leak";
    pool = new McpClientPool();
    pool.configure({
      web: {
        type: "http",
        url: http.url,
        headers: { Authorization: "Bearer tok-123" },
        timeoutMs: 10_000,
        enabled: true,
      },
      nope: { type: "http", url: http.url, headers: {}, timeoutMs: 10_000, enabled: true },
      envy: testServer([], { env: { GIVEN: "yes" } }),
    });
  });
  afterAll(async () => {
    delete process.env.TOOLGATE_TEST_HOST_SECRET;
    await pool.close();
    await http.close();
  });

  it("lists and calls tools over streamable HTTP with the configured headers, across pages", async () => {
    const d = await pool.discover();
    expect(d.tools.filter((t) => t.source === "mcp:web")).toHaveLength(44);
    expect(await run(find(d, "mcp__web__echo"), { text: "over http" })).toMatchObject({
      llmContent: "over http",
      returnDisplay: "over http",
    });
    expect(http.requests.some((r) => r.authorization === "Bearer tok-123")).toBe(true);
    expect(d.servers.find((s) => s.name === "nope")).toMatchObject({ state: "failed" });
  });

  it("passes the configured env to a stdio server but not the host's other variables", async () => {
    const d = await pool.discover();
    expect((await run(find(d, "mcp__envy__env"), { name: "GIVEN" })).llmContent).toBe("yes");
    expect((await run(find(d, "mcp__envy__env"), { name: "TOOLGATE_TEST_HOST_SECRET" })).llmContent).toBe(
      "<unset>",
    );
  });
});

describe("McpClientPool: server stderr", () => {
  it("goes to the connection's log, never to the host process's stderr", async () => {
    const child = join(import.meta.dirname, "testdata", "pool-child.mjs");
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [child]);
    expect(stderr).toBe("");
    expect(JSON.parse(stdout)).toEqual({
      result: "wrote",
      log: ["test server starting", "secret diagnostics"],
    });
  });
});
