/**
 * @module mcp-client/list-report
 * What `toolgate mcp list` adds to each server's line: the configuration files looked for, in reading order,
 * which one each server came from (and which later definitions of the same name it shadows), and the notes
 * about keys that were ignored.
 */
import { displaySafe } from "../core/index.js";
import type { McpConfigFile } from "./config.js";

/** Per-server provenance for the JSON rows. */
export interface McpServerProvenance {
  /** The file the server came from (null: added through the API). */
  file: string | null;
  /** Later files that also define this name; the first file wins. */
  shadowed: string[];
  /** Keys of this entry that were ignored, and why. */
  notes: string[];
}

export function serverProvenance(config: McpConfigFile, name: string): McpServerProvenance {
  return {
    file: config.origins[name] ?? null,
    shadowed: config.sources.filter((s) => s.shadowed.includes(name)).map((s) => s.file),
    notes: config.notes.filter((n) => n.server === name).map((n) => n.message),
  };
}

/** The text block printed after the server lines. */
export function describeMcpSources(config: McpConfigFile): string {
  // Server names and notes come from the files: one row each, nothing hidden.
  const safe = (names: readonly string[]) => names.map((n) => displaySafe(n, false)).join(", ");
  const lines = ["files, in reading order (the first to name a server wins):"];
  let n = 0;
  for (const s of config.sources) {
    if (!s.found) {
      lines.push(`   -  ${s.file} (${s.host}): not present`);
      continue;
    }
    n += 1;
    const used = s.servers.length > 0 ? safe(s.servers) : "no servers";
    const shadowed = s.shadowed.length > 0 ? `; shadowed by an earlier file: ${safe(s.shadowed)}` : "";
    lines.push(`  ${String(n).padStart(2)}. ${s.file} (${s.host}): ${used}${shadowed}`);
  }
  for (const note of config.notes)
    lines.push(
      `note: ${note.file}${note.server ? `: server ${safe([JSON.stringify(note.server)])}` : ""}: ${displaySafe(note.message, false)}`,
    );
  return `${lines.join("\n")}\n`;
}
