/**
 * `docs/hooks.md`'s name and argument tables are generated from `host-tools.json` (through the checked
 * `HOST_TABLE`): this test fails when the page is stale. `UPDATE_DOCS=1 npx vitest run src/hooks/hooks-doc.test.ts`
 * rewrites the section.
 */
import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { HOST_TABLE, type HostTable } from "./mapping.js";

const page = new URL("../../docs/hooks.md", import.meta.url);
const START = "<!-- host-tools:start (generated from src/hooks/host-tools.json) -->";
const END = "<!-- host-tools:end -->";

/** One host's column for a tool: its name(s), and the renamed fields. */
function cell(table: HostTable, host: "claude" | "gemini", tool: string): [string, string] {
  const entry = table[host][tool];
  if (!entry) return [`\`${tool}\` (unchanged)`, ""];
  const name = entry.edits
    ? `\`${entry.edits.single}\` (one edit), \`${entry.name}\` (several)`
    : `\`${entry.name}\``;
  const renames = [
    ...Object.entries(entry.fields),
    ...Object.entries(entry.edits?.fields ?? {}).map(([a, b]) => [`${entry.edits!.field}[].${a}`, b]),
  ].map(([a, b]) => `\`${a}\` → \`${b}\``);
  return [name, renames.join(", ")];
}

/** The generated tables: every tool either host names, toolgate's name first. */
function hostToolTable(table: HostTable = HOST_TABLE): string {
  const tools = [...new Set([...Object.keys(table.claude), ...Object.keys(table.gemini)])];
  const rows = tools.map((tool) => {
    const [claude, claudeFields] = cell(table, "claude", tool);
    const [gemini, geminiFields] = cell(table, "gemini", tool);
    return `| \`${tool}\` | ${claude} | ${claudeFields} | ${gemini} | ${geminiFields} |`;
  });
  return [
    "| toolgate tool | Claude Code `tool_name` | Claude Code `tool_input` renames | gemini-cli `tool_name` | gemini-cli `tool_input` renames |",
    "| --- | --- | --- | --- | --- |",
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
