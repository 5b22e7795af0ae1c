// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are .mcp.json values with ${VAR} references
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../core/index.js";
import {
  DEFAULT_MCP_TIMEOUT_MS,
  loadMcpConfig,
  mcpConfigStamp,
  normalizeServerConfig,
  parseMcpConfig,
} from "./config.js";

const FILE = "/p/.mcp.json";
const env = { TOKEN: "s3cret", HOME_DIR: "/home/u", EMPTY: "" };

function parse(servers: unknown) {
  return parseMcpConfig(JSON.stringify({ mcpServers: servers }), FILE, { env, baseDir: "/p" });
}

describe("parseMcpConfig", () => {
  it("reads stdio and http servers with defaults and ${VAR} expansion", () => {
    const { servers, problems } = parse({
      files: {
        command: "npx",
        args: ["-y", "fs", "${HOME_DIR}/x"],
        env: { API_KEY: "${TOKEN}" },
        cwd: "sub",
      },
      remote: {
        url: "https://example.com/mcp",
        headers: { Authorization: "Bearer ${TOKEN}" },
        timeout: 5000,
      },
      off: { command: "x", enabled: false, includeTools: ["a"], excludeTools: ["b"] },
    });
    expect(problems).toEqual([]);
    expect(servers.files).toEqual({
      type: "stdio",
      command: "npx",
      args: ["-y", "fs", "/home/u/x"],
      env: { API_KEY: "s3cret" },
      cwd: "/p/sub",
      timeoutMs: DEFAULT_MCP_TIMEOUT_MS,
      enabled: true,
    });
    expect(servers.remote).toEqual({
      type: "http",
      url: "https://example.com/mcp",
      headers: { Authorization: "Bearer s3cret" },
      timeoutMs: 5000,
      enabled: true,
    });
    expect(servers.off).toMatchObject({ enabled: false, includeTools: ["a"], excludeTools: ["b"] });
  });

  it("expands ${VAR:-default} and keeps an empty variable empty", () => {
    const { servers } = parse({
      s: { command: "x", args: ["${NOPE:-fallback}", "${EMPTY}", "${EMPTY:-d}"] },
    });
    expect(servers.s).toMatchObject({ args: ["fallback", "", "d"] });
  });

  it.each([
    [
      "unknown key",
      { command: "x", comand: "y" },
      `${FILE}: server "bad": unknown key "comand" for a stdio server`,
    ],
    ["missing command", { args: [] }, `${FILE}: server "bad": "command" must be a non-empty string`],
    [
      "args not strings",
      { command: "x", args: [1] },
      `${FILE}: server "bad": "args" must be an array of strings`,
    ],
    [
      "env not strings",
      { command: "x", env: { A: 1 } },
      `${FILE}: server "bad": "env" must be an object of strings`,
    ],
    [
      "unset variable",
      { command: "x", env: { A: "${MISSING}" } },
      `${FILE}: server "bad": env.A: environment variable MISSING is not set`,
    ],
    [
      "bad timeout",
      { command: "x", timeout: -1 },
      `${FILE}: server "bad": "timeout" must be a positive whole number of milliseconds`,
    ],
    [
      "bad enabled",
      { command: "x", enabled: "yes" },
      `${FILE}: server "bad": "enabled" must be true or false`,
    ],
    [
      "sse",
      { type: "sse", url: "http://h/sse" },
      `${FILE}: server "bad": type "sse" is not supported; use a streamable HTTP url`,
    ],
    [
      "bad type",
      { type: "ws", url: "ws://h" },
      `${FILE}: server "bad": "type" must be "stdio" or "http", not "ws"`,
    ],
    ["bad url", { url: "not a url" }, `${FILE}: server "bad": "url" is not a valid URL: "not a url"`],
    [
      "file url",
      { url: "file:///etc/passwd" },
      `${FILE}: server "bad": "url" must be http or https, not file:`,
    ],
    [
      "http key on stdio",
      { command: "x", headers: {} },
      `${FILE}: server "bad": unknown key "headers" for a stdio server`,
    ],
    [
      "stdio key on http",
      { url: "http://h", command: "x" },
      `${FILE}: server "bad": unknown key "command" for a streamable HTTP server`,
    ],
    ["not an object", "npx server", `${FILE}: server "bad": must be an object`],
  ])("refuses a server with %s, naming file and server, and keeps the others", (_note, entry, message) => {
    const { servers, problems } = parse({ bad: entry, good: { command: "ok" } });
    expect(problems.map(({ server, message }) => ({ server, message }))).toEqual([
      { server: "bad", message },
    ]);
    expect(Object.keys(servers)).toEqual(["good"]);
  });

  it.each([
    ["a url", { url: "http://h", command: "x" }, "http"],
    ["an http type", { type: "streamable-http", url: 3 }, "http"],
    ["a command", { command: "x", bogus: 1 }, "stdio"],
    ["a stdio type with a url", { type: "stdio", url: "http://h" }, "stdio"],
    ["neither", { args: [] }, undefined],
    ["an unknown type", { type: "sse", url: "http://h" }, undefined],
    ["not an object", "npx server", undefined],
  ])(
    "a refused entry with %s keeps the transport it names, for mcp list (issue #11)",
    (_note, entry, type) => {
      const { problems } = parse({ bad: entry });
      expect(problems).toHaveLength(1);
      expect(problems[0]!.type).toBe(type);
    },
  );

  it.each([
    ["not JSON", "{", /^\/p\/\.mcp\.json: not valid JSON: /],
    ["an array", "[]", /^\/p\/\.mcp\.json: the top level must be a JSON object$/],
    [
      "an unknown top-level key",
      '{"servers": {}}',
      /^\/p\/\.mcp\.json: unknown key "servers" \(expected "mcpServers"\)$/,
    ],
    ["mcpServers not an object", '{"mcpServers": []}', /^\/p\/\.mcp\.json: "mcpServers" must be an object$/],
  ])("refuses a file that is %s", (_note, text, message) => {
    expect(() => parseMcpConfig(text, FILE)).toThrow(ConfigError);
    expect(() => parseMcpConfig(text, FILE)).toThrow(message);
  });

  it("validates a server added through the API the same way", () => {
    expect(() => normalizeServerConfig("api", { command: "" }, "added server", { env })).toThrow(
      'added server: server "api": "command" must be a non-empty string',
    );
  });
});

describe("loadMcpConfig", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("treats a missing file as no servers, and hashes the file it reads", async () => {
    dir = await mkdtemp(join(tmpdir(), "toolgate-mcpcfg-"));
    expect(await loadMcpConfig(dir)).toEqual({ servers: {}, problems: [], hash: "" });
    expect(await mcpConfigStamp(dir)).toBe("");
    await writeFile(join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { a: { command: "x" } } }));
    const loaded = await loadMcpConfig(dir);
    expect(loaded.file).toBe(join(dir, ".mcp.json"));
    expect(Object.keys(loaded.servers)).toEqual(["a"]);
    expect(loaded.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await mcpConfigStamp(dir)).not.toBe("");
  });
});
