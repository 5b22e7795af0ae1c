// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are .mcp.json values with ${VAR} references
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../core/index.js";
import {
  DEFAULT_MCP_TIMEOUT_MS,
  loadMcpConfig,
  mcpConfigHash,
  mcpConfigStamp,
  normalizeServerConfig,
  parseMcpConfig,
} from "./config.js";
import { MCP_HOST_FILES } from "./hosts.js";

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
      "bad type",
      { type: "ws", url: "ws://h" },
      `${FILE}: server "bad": "type" must be "stdio", "http" (or "streamable-http") or "sse", not "ws"`,
    ],
    ["bad url", { url: "not a url" }, `${FILE}: server "bad": "url" is not a valid URL: "not a url"`],
    [
      "file url",
      { url: "file:///etc/passwd" },
      `${FILE}: server "bad": "url" must be http or https, not file:`,
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
    ["a url", { url: "http://h", command: "x", timeout: 0 }, "http"],
    ["an http type", { type: "streamable-http", url: 3 }, "http"],
    ["a command", { command: "x", args: "no" }, "stdio"],
    ["a stdio type with a url", { type: "stdio", url: "http://h" }, "stdio"],
    ["neither", { args: [] }, undefined],
    ["an sse type", { type: "sse", url: 3 }, "sse"],
    ["an unknown type", { type: "ws", url: "http://h" }, undefined],
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
      "both server maps",
      '{"servers": {}, "mcpServers": {}}',
      /^\/p\/\.mcp\.json: both "mcpServers" and "servers": keep one$/,
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
    const empty = await loadMcpConfig(dir);
    expect(empty).toMatchObject({ servers: {}, problems: [], notes: [], hash: "" });
    expect(empty.file).toBeUndefined();
    expect(empty.sources.map((s) => [s.file, s.found])).toEqual([
      [join(dir, ".mcp.json"), false],
      [join(dir, ".vscode", "mcp.json"), false],
      [join(dir, ".cursor", "mcp.json"), false],
      [join(dir, ".gemini", "settings.json"), false],
    ]);
    expect(await mcpConfigStamp(dir)).toBe("");
    await writeFile(join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { a: { command: "x" } } }));
    const loaded = await loadMcpConfig(dir);
    expect(loaded.file).toBe(join(dir, ".mcp.json"));
    expect(Object.keys(loaded.servers)).toEqual(["a"]);
    expect(loaded.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await mcpConfigStamp(dir)).not.toBe("");
  });
});

describe("other hosts' keys and spellings", () => {
  it.each([
    ["a typo", { command: "x", comand: "y" }, `unknown key "comand" ignored for a stdio server`],
    [
      "an http key on stdio",
      { command: "x", headers: {} },
      `unknown key "headers" ignored for a stdio server`,
    ],
    [
      "a stdio key on http",
      { url: "http://h", command: "x" },
      `unknown key "command" ignored for a http server`,
    ],
    [
      "alwaysAllow",
      { command: "x", alwaysAllow: ["a"] },
      `"alwaysAllow" ignored: toolgate's policy decides which calls run`,
    ],
    [
      "autoApprove",
      { command: "x", autoApprove: ["a"] },
      `"autoApprove" ignored: toolgate's policy decides which calls run`,
    ],
    ["trust", { command: "x", trust: true }, `"trust" ignored: toolgate's policy decides which calls run`],
  ])("notes %s and keeps the server", (_note, entry, message) => {
    const { servers, problems, notes } = parse({ s: entry });
    expect(problems).toEqual([]);
    expect(Object.keys(servers)).toEqual(["s"]);
    expect(notes).toEqual([{ file: FILE, server: "s", message }]);
  });

  it.each([
    ["http", "http"],
    ["streamable-http", "http"],
    ["streamableHttp", "http"],
    ["sse", "sse"],
  ])("reads type %j as %s", (type, want) => {
    const { servers } = parse({ s: { type, url: "http://127.0.0.1:1/mcp" } });
    expect(servers.s?.type).toBe(want);
  });

  it("honours disabled, and refuses enabled and disabled that contradict", () => {
    const { servers, problems } = parse({
      off: { command: "x", disabled: true },
      on: { command: "x", disabled: false },
      both: { command: "x", disabled: true, enabled: true },
    });
    expect(servers.off?.enabled).toBe(false);
    expect(servers.on?.enabled).toBe(true);
    expect(problems.map((p) => p.message)).toEqual([
      `${FILE}: server "both": "enabled" and "disabled" contradict each other`,
    ]);
  });

  it.each([
    ["${env:TOKEN}", "s3cret"],
    ["${TOKEN}", "s3cret"],
    ["${NOPE:-d}", "d"],
    ["${workspaceFolder}/x", "/p/x"],
    ["${workspaceFolderBasename}", "p"],
    ["${userHome}", homedir()],
    ["$TOKEN", "$TOKEN"],
  ])("expands %s in every field of .mcp.json", (ref, want) => {
    const { servers } = parse({
      s: { command: ref, args: [ref], env: { A: ref }, cwd: `/abs/${ref}` },
      r: { url: `http://h/${ref}`, headers: { H: ref } },
    });
    expect(servers.s).toMatchObject({ command: want, args: [want], env: { A: want }, cwd: `/abs/${want}` });
    expect(servers.r).toMatchObject({ url: `http://h/${want}`.replace(/ /g, "%20"), headers: { H: want } });
  });

  it.each([
    ["${env:MISSING}", "environment variable MISSING is not set"],
    ["${input:api-key}", "${input:api-key} asks the user in VS Code; toolgate does not support inputs"],
    ["${command:pick}", "${command:pick} is not a reference toolgate can resolve"],
  ])("refuses %s rather than sending it literally", (ref, why) => {
    const { servers, problems } = parse({
      r: { url: "http://h", headers: { Authorization: `Bearer ${ref}` } },
    });
    expect(servers).toEqual({});
    expect(problems.map((p) => p.message)).toEqual([`${FILE}: server "r": headers.Authorization: ${why}`]);
  });

  it("expands bare $VAR only in gemini-cli's settings, and reads its url as SSE and httpUrl as HTTP", () => {
    const gemini = MCP_HOST_FILES.find((h) => h.host === "gemini-cli")!;
    const text = JSON.stringify({
      theme: "x",
      mcpServers: {
        a: { command: "$TOKEN" },
        b: { url: "http://h/sse" },
        c: { httpUrl: "http://h/$TOKEN", url: "http://ignored" },
      },
    });
    const { servers, notes } = parseMcpConfig(text, FILE, { env, baseDir: "/p", host: gemini });
    expect(servers.a).toMatchObject({ command: "s3cret" });
    expect(servers.b).toMatchObject({ type: "sse", url: "http://h/sse" });
    expect(servers.c).toMatchObject({ type: "http", url: "http://h/s3cret" });
    expect(notes).toEqual([{ file: FILE, server: "c", message: `"url" ignored: "httpUrl" is used` }]);
  });

  it("reads JSON with comments and trailing commas, and VS Code's servers key", () => {
    const { servers, notes } = parseMcpConfig(
      '// c\n{ "servers": { "s": { "command": "x", /* y */ }, }, "inputs": [] }',
      FILE,
      { env },
    );
    expect(Object.keys(servers)).toEqual(["s"]);
    expect(notes.map((n) => n.message)).toEqual([
      `"inputs" (VS Code prompts) are not supported; set environment variables instead`,
    ]);
  });
});

describe("loadMcpConfig over several hosts' files", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("reads the files in order; the first to name a server wins; edits to any file change the hash", async () => {
    dir = await mkdtemp(join(tmpdir(), "toolgate-mcphosts-"));
    await mkdir(join(dir, ".vscode"));
    await mkdir(join(dir, ".cursor"));
    await writeFile(join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { shared: { command: "first" } } }));
    await writeFile(
      join(dir, ".vscode", "mcp.json"),
      JSON.stringify({ servers: { shared: { command: "second", bogus: 1 }, vs: { command: "v" } } }),
    );
    await writeFile(
      join(dir, ".cursor", "mcp.json"),
      JSON.stringify({ mcpServers: { cu: { command: "c", env: { A: "${MISSING}" } } } }),
    );
    const loaded = await loadMcpConfig(dir, { env: {} });
    expect(loaded.file).toBe(join(dir, ".mcp.json"));
    expect(loaded.sources.map((s) => [s.host, s.found, s.servers, s.shadowed])).toEqual([
      ["Claude Code", true, ["shared"], []],
      ["VS Code", true, ["vs"], ["shared"]],
      ["Cursor", true, ["cu"], []],
      ["gemini-cli", false, [], []],
    ]);
    expect(loaded.servers.shared).toMatchObject({ command: "first" });
    expect(loaded.origins).toEqual({
      shared: join(dir, ".mcp.json"),
      vs: join(dir, ".vscode", "mcp.json"),
      cu: join(dir, ".cursor", "mcp.json"),
    });
    // The shadowed entry's note is not shown: that entry is not used.
    expect(loaded.notes).toEqual([]);
    expect(loaded.problems.map((p) => p.server)).toEqual(["cu"]);
    expect(await mcpConfigHash(dir)).toBe(loaded.hash);
    const stamp = await mcpConfigStamp(dir);
    await writeFile(join(dir, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: {} }));
    expect(await mcpConfigHash(dir)).not.toBe(loaded.hash);
    expect(await mcpConfigStamp(dir)).not.toBe(stamp);
  });

  it("loads envFile values, with env winning, and refuses a missing envFile", async () => {
    dir = await mkdtemp(join(tmpdir(), "toolgate-mcpenv-"));
    await writeFile(join(dir, "vars.env"), 'A=from-file\nB="quoted value"\n# comment\n');
    const { servers, problems } = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          s: { command: "x", envFile: "vars.env", env: { A: "from-env" } },
          gone: { command: "x", envFile: "${workspaceFolder}/nope.env" },
        },
      }),
      FILE,
      { env, baseDir: dir },
    );
    expect(servers.s).toMatchObject({ env: { A: "from-env", B: "quoted value" } });
    expect(problems.map((p) => p.message)).toEqual([
      `${FILE}: server "gone": envFile ${join(dir, "nope.env")}: cannot read: ENOENT`,
    ]);
  });
});
