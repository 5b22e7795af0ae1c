/**
 * @module mcp-client/project-servers
 * A project's MCP servers as its files say, for the gate's tool source: every host's MCP file read, the
 * servers of a file the user has not trusted with its present bytes left unstarted (listed as `untrusted`,
 * with why), the servers a host set through the API laid over the files. And the cheap check whether the
 * files changed since: a stat first; when size or mtime moved, the content hash decides (a `touch` is no
 * change). Stateless: the tool source keeps what it read.
 */
import { displaySafe } from "../core/index.js";
import type { McpServerStatus } from "./client-pool.js";
import {
  loadMcpConfig,
  type McpConfigProblem,
  type McpServerConfig,
  mcpConfigHash,
  mcpConfigStamp,
} from "./config.js";
import { sanitizeNamePart } from "./naming.js";

export interface ProjectServersOptions {
  /** Why a file with content of this sha256 may not start its servers, or undefined when it may. */
  whyUntrusted(file: string, sha256: string): string | undefined;
  /** Variables `${VAR}` expands from. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Servers set through the API: a config, or `null` for "removed". They override the files. */
  overrides: ReadonlyMap<string, McpServerConfig | null>;
}

/** What the project's files (and the API's servers) say, at one moment. */
export interface ProjectServers {
  /** The servers to start, by name. */
  servers: Record<string, McpServerConfig>;
  problems: McpConfigProblem[];
  /** Servers of untrusted files, never started. */
  untrusted: McpServerStatus[];
  /** Untrusted files and refused entries, in words. */
  warnings: string[];
  /** The files' stat stamp and content hash when read (see {@link filesUnchanged}). */
  stamp: string;
  hash: string | undefined;
}

/** Reads the project's MCP servers. A broken file leaves none, reported; it never throws. */
export async function readProjectServers(
  root: string,
  options: ProjectServersOptions,
): Promise<ProjectServers> {
  const stamp = await mcpConfigStamp(root);
  let servers: Record<string, McpServerConfig> = {};
  let problems: McpConfigProblem[] = [];
  let hash: string | undefined;
  let origins: Record<string, string> = {};
  let digests: Record<string, string> = {};
  try {
    const loaded = await loadMcpConfig(root, options.env ? { env: options.env } : {});
    ({ servers, problems, hash, origins } = loaded);
    digests = Object.fromEntries(loaded.sources.flatMap((s) => (s.sha256 ? [[s.file, s.sha256]] : [])));
  } catch (error) {
    problems = [{ server: "(.mcp.json)", message: (error as Error).message }];
  }
  const warnings: string[] = [];
  const untrusted = untrustedServers(servers, origins, digests, options.whyUntrusted);
  for (const [file, names] of untrusted.files)
    warnings.push(
      `${file} ${names.why}: not starting ${names.servers.map((n) => displaySafe(n, false)).join(", ")} (\`toolgate trust\` shows what it would start and trusts it)`,
    );
  for (const status of untrusted.servers) delete servers[status.name];
  for (const [name, config] of options.overrides) {
    if (config === null) delete servers[name];
    else servers[name] = config;
    problems = problems.filter((p) => p.server !== name);
  }
  for (const p of problems) warnings.push(p.message);
  return {
    servers,
    problems,
    untrusted: untrusted.servers.filter((u) => !(u.name in servers)),
    warnings,
    stamp,
    hash,
  };
}

/** True when the project's MCP files are as `seen` read them; `seen.stamp` moves on when only a stat changed. */
export async function filesUnchanged(
  root: string,
  seen: { stamp?: string; hash?: string },
): Promise<boolean> {
  const stamp = await mcpConfigStamp(root);
  if (stamp === seen.stamp) return true;
  if (seen.hash === undefined || (await mcpConfigHash(root)) !== seen.hash) return false;
  seen.stamp = stamp;
  return true;
}

/**
 * The servers a public tool name can belong to: those whose `mcp__<server>__` prefix it carries (a name cut
 * to 64 characters carries the first 57 of it). Names are never parsed back; this only narrows what to start.
 */
export function serversFor(tool: string, servers: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const server of servers) {
    const prefix = `mcp__${sanitizeNamePart(server)}__`;
    if (tool.startsWith(prefix) || (tool.length === 64 && prefix.startsWith(tool.slice(0, 57))))
      out.add(server);
  }
  return out;
}

/** The servers of files not trusted with their present content, by file, with why. */
function untrustedServers(
  servers: Record<string, McpServerConfig>,
  origins: Record<string, string>,
  digests: Record<string, string>,
  whyUntrusted: ProjectServersOptions["whyUntrusted"],
): { servers: McpServerStatus[]; files: Map<string, { why: string; servers: string[] }> } {
  const out: McpServerStatus[] = [];
  const files = new Map<string, { why: string; servers: string[] }>();
  const answers = new Map<string, string | undefined>();
  for (const [name, config] of Object.entries(servers)) {
    const file = origins[name] ?? name;
    if (!answers.has(file)) answers.set(file, whyUntrusted(file, digests[file] ?? ""));
    const why = answers.get(file);
    if (why === undefined) continue;
    out.push({ name, type: config.type, state: "untrusted", toolCount: 0, restarts: 0 });
    const entry = files.get(file) ?? { why, servers: [] };
    entry.servers.push(name);
    files.set(file, entry);
  }
  return { servers: out, files };
}
