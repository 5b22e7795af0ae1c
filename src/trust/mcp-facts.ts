/**
 * @module trust/mcp-facts
 * What a host's MCP file would start once trusted, and how that changed: servers added, removed or changed,
 * each with what it runs or connects to and every host variable it is handed (`summarizeMcpFile`).
 */
import { type McpFileSummary, type McpServerSummary, summarizeMcpFile } from "../mcp-client/index.js";
import type { FactKind } from "./kind.js";

function line(name: string, server: McpServerSummary, prefix = ""): string {
  const passes = server.passes.length > 0 ? `; passes host variables: ${server.passes.join("; ")}` : "";
  return `${prefix}server ${name}: ${server.what}${passes}`;
}

export const mcpKind: FactKind<McpFileSummary> = {
  summarize: (text, path) => summarizeMcpFile(text, path),
  describe: (facts) => Object.entries(facts.servers).map(([name, server]) => line(name, server)),
  changes(before, after) {
    const lines: string[] = [];
    for (const [name, server] of Object.entries(after.servers)) {
      const was = before.servers[name];
      if (was === undefined) lines.push(line(name, server, "added: "));
      else if (was.digest !== server.digest) lines.push(line(name, server, "changed: "));
    }
    for (const name of Object.keys(before.servers))
      if (!(name in after.servers)) lines.push(`removed: server ${name}`);
    return lines;
  },
};
