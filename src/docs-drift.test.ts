/**
 * Docs that cannot drift: docs/contributing.md lists every generated section of a page and every generated
 * source file, and no page names a line of a source file (the file and the function stay true across edits,
 * a line number does not).
 */
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./test-support/cli.js";

async function pages(): Promise<Map<string, string>> {
  const names = (await readdir(join(REPO_ROOT, "docs"))).filter((f) => f.endsWith(".md")).sort();
  const out = new Map<string, string>();
  for (const file of ["README.md", ...names.map((f) => `docs/${f}`)])
    out.set(file, await readFile(join(REPO_ROOT, file), "utf8"));
  return out;
}

/** The rows of the table under `## heading` in docs/contributing.md, as cells. */
async function tableOf(heading: string): Promise<string[][]> {
  const text = await readFile(join(REPO_ROOT, "docs", "contributing.md"), "utf8");
  const section = text.split(/^## /m).find((s) => s.startsWith(`${heading}\n`));
  if (!section) throw new Error(`docs/contributing.md has no "## ${heading}" section`);
  return section
    .split("\n")
    .filter((line) => line.startsWith("|") && !line.startsWith("| ---"))
    .slice(1)
    .map((line) => line.split("|").map((cell) => cell.trim()));
}

describe("docs that cannot drift", () => {
  it("docs/contributing.md lists every generated section, with the test that writes it", async () => {
    const found: string[] = [];
    for (const [file, text] of await pages())
      for (const m of text.matchAll(/<!-- ([\w-]+):start \(generated from/g))
        found.push(`${file.replace(/^docs\//, "")} ${m[1]}`);
    const listed: string[] = [];
    for (const [, page, , command] of await tableOf("Generated pages")) {
      const name = /\]\(([\w.-]+\.md)\) \(`([\w-]+)`\)/.exec(page ?? "");
      const test = /npx vitest run (src\/[\w./-]+\.test\.ts)/.exec(command ?? "");
      if (!name || !test) throw new Error(`a row of "Generated pages" names no page and section or no test`);
      listed.push(`${name[1]} ${name[2]}`);
      // The test named is the one that writes this section (it holds the section's marker).
      const source = await readFile(join(REPO_ROOT, test[1]!), "utf8");
      expect({ section: name[2], test: test[1], writes: source.includes(`${name[2]}:start`) }).toEqual({
        section: name[2],
        test: test[1],
        writes: true,
      });
    }
    expect(found.length).toBeGreaterThan(5);
    expect(listed.sort()).toEqual(found.sort());
  });

  it("docs/contributing.md lists every generated source file", async () => {
    const files = (await readdir(join(REPO_ROOT, "src"), { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith(".generated.ts"))
      .map((entry) => relative(REPO_ROOT, join(entry.parentPath, entry.name)))
      .sort();
    const listed = (await tableOf("Generated files")).map(([, file]) => file!.replaceAll("`", "")).sort();
    expect(files.length).toBeGreaterThan(0);
    expect(listed).toEqual(files);
  });

  it("no page names a line of a source file", async () => {
    const lines: string[] = [];
    for (const [file, text] of await pages())
      for (const m of text.matchAll(/[\w./-]+\.(?:ts|js|mjs|json|toml):\d+/g)) lines.push(`${file}: ${m[0]}`);
    expect(lines).toEqual([]);
  });
});
