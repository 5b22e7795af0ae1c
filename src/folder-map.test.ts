/**
 * The folder map in docs/architecture.md ("Folders and which may import which") is the rule the code keeps:
 * every import between folders of `src/` must be one the map allows, and every folder must have a row. When a
 * folder needs a new neighbour, or a new folder appears, change the map in the same commit (the failure says
 * which file imports what). Test helpers, benchmarks and end-to-end tests are outside the map, as are tests (`*.test.ts`, `*.soak.ts`).
 * A folder reaches another through its front door (`index.ts`), but for the imports the page lists under
 * "Imports past a front door", each with its reason.
 */
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./test-support/cli.js";

const SRC = join(REPO_ROOT, "src");
const OUTSIDE_THE_MAP = new Set(["test-support", "bench", "e2e"]);
/** Folders every folder may import (their row says so); they themselves import none of ours. */
const SHARED = new Set(["utils"]);

/** The map's rows: folder (`core`, `toolgate.ts`) → what it may import (`anything` allows every folder). */
function parseMap(markdown: string): Map<string, Set<string> | "anything"> {
  const section = markdown.split(/^## /m).find((s) => s.startsWith("Folders and which may import which"));
  if (!section)
    throw new Error('docs/architecture.md has no "## Folders and which may import which" section');
  const map = new Map<string, Set<string> | "anything">();
  for (const line of section.split("\n")) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    const name = /^`([\w.-]+?)\/?`$/.exec(cells[1] ?? "")?.[1];
    if (!name || cells.length < 5) continue;
    const allowed = cells[3]!;
    map.set(
      name,
      allowed === "anything"
        ? "anything"
        : new Set([...allowed.matchAll(/`([\w.-]+?)\/?`/g)].map((m) => m[1]!)),
    );
  }
  return map;
}

/** The folder a file of `src/` belongs to: its first directory, or its own name for files at the top. */
function folderOf(path: string): string {
  const first = relative(SRC, path).split("/")[0]!;
  // Imports name the compiled file (`../toolgate.js`); the map names the source.
  return first.replace(/\.js$/, ".ts");
}

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (dir === SRC && OUTSIDE_THE_MAP.has(entry.name)) continue;
      out.push(...(await sourceFiles(path)));
    } else if (
      /\.ts$/.test(entry.name) &&
      !/\.(test|soak)\.ts$/.test(entry.name) &&
      !entry.name.endsWith(".d.ts")
    ) {
      out.push(path);
    }
  }
  return out;
}

/** The rows of "Imports past a front door": `file → folder/inside.js`. */
function parseExceptions(markdown: string): Set<string> {
  const section = markdown.split(/^## /m).find((s) => s.startsWith("Imports past a front door"));
  if (!section) throw new Error('docs/architecture.md has no "## Imports past a front door" section');
  const rows = new Set<string>();
  for (const line of section.split("\n")) {
    const m = /^\| `(src\/[\w./-]+)` \| `([\w./-]+)` \|/.exec(line);
    if (m) rows.add(`${m[1]} → ${m[2]}`);
  }
  return rows;
}

describe("the folder map in docs/architecture.md", () => {
  it("allows every import between folders of src/, and has a row for every folder", async () => {
    const map = parseMap(await readFile(join(REPO_ROOT, "docs", "architecture.md"), "utf8"));
    expect(map.size, "the map has no rows").toBeGreaterThan(5);
    const failures = new Set<string>();
    for (const file of await sourceFiles(SRC)) {
      const from = folderOf(file);
      const allowed = map.get(from);
      if (!allowed) {
        failures.add(`src/${from} has no row in the folder map`);
        continue;
      }
      const text = await readFile(file, "utf8");
      for (const m of text.matchAll(/(?:from\s+|import\()\s*"(\.{1,2}\/[^"]+)"/g)) {
        const to = folderOf(resolve(dirname(file), m[1]!));
        if (to === from || allowed === "anything" || allowed.has(to) || (SHARED.has(to) && from !== to))
          continue;
        failures.add(`${relative(REPO_ROOT, file)} imports ${to}, which the map does not allow for ${from}`);
      }
    }
    expect([...failures].sort()).toEqual([]);
  });

  it("folders import each other only through their front door, but for the listed exceptions", async () => {
    const listed = parseExceptions(await readFile(join(REPO_ROOT, "docs", "architecture.md"), "utf8"));
    const found = new Set<string>();
    for (const file of await sourceFiles(SRC)) {
      // Test data imports what its tests need; it ships nowhere.
      if (file.split("/").includes("testdata")) continue;
      const from = folderOf(file);
      for (const m of (await readFile(file, "utf8")).matchAll(/(?:from\s+|import\()\s*"(\.{1,2}\/[^"]+)"/g)) {
        const target = resolve(dirname(file), m[1]!);
        const to = folderOf(target);
        if (to === from || to.endsWith(".ts")) continue;
        const inside = relative(join(SRC, to), target);
        if (inside !== "index.js") found.add(`${relative(REPO_ROOT, file)} → ${to}/${inside}`);
      }
    }
    // Both ways: an unlisted bypass fails, and so does a listed one the code no longer has.
    expect([...found].sort()).toEqual([...listed].sort());
    expect(listed.size).toBeLessThan(8);
  });
});
