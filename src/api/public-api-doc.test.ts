/**
 * `docs/public-api.md` lists every published name, generated from package.json's `exports` and each entry
 * file's exports (with the first sentence of each name's TSDoc): this test fails when the page is stale.
 * `UPDATE_DOCS=1 npx vitest run src/api/public-api-doc.test.ts` rewrites the section.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const page = join(root, "docs", "public-api.md");
const START = "<!-- public-api:start (generated from package.json exports and their entry files) -->";
const END = "<!-- public-api:end -->";

/** Each published subpath and the source file of its entry (`./dist/api/mcp.js` → `src/api/mcp.ts`). */
function entries(): { subpath: string; file: string }[] {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  return Object.entries(pkg.exports as Record<string, string | { default: string }>)
    .filter(([, target]) => typeof target === "object")
    .map(([key, target]) => ({
      subpath: key === "." ? "toolgate" : `toolgate/${key.slice(2)}`,
      file: (target as { default: string }).default.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"),
    }));
}

/** The first sentence of a doc comment, on one line, with table pipes escaped. */
function firstSentence(text: string): string {
  const flat = text
    .replace(/\{@link\s+([^}\s]+)\s*\}/g, "`$1`")
    .replace(/\s+/g, " ")
    .trim();
  const end = flat.search(/\.(\s|$)/);
  return (end === -1 ? flat : flat.slice(0, end + 1)).replaceAll("|", "\\|");
}

function reference(): string {
  const list = entries();
  const program = ts.createProgram(
    list.map((e) => join(root, e.file)),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
    },
  );
  const checker = program.getTypeChecker();
  const sections: string[] = [];
  for (const { subpath, file } of list) {
    const source = program.getSourceFile(join(root, file));
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${file}: not found or not a module`);
    const rows = checker
      .getExportsOfModule(module)
      .map((symbol) => {
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        const value = (target.flags & ts.SymbolFlags.Value) !== 0;
        const doc = firstSentence(ts.displayPartsToString(target.getDocumentationComment(checker)));
        return { name: symbol.name, value, doc };
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    sections.push(
      `### \`${subpath}\`\n\n` +
        `Entry file \`${file}\`: ${rows.filter((r) => r.value).length} values, ` +
        `${rows.filter((r) => !r.value).length} types.\n\n` +
        "| name | | what |\n| --- | --- | --- |\n" +
        rows.map((r) => `| \`${r.name}\` | ${r.value ? "value" : "type"} | ${r.doc || "—"} |`).join("\n"),
    );
  }
  return sections.join("\n\n");
}

describe("docs/public-api.md", () => {
  it("lists every published name of every entry file", () => {
    const text = readFileSync(page, "utf8");
    const from = text.indexOf(START);
    const to = text.indexOf(END);
    expect(from, "docs/public-api.md lacks the public-api markers").toBeGreaterThan(-1);
    const want = `${START}\n${reference()}\n${END}`;
    if (process.env.UPDATE_DOCS === "1") {
      writeFileSync(page, text.slice(0, from) + want + text.slice(to + END.length));
      return;
    }
    expect(text.slice(from, to + END.length)).toBe(want);
  }, 120_000);
});
