/**
 * `src/tools/index.ts` is the only list of built-in tools: `createBuiltinTools` is the one caller of every
 * built-in tool's constructor, and every constructor is called there (a new tool file that is not registered
 * fails here). The coordination tools are made in one place too, the project's tool pool. Data elsewhere keyed
 * by tool name names only tools of these lists.
 */
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COORDINATION_TOOLS } from "../agents/resolve.js";
import HINTS from "../loop/paging-hints.json" with { type: "json" };
import { type AllBuiltinTools, allBuiltinTools } from "../test-support/builtin-tools.js";
import { REPO_ROOT } from "../test-support/cli.js";

const SRC = join(REPO_ROOT, "src");
/** Tests, benchmarks and test helpers make tools as they need; the list is about what ships. */
const NOT_SHIPPED = /(\.test\.ts$|^src\/(bench|e2e|test-support)\/)/;

async function shippedSources(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of await readdir(SRC, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue;
    const path = relative(REPO_ROOT, join(entry.parentPath, entry.name));
    if (!NOT_SHIPPED.test(path)) out.set(path, await readFile(join(REPO_ROOT, path), "utf8"));
  }
  return out;
}

/** Code without comments, so a doc comment's `@example` is not a call. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");

/** Each tool constructor (`export function createXTool`) under `folder` → the files that call it. */
function callers(sources: Map<string, string>, folder: string): Map<string, string[]> {
  const constructors = new Map<string, string[]>();
  for (const [path, text] of sources) {
    if (!path.startsWith(folder)) continue;
    for (const m of text.matchAll(/export function (create\w+Tool)\(/g)) constructors.set(m[1]!, []);
  }
  for (const [path, text] of sources) {
    const body = code(text);
    for (const [name, files] of constructors)
      if (new RegExp(`(?<!function )\\b${name}\\(`).test(body)) files.push(path);
  }
  return constructors;
}

let builtins: AllBuiltinTools;
beforeAll(async () => {
  builtins = await allBuiltinTools();
});
afterAll(() => builtins.close());

describe("the only list of built-in tools", () => {
  it("createBuiltinTools (src/tools/index.ts) alone calls each built-in tool's constructor", async () => {
    const found = callers(await shippedSources(), "src/tools/");
    expect(found.size).toBeGreaterThanOrEqual(builtins.tools.length);
    for (const [name, files] of found)
      expect({ name, files }).toEqual({ name, files: ["src/tools/index.ts"] });
  });

  it("the project's tool pool alone makes the coordination tools", async () => {
    const found = callers(await shippedSources(), "src/agents/");
    expect([...found.keys()].sort()).toEqual(["createListAvailableAgentsTool", "createSpawnAgentsTool"]);
    for (const [name, files] of found)
      expect({ name, files }).toEqual({ name, files: ["src/tool-source.ts"] });
  });

  it("paging-hints.json names only tools of those lists", () => {
    const names = new Set([...builtins.tools.map((tool) => tool.name), ...COORDINATION_TOOLS]);
    const keys = Object.keys(HINTS).filter((key) => key !== "$comment" && key !== "*");
    expect(keys.length).toBeGreaterThan(5);
    for (const key of keys) expect(names, key).toContain(key.replace(/:tail$/, ""));
  });
});
