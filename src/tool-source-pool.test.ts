import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COORDINATION_TOOLS } from "./agents/index.js";
import { GRAPH_TOOL_NAMES, graphRegistry, graphTool } from "./agents/testdata/graph-tools.js";
import type { ToolResult } from "./core/index.js";
import { everythingPath, filesystemPath, testServerPath } from "./mcp-client/testdata/servers.js";
import { type ToolGeneration, ToolSource, type ToolSourceOptions } from "./tool-source.js";

const node = process.execPath;

async function call(
  pool: ToolGeneration,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolResult> {
  const tool = pool.registry.get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool.build(args).run(new AbortController().signal);
}

/** The gate's tool source over `root`, every MCP file trusted and every tool admitted (no policy here). */
function poolOf(root: string, host: ToolSourceOptions["host"], warnings: string[] = []): ToolSource {
  return new ToolSource({
    host,
    root,
    mcp: true,
    trusted: () => true,
    admit: () => undefined,
    logger: { warn: (m) => warnings.push(m) },
  });
}

function mcpJson(servers: Record<string, unknown>): string {
  return JSON.stringify({ mcpServers: servers }, null, 2);
}

describe("ToolSource: a project's pool with real MCP servers (spec: Project-Level Tool Pool)", () => {
  let root: string;
  let files: string;
  const builtins = graphRegistry();
  const warnings: string[] = [];
  let pools: ToolSource;
  let first: ToolGeneration;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "toolgate-pool-"));
    files = join(root, "files");
    await mkdir(files);
    await writeFile(join(files, "hello.txt"), "hello from fs");
    await writeFile(
      join(root, ".mcp.json"),
      mcpJson({
        t: { command: node, args: [testServerPath, "--tools", "45", "--page-size", "12"] },
        everything: { command: node, args: [everythingPath, "stdio"] },
        fs: { command: node, args: [filesystemPath, files] },
        broken: { command: "/nonexistent/no-such-mcp-server" },
        bad: { command: node, args: "red" },
      }),
    );
    pools = poolOf(root, builtins, warnings);
    first = await pools.full();
    // server-everything announces list_changed right after it starts (it adds tools once initialized);
    // let that rebuild happen before the tests look at caching.
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const again = await pools.full();
      if (again === first && i > 3) break;
      first = again;
    }
  });
  afterAll(async () => {
    await pools.close();
    await rm(root, { recursive: true, force: true });
  });

  it("includes every built-in tool, the coordination tools, and each server's tools", () => {
    expect(GRAPH_TOOL_NAMES.length).toBeGreaterThanOrEqual(30);
    for (const name of [...GRAPH_TOOL_NAMES, ...COORDINATION_TOOLS]) expect(first.names).toContain(name);
    expect(first.names.filter((n) => n.startsWith("mcp__t__"))).toHaveLength(59);
    expect(first.names).toContain("mcp__everything__echo");
    expect(first.names).toContain("mcp__everything__get-sum");
    expect(first.names).toContain("mcp__fs__read_text_file");
    expect(first.names).toEqual([...first.names].sort());
    expect(first.registry.get("mcp__everything__echo")?.source).toBe("mcp:everything");
  });

  it("reports a server that fails to start and a refused entry, and still builds", () => {
    const byName = Object.fromEntries(first.servers.map((s) => [s.name, s]));
    expect(byName.broken).toMatchObject({ state: "failed", toolCount: 0 });
    expect(byName.bad).toMatchObject({
      state: "invalid",
      error: `${join(root, ".mcp.json")}: server "bad": "args" must be an array of strings`,
    });
    expect(byName.t).toMatchObject({ state: "ready", toolCount: 59 });
    expect(warnings).toContain(
      `${join(root, ".mcp.json")}: server "bad": "args" must be an array of strings`,
    );
  });

  it("calls tools of server-everything and server-filesystem through the pool", async () => {
    expect((await call(first, "mcp__everything__echo", { message: "hi" })).llmContent).toBe("Echo: hi");
    expect((await call(first, "mcp__everything__get-sum", { a: 2, b: 3 })).llmContent).toMatch(/5/);
    const image = await call(first, "mcp__everything__get-tiny-image");
    expect(image.attachments?.[0]).toMatchObject({ type: "image", mimeType: "image/png" });
    const structured = await call(first, "mcp__everything__get-structured-content", { location: "New York" });
    expect(structured.data).toMatchObject({ temperature: expect.any(Number) });
    expect(
      (await call(first, "mcp__fs__read_text_file", { path: join(files, "hello.txt") })).llmContent,
    ).toBe("hello from fs");
    const outside = await call(first, "mcp__fs__read_text_file", { path: "/etc/hostname" });
    expect(outside.error?.type).toBe("execution_failed");
    expect(outside.error?.message).toMatch(/^read_text_file reported an error: .*Access denied/);
  });

  it("caches the pool: the next accesses return the same build", async () => {
    expect(await pools.full()).toBe(first);
    expect(await pools.full()).toBe(first);
  });

  it("rebuilds when a server announces list_changed; the old snapshot stays as it was", async () => {
    const before = await pools.full();
    await call(before, "mcp__t__add_tool");
    let after = before;
    for (let i = 0; i < 3000 && after === before; i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = await pools.full();
    }
    expect(after.number).toBeGreaterThan(before.number);
    expect(after.names.some((n) => /^mcp__t__added_\d+$/.test(n))).toBe(true);
    expect(before.names.some((n) => /^mcp__t__added_\d+$/.test(n))).toBe(false);
  });

  it("does not rebuild when .mcp.json is touched without change, and rebuilds when it is edited", async () => {
    const before = await pools.full();
    const file = join(root, ".mcp.json");
    const later = new Date(Date.now() + 5_000);
    await utimes(file, later, later);
    expect(await pools.full()).toBe(before);
    const config = JSON.parse(await readFile(file, "utf8"));
    delete config.mcpServers.everything;
    await writeFile(file, JSON.stringify(config));
    const after = await pools.full();
    expect(after.number).toBe(before.number + 1);
    expect(after.names.some((n) => n.startsWith("mcp__everything__"))).toBe(false);
    expect(after.names).toContain("mcp__fs__read_text_file");
  });

  it("rebuilds when a server is added, updated or removed through the API", async () => {
    await pools.setServer("extra", { command: node, args: [testServerPath], includeTools: ["echo"] });
    const added = await pools.full();
    expect(added.names.filter((n) => n.startsWith("mcp__extra__"))).toEqual(["mcp__extra__echo"]);
    await pools.setServer("extra", { command: node, args: [testServerPath], includeTools: ["echo", "pid"] });
    const updated = await pools.full();
    expect(updated.number).toBe(added.number + 1);
    expect(updated.names.filter((n) => n.startsWith("mcp__extra__"))).toEqual([
      "mcp__extra__echo",
      "mcp__extra__pid",
    ]);
    await pools.setServer("t", null);
    const removed = await pools.full();
    expect(removed.names.some((n) => n.startsWith("mcp__t__"))).toBe(false);
    expect(removed.servers.some((s) => s.name === "t")).toBe(false);
  });

  it("refuses a bad server given through the API, naming it", async () => {
    await expect(pools.setServer("oops", { url: "ftp://x" })).rejects.toThrow(
      'MCP server set through the API: server "oops": "url" must be http or https, not ftp:',
    );
  });

  it("rebuilds when the host registers another built-in tool", async () => {
    const before = await pools.full();
    builtins.register(graphTool("late_tool"));
    const after = await pools.full();
    expect(after.number).toBe(before.number + 1);
    expect(after.names).toContain("late_tool");
  });

  it("rebuilds after invalidate()", async () => {
    const before = await pools.full();
    pools.invalidate();
    expect((await pools.full()).number).toBe(before.number + 1);
  });
});

describe("ToolSource: first listing", () => {
  let root: string;
  let pools: ToolSource;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "toolgate-pool-once-"));
    await writeFile(join(root, ".mcp.json"), mcpJson({ t: { command: node, args: [testServerPath] } }));
  });
  afterAll(async () => {
    await pools.close();
    await rm(root, { recursive: true, force: true });
  });

  it("builds once for concurrent first accesses", async () => {
    pools = poolOf(root, graphRegistry());
    const all = await Promise.all([1, 2, 3, 4, 5].map(() => pools.full()));
    for (const pool of all) expect(pool).toBe(all[0]);
    // The first generation is the host's tools alone, made with the source; the listing makes the second.
    expect(all[0]?.number).toBe(2);
    expect(all[0]?.names).toContain("mcp__t__echo");
  });

  it("works without .mcp.json, and reports a .mcp.json that is not JSON while keeping the built-ins", async () => {
    const empty = await mkdtemp(join(tmpdir(), "toolgate-pool-empty-"));
    const alone = poolOf(empty, graphRegistry());
    try {
      const pool = await alone.full();
      expect(pool.servers).toEqual([]);
      expect(pool.names).toContain("entities_get");
      await writeFile(join(empty, ".mcp.json"), "{ not json");
      const broken = await alone.full();
      expect(broken.servers).toMatchObject([{ name: "(.mcp.json)", state: "invalid" }]);
      expect(broken.servers[0]?.error).toMatch(/\.mcp\.json: not valid JSON: /);
      expect(broken.names).toContain("entities_get");
    } finally {
      await alone.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});
