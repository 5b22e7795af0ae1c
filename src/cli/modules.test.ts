import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, REPO_ROOT, tempWorkspace } from "../test-support/cli.js";

const run = promisify(execFile);
const RECORDER = fileURLToPath(new URL("./testdata/record-modules.mjs", import.meta.url));
const TSC_BIN = join(REPO_ROOT, "dist", "cli", "main.js");

/** Packages that load only when a call needs them (HTML pages, models, MCP, locks, shell analysis). */
const LAZY_PACKAGES = [
  "linkedom",
  "htmlparser2",
  "turndown",
  "@mozilla/readability",
  "web-tree-sitter",
  "tree-sitter-bash",
  "@modelcontextprotocol/sdk",
  "openai",
  "ollama",
  "proper-lockfile",
  "yaml",
  // loaded only once something registered a tracer provider (or other global) with it
  "@opentelemetry/api",
  // the config schema's validator, loaded only when there is a config to validate
  "zod",
  // ajv's compiler, loaded only for a tool without a precompiled validator (its run-time helpers may load)
  "ajv/dist/compile",
  // the directory walker, loaded on the first walk
  "fdir",
];
/** Our own modules behind those packages (tsc layout). */
const LAZY_OURS = [
  "/dist/llm/",
  "/dist/mcp/",
  "/dist/mcp-client/",
  "/dist/tools/web/html.js",
  "/dist/tools/atlassian/storage.js",
  // turndown and the WASM runtime, shipped inside the package (scripts/bundle.mjs)
  "/dist/tools/web/turndown.js",
  "/dist/policy/shell/tree-sitter.js",
  "/dist/config/schema.js",
];

let dir: string;
let logDir: string;
beforeAll(async () => {
  dir = await tempWorkspace({ "notes.txt": "one\ntwo\n" });
  logDir = await mkdtemp(join(tmpdir(), "tg-modules-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(logDir, { recursive: true, force: true });
});

/** Runs node with the recorder preloaded; returns the loaded modules' URLs and paths. */
async function loaded(name: string, args: string[]): Promise<{ modules: string[]; stdout: string }> {
  const log = join(logDir, `${name}.log`);
  const { stdout } = await run(process.execPath, ["--import", pathToFileURL(RECORDER).href, ...args], {
    cwd: dir,
    env: { ...process.env, TOOLGATE_MODULE_LOG: log, XDG_CONFIG_HOME: join(dir, ".config") },
  });
  const modules = (await readFile(log, "utf8")).split("\n").filter((l) => l !== "" && !l.includes("node:"));
  return { modules, stdout };
}

function lazyLoaded(modules: string[], packages = LAZY_PACKAGES, ours = LAZY_OURS): string[] {
  return modules.filter(
    (m) => packages.some((p) => m.includes(`/node_modules/${p}/`)) || ours.some((p) => m.includes(p)),
  );
}

describe("modules loaded at start-up", () => {
  for (const [label, bin] of [
    ["the command", BIN],
    ["the unbundled build", TSC_BIN],
  ] as const) {
    it(`${label}: \`call read_file\` loads no HTML stack, model client, MCP SDK, lock library, bash grammar, config schema or ajv compiler`, async () => {
      const { modules, stdout } = await loaded(`call-${label}`, [
        bin,
        "--workspace",
        dir,
        "--json",
        "call",
        "read_file",
        '{"path":"notes.txt"}',
      ]);
      expect(JSON.parse(stdout).llmContent).toContain("two");
      expect(modules.some((m) => m.includes("/dist/"))).toBe(true); // the recorder saw our modules
      expect(lazyLoaded(modules)).toEqual([]);
      // The command's chunks inline zod where the schema needs it: none of those chunks loaded either.
      const chunks = modules.filter((m) => m.includes("/dist/bin/")).map((m) => m.replace(/^file:\/\//, ""));
      const withZod = [];
      for (const chunk of chunks)
        if ((await readFile(chunk, "utf8")).includes("ZodError")) withZod.push(chunk);
      expect(withZod).toEqual([]);
    });

    it(`${label}: \`--help\` loads no library and no command`, async () => {
      const { modules, stdout } = await loaded(`help-${label}`, [bin, "--help"]);
      expect(stdout).toContain("toolgate call TOOL");
      expect(modules.filter((m) => m.includes("/node_modules/"))).toEqual([]);
      expect(modules.filter((m) => /\/dist\/(core|tools|policy|cli\/commands)\//.test(m))).toEqual([]);
    });
  }

  // Front doors load their heavy libraries inside the functions that need them (docs/architecture.md).
  it("importing the MCP server, MCP client and agents front doors loads no MCP SDK; the tool source loads no MCP code", async () => {
    const doors = ["mcp", "mcp-client", "agents"].map(
      (f) => pathToFileURL(join(REPO_ROOT, "dist", f, "index.js")).href,
    );
    const { modules } = await loaded("front-doors", [
      "--input-type=module",
      "-e",
      `const [m, c, a] = await Promise.all(${JSON.stringify(doors)}.map((d) => import(d))); if (typeof m.serveMcp !== "function" || typeof c.McpClientPool !== "function" || typeof a.createSpawnAgentsTool !== "function") process.exit(1);`,
    ]);
    expect(modules.some((m) => m.includes("/dist/mcp/index.js"))).toBe(true);
    expect(modules.some((m) => m.includes("/dist/mcp-client/index.js"))).toBe(true);
    expect(modules.filter((m) => m.includes("/node_modules/@modelcontextprotocol/"))).toEqual([]);
    // The gate's tool source loads the MCP client only when a pool is asked for.
    const source = pathToFileURL(join(REPO_ROOT, "dist", "tool-source.js")).href;
    const alone = await loaded("tool-source", [
      "--input-type=module",
      "-e",
      `const s = await import(${JSON.stringify(source)}); if (typeof s.ToolSource !== "function") process.exit(1);`,
    ]);
    expect(alone.modules.some((m) => m.includes("/dist/tool-source.js"))).toBe(true);
    expect(alone.modules.filter((m) => m.includes("/dist/mcp/") || m.includes("/dist/mcp-client/"))).toEqual(
      [],
    );
  });

  // The library's front door still exports the model clients and the MCP pool, which import their SDKs
  // statically (src/llm, src/mcp, src/mcp-client); the rest of the lazy parts stay unloaded.
  it("importing the library loads no HTML stack, lock library or bash grammar", async () => {
    const entry = pathToFileURL(join(REPO_ROOT, "dist", "index.js")).href;
    const { modules } = await loaded("import", [
      "--input-type=module",
      "-e",
      `const t = await import(${JSON.stringify(entry)}); if (typeof t.createToolgate !== "function") process.exit(1);`,
    ]);
    expect(modules.some((m) => m.includes("/dist/index.js"))).toBe(true);
    // The MCP SDK loads ajv, and zod for its messages.
    const packages = LAZY_PACKAGES.filter(
      (p) => !["@modelcontextprotocol/sdk", "openai", "ollama", "zod", "ajv/dist/compile"].includes(p),
    );
    const ours = LAZY_OURS.filter((p) => !["/dist/llm/", "/dist/mcp/", "/dist/mcp-client/"].includes(p));
    expect(lazyLoaded(modules, packages, ours)).toEqual([]);
  });
});
