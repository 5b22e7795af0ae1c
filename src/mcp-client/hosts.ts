/**
 * @module mcp-client/hosts
 * The MCP configuration files of other hosts that toolgate reads in a project, in the order it reads them:
 * the first file to name a server wins, later ones with the same name are reported as shadowed.
 */

/** One host's project file and how to read it. */
export interface McpHostFile {
  /** Path from the project root. */
  path: string;
  /** The host that writes it (shown by `toolgate mcp list`). */
  host: string;
  /** Where `url` without `type` leads: gemini-cli's `url` is SSE (its streamable HTTP is `httpUrl`). */
  bareUrl: "http" | "sse";
  /** Bare `$VAR` references are expanded (gemini-cli). */
  bareDollar: boolean;
  /** Top-level keys other than the server map belong to the host (gemini's settings): ignored silently. */
  foreignTopLevel: boolean;
}

export const MCP_HOST_FILES: readonly McpHostFile[] = [
  { path: ".mcp.json", host: "Claude Code", bareUrl: "http", bareDollar: false, foreignTopLevel: false },
  { path: ".vscode/mcp.json", host: "VS Code", bareUrl: "http", bareDollar: false, foreignTopLevel: false },
  { path: ".cursor/mcp.json", host: "Cursor", bareUrl: "http", bareDollar: false, foreignTopLevel: false },
  {
    path: ".gemini/settings.json",
    host: "gemini-cli",
    bareUrl: "sse",
    bareDollar: true,
    foreignTopLevel: true,
  },
];

/** How a file is read when it is none of the above (a path given through the API): `.mcp.json`'s way. */
export const DEFAULT_HOST_FILE: McpHostFile = MCP_HOST_FILES[0]!;

/**
 * Keys of other hosts that pre-approve calls or trust a server. toolgate ignores them: its policy decides
 * whether each call runs.
 */
export const TRUST_GRANTING_KEYS: ReadonlySet<string> = new Set(["alwaysAllow", "autoApprove", "trust"]);
