import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, ToolRegistry } from "../../core/index.js";
import { testServerPath } from "../../mcp-client/testdata/servers.js";
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
    const from = { file: join(root, ".mcp.json"), shadowed: [], notes: [] };
    expect(rows).toEqual([
      {
        name: "gone",
        type: "stdio",
        state: "failed",
        tools: 0,
        error: expect.stringMatching(/^could not start: .*ENOENT/),
        ...from,
      },
      { name: "off", type: "stdio", state: "disabled", tools: 0, error: null, ...from },
      { name: "t", type: "stdio", state: "ready", tools: 20, error: null, ...from },
    ]);
  });

  it("prints one line per server as text", async () => {
    const run = io(root, false);
    await runMcpListCommand(run.io);
    const lines = run.out.join("").trimEnd().split("\n");
    expect(lines[2]).toBe("t     stdio  ready     20 tools");
    expect(lines[0]).toMatch(/^gone {2}stdio {2}failed {4}- {2}could not start: /);
    expect(lines.slice(3)).toEqual([
      "",
      "files, in reading order (the first to name a server wins):",
      `   1. ${join(root, ".mcp.json")} (Claude Code): gone, off, t`,
      `   -  ${join(root, ".vscode", "mcp.json")} (VS Code): not present`,
      `   -  ${join(root, ".cursor", "mcp.json")} (Cursor): not present`,
      `   -  ${join(root, ".gemini", "settings.json")} (gemini-cli): not present`,
    ]);
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
          file: join(bad, ".mcp.json"),
          shadowed: [],
          notes: [],
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

  it("shows which file each server came from, what it shadows, and the notes, across hosts' files", async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolgate-mcplist-hosts-"));
    try {
      await mkdir(join(dir, ".cursor"));
      await writeFile(join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { t: { command: "nope-1" } } }));
      await writeFile(
        join(dir, ".cursor", "mcp.json"),
        JSON.stringify({
          mcpServers: {
            t: { command: "nope-2" },
            c: { command: process.execPath, args: [testServerPath], alwaysAllow: ["echo"] },
          },
        }),
      );
      const json = io(dir, true);
      expect(await runMcpListCommand(json.io)).toBe(0);
      const rows = JSON.parse(json.out.join("")) as Record<string, unknown>[];
      expect(rows.map((r) => [r.name, r.state, r.file, r.shadowed, r.notes])).toEqual([
        [
          "c",
          "ready",
          join(dir, ".cursor", "mcp.json"),
          [],
          [`"alwaysAllow" ignored: toolgate's policy decides which calls run`],
        ],
        ["t", "failed", join(dir, ".mcp.json"), [join(dir, ".cursor", "mcp.json")], []],
      ]);
      const text = io(dir, false);
      await runMcpListCommand(text.io);
      const out = text.out.join("");
      expect(out).toContain(`   1. ${join(dir, ".mcp.json")} (Claude Code): t\n`);
      expect(out).toContain(
        `   2. ${join(dir, ".cursor", "mcp.json")} (Cursor): c; shadowed by an earlier file: t\n`,
      );
      expect(out).toContain(
        `note: ${join(dir, ".cursor", "mcp.json")}: server "c": "alwaysAllow" ignored: toolgate's policy decides which calls run\n`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
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
      // A server in another host's file of the workspace is held back the same way.
      const canary2 = join(dir, "CANARY2");
      await mkdir(join(dir, ".vscode"));
      await writeFile(
        join(dir, ".vscode", "mcp.json"),
        JSON.stringify({
          servers: {
            evil2: {
              command: process.execPath,
              args: ["-e", `require("fs").writeFileSync(${JSON.stringify(canary2)}, "ran")`],
            },
          },
        }),
      );
      const run = io(dir, true, false);
      expect(await runMcpListCommand(run.io)).toBe(0);
      expect(JSON.parse(run.out.join(""))).toEqual([
        {
          name: "evil",
          type: "stdio",
          state: "untrusted",
          tools: 0,
          error: null,
          file: join(dir, ".mcp.json"),
          shadowed: [],
          notes: [],
        },
        {
          name: "evil2",
          type: "stdio",
          state: "untrusted",
          tools: 0,
          error: null,
          file: join(dir, ".vscode", "mcp.json"),
          shadowed: [],
          notes: [],
        },
      ]);
      expect(run.err.join("")).toContain(`${join(dir, ".mcp.json")} is not trusted: did not start evil (`);
      expect(run.err.join("")).toContain(
        `${join(dir, ".vscode", "mcp.json")} is not trusted: did not start evil2 (`,
      );
      expect(existsSync(canary)).toBe(false);
      expect(existsSync(canary2)).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
