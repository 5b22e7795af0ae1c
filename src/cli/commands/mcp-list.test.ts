import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, ToolRegistry } from "../../core/index.js";
import { testServerPath } from "../../mcp/testdata/servers.js";
import { runMcpListCommand } from "./mcp-list.js";

function io(root: string, json: boolean, trusted = true) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      root,
      json,
      registry: new ToolRegistry(),
      trusted,
      stdout: (s: string) => out.push(s),
      stderr: (s: string) => err.push(s),
    },
  };
}

describe("runMcpListCommand", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "toolgate-mcplist-"));
    await writeFile(
      join(root, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          t: { command: process.execPath, args: [testServerPath, "--tools", "6", "--page-size", "4"] },
          gone: { command: "/nonexistent/mcp-binary" },
          off: { command: "x", enabled: false },
        },
      }),
    );
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("prints servers, states, tool counts and errors as JSON", async () => {
    const run = io(root, true);
    expect(await runMcpListCommand(run.io)).toBe(0);
    const rows = JSON.parse(run.out.join(""));
    expect(rows).toEqual([
      {
        name: "gone",
        type: "stdio",
        state: "failed",
        tools: 0,
        error: expect.stringMatching(/^could not start: .*ENOENT/),
      },
      { name: "off", type: "stdio", state: "disabled", tools: 0, error: null },
      { name: "t", type: "stdio", state: "ready", tools: 20, error: null },
    ]);
  });

  it("prints one line per server as text", async () => {
    const run = io(root, false);
    await runMcpListCommand(run.io);
    const lines = run.out.join("").trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("t     stdio  ready     20 tools");
    expect(lines[0]).toMatch(/^gone {2}stdio {2}failed {4}- {2}could not start: /);
  });

  it("exits 2 for an invalid entry, and throws ConfigError for a file that is not JSON", async () => {
    const bad = await mkdtemp(join(tmpdir(), "toolgate-mcplist-bad-"));
    try {
      await writeFile(join(bad, ".mcp.json"), JSON.stringify({ mcpServers: { x: { command: 1 } } }));
      const run = io(bad, true);
      expect(await runMcpListCommand(run.io)).toBe(2);
      expect(JSON.parse(run.out.join(""))).toEqual([
        {
          name: "x",
          type: "stdio",
          state: "invalid",
          tools: 0,
          error: `${join(bad, ".mcp.json")}: server "x": "command" must be a non-empty string`,
        },
      ]);
      await writeFile(join(bad, ".mcp.json"), "{");
      await expect(runMcpListCommand(io(bad, true).io)).rejects.toThrow(ConfigError);
    } finally {
      await rm(bad, { recursive: true, force: true });
    }
  });

  it("shows an invalid URL entry as http, and one naming no transport as unknown (issue #11)", async () => {
    const bad = await mkdtemp(join(tmpdir(), "toolgate-mcplist-url-"));
    try {
      const servers = {
        search: {
          url: "https://mcp.example.com/mcp",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: .mcp.json's ${VAR} expansion, not a template
          headers: { A: "${TG_TEST_UNSET_VAR_11}" },
        },
        typed: { type: "http", url: 7 },
        nothing: { args: [] },
      };
      await writeFile(join(bad, ".mcp.json"), JSON.stringify({ mcpServers: servers }));
      const json = io(bad, true);
      expect(await runMcpListCommand(json.io)).toBe(2);
      const rows = JSON.parse(json.out.join("")) as { name: string; type: string; state: string }[];
      expect(rows.map((r) => [r.name, r.type, r.state])).toEqual([
        ["nothing", "unknown", "invalid"],
        ["search", "http", "invalid"],
        ["typed", "http", "invalid"],
      ]);
      const text = io(bad, false);
      await runMcpListCommand(text.io);
      expect(text.out.join("")).toMatch(/^search {3}http {5}invalid {3}- {2}/m);
    } finally {
      await rm(bad, { recursive: true, force: true });
    }
  });

  it("throws ConfigError for a file that is not JSON", async () => {
    const bad = await mkdtemp(join(tmpdir(), "toolgate-mcplist-bad2-"));
    try {
      await writeFile(join(bad, ".mcp.json"), "{");
      await expect(runMcpListCommand(io(bad, true).io)).rejects.toThrow(ConfigError);
    } finally {
      await rm(bad, { recursive: true, force: true });
    }
  });

  it("in an untrusted workspace lists the servers as untrusted and starts none", async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolgate-mcplist-untrusted-"));
    try {
      const canary = join(dir, "CANARY");
      const script = `require("fs").writeFileSync(${JSON.stringify(canary)}, "ran")`;
      await writeFile(
        join(dir, ".mcp.json"),
        JSON.stringify({ mcpServers: { evil: { command: process.execPath, args: ["-e", script] } } }),
      );
      const run = io(dir, true, false);
      expect(await runMcpListCommand(run.io)).toBe(0);
      expect(JSON.parse(run.out.join(""))).toEqual([
        { name: "evil", type: "stdio", state: "untrusted", tools: 0, error: null },
      ]);
      expect(run.err.join("")).toContain("is not trusted: no server was started");
      expect(existsSync(canary)).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
