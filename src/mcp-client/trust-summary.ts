/**
 * @module mcp-client/trust-summary
 * What one MCP configuration file of a project would do once trusted, server by server, as written (nothing
 * expanded): the program it runs or the address it connects to, and every host environment variable it is
 * handed — in its command, arguments, `env`, `cwd`, URL or headers. `toolgate trust` shows it and records it,
 * so a later change can be shown as servers added, removed or changed.
 */
import { canonicalJson, isPlainObject } from "../utils/index.js";
import { entryType, hashBytes, remoteUrlKey, serverEntries } from "./config.js";
import { variablesIn } from "./expand.js";
import { DEFAULT_HOST_FILE, MCP_HOST_FILES } from "./hosts.js";

/** One server as the file writes it. */
export interface McpServerSummary {
  /** sha256 of the entry as written (canonical JSON): a different digest is a changed server. */
  digest: string;
  /** `runs "npx" "-y" "pkg"`, `connects to https://…` (variables as written). */
  what: string;
  /** Where host variables go: `headers.Authorization ← ${GITHUB_TOKEN}`, `env.TOKEN ← ${TOKEN}`. */
  passes: string[];
}

/** One file's servers, by name. */
export interface McpFileSummary {
  servers: Record<string, McpServerSummary>;
}

const quoted = (value: unknown) => JSON.stringify(typeof value === "string" ? value : String(value));

/**
 * Summarises the text of the MCP file at `path` (relative to the project root, which picks the host's
 * format: gemini-cli's bare `$VAR`). Throws a ConfigError when the file is not JSON or its top level is wrong.
 * @example summarizeMcpFile('{"mcpServers":{"gh":{"url":"https://x/mcp","headers":{"Authorization":"Bearer ${T}"}}}}', ".mcp.json")
 * // { servers: { gh: { digest: "…", what: "connects to https://x/mcp", passes: ["headers.Authorization ← ${T}"] } } }
 */
export function summarizeMcpFile(text: string, path: string): McpFileSummary {
  const host = MCP_HOST_FILES.find((h) => h.path === path) ?? DEFAULT_HOST_FILE;
  const { raw } = serverEntries(text, path, host);
  const servers: Record<string, McpServerSummary> = {};
  for (const name of Object.keys(raw).sort()) {
    const entry = raw[name];
    const digest = hashBytes(canonicalJson(entry ?? null));
    if (!isPlainObject(entry)) {
      servers[name] = { digest, what: "an entry that is not an object (refused)", passes: [] };
      continue;
    }
    const type = entryType(entry, host) ?? "stdio";
    const url = type === "stdio" ? undefined : entry[remoteUrlKey(entry, type)];
    const what =
      type === "stdio"
        ? `runs ${[entry.command, ...(Array.isArray(entry.args) ? entry.args : [])].map(quoted).join(" ")}`
        : `connects to ${typeof url === "string" ? url : "(no URL)"}`;
    const passes: string[] = [];
    const note = (where: string, value: unknown) => {
      if (typeof value !== "string") return;
      const names = variablesIn(value, host.bareDollar);
      if (names.length > 0) passes.push(`${where} ← ${names.map((n) => `\${${n}}`).join(", ")}`);
    };
    note("command", entry.command);
    if (Array.isArray(entry.args)) for (const [i, a] of entry.args.entries()) note(`args[${i}]`, a);
    for (const map of ["env", "headers"] as const) {
      const values = entry[map];
      if (isPlainObject(values))
        for (const key of Object.keys(values).sort()) note(`${map}.${key}`, values[key]);
    }
    note("url", entry.url);
    note("httpUrl", entry.httpUrl);
    note("cwd", entry.cwd);
    // The loader refuses an envFile inside the workspace (its bytes are not what trust binds), so the
    // variables it can pass come from a file outside the repository.
    if (typeof entry.envFile === "string")
      passes.push(`env ← every variable in ${quoted(entry.envFile)} (refused if inside the workspace)`);
    servers[name] = { digest, what, passes };
  }
  return { servers };
}
