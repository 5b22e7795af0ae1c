/**
 * `docs/hooks.md`'s name and argument tables are generated from `host-tools.json` (through the checked
 * `HOST_TABLE`): this test fails when the page is stale. `UPDATE_DOCS=1 npx vitest run src/hooks/hooks-doc.test.ts`
 * rewrites the section.
 */
import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { HOST_FORMATS, HOST_TABLE, type HostFormat, type HostTable } from "./mapping.js";

const page = new URL("../../docs/hooks.md", import.meta.url);
const START = "<!-- host-tools:start (generated from src/hooks/host-tools.json) -->";
const END = "<!-- host-tools:end -->";

/** One host's column for a tool: its name(s), and the renamed fields. */
function cell(table: HostTable, host: HostFormat, tool: string): [string, string] {
  const entry = table[host][tool];
  if (!entry) return [`\`${tool}\` (unchanged)`, ""];
  const also = entry.aliases?.length
    ? ` (matchers: also ${entry.aliases.map((a) => `\`${a}\``).join(", ")})`
    : "";
  const name = entry.edits
    ? `\`${entry.edits.single}\` (one edit), \`${entry.name}\` (several)`
    : `\`${entry.name}\`${also}`;
  if (entry.patch)
    return [name, `\`command\`: the patch ${entry.patch === "add" ? "adding the file" : "of the edits"}`];
  const renames = [
    ...Object.entries(entry.fields),
    ...Object.entries(entry.edits?.fields ?? {}).map(([a, b]) => [`${entry.edits!.field}[].${a}`, b]),
  ].map(([a, b]) => `\`${a}\` → \`${b}\``);
  return [name, renames.join(", ")];
}

const TITLES: Record<HostFormat, string> = { claude: "Claude Code", gemini: "gemini-cli", codex: "Codex" };

/** The generated tables: every tool a host names, toolgate's name first, two columns per host. */
function hostToolTable(table: HostTable = HOST_TABLE): string {
  const tools = [...new Set(HOST_FORMATS.flatMap((host) => Object.keys(table[host])))];
  const rows = tools.map((tool) => {
    const cells = HOST_FORMATS.flatMap((host) => cell(table, host, tool));
    return `| \`${tool}\` | ${cells.join(" | ")} |`;
  });
  const heads = HOST_FORMATS.flatMap((h) => [`${TITLES[h]} \`tool_name\``, `${TITLES[h]} \`tool_input\``]);
  return [
    `| toolgate tool | ${heads.join(" | ")} |`,
    `| --- |${" --- |".repeat(heads.length)}`,
    ...rows,
  ].join("\n");
}

describe("docs/hooks.md host tool tables", () => {
  it("match host-tools.json", async () => {
    const text = await readFile(page, "utf8");
    const from = text.indexOf(START);
    const to = text.indexOf(END);
    expect(from, "docs/hooks.md lacks the host-tools markers").toBeGreaterThan(-1);
    const want = `${START}\n${hostToolTable()}\n${END}`;
    if (process.env.UPDATE_DOCS === "1") {
      await writeFile(page, text.slice(0, from) + want + text.slice(to + END.length));
      return;
    }
    expect(text.slice(from, to + END.length)).toBe(want);
  });

  it("a rename in the data shows in the table", () => {
    const table = structuredClone(HOST_TABLE) as unknown as {
      claude: Record<string, { name: string; fields: Record<string, string> }>;
    };
    table.claude["read_file"]!.fields = { path: "file_path", offset: "start" };
    expect(hostToolTable(table as unknown as HostTable)).toContain(
      "| `read_file` | `Read` | `path` → `file_path`, `offset` → `start` |",
    );
  });
});
