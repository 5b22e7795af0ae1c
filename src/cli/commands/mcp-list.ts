/**
 * @module cli/commands/mcp-list
 * `toolgate mcp list`: the project's MCP servers — state, tool count, error, the file each came from — and
 * the configuration files read, in order. It builds the project's pool (starting every configured server)
 * and stops the servers after; in a workspace the user has not trusted it starts none and lists them as
 * `untrusted`.
 */
import { realpath } from "node:fs/promises";
import { displaySafe, displaySafeJson, type ToolRegistry } from "../../core/index.js";
import {
  describeMcpSources,
  loadMcpConfig,
  McpClientPool,
  type McpServerStatus,
  serverProvenance,
} from "../../mcp-client/index.js";
import { type FileTrust, trustLookup, trustStorePath, untrustedReason } from "../../workspace/index.js";
import type { CliContext } from "../context.js";
import type { ExitCode } from "../exit-codes.js";

/** `toolgate mcp list` with the gate's tools and trust. */
export async function runMcpList(ctx: CliContext): Promise<ExitCode> {
  const gate = await ctx.gate();
  return (await runMcpListCommand({
    // Canonical, as the gate's roots and the trust list's folders are.
    root: await realpath(ctx.root).catch(() => ctx.root),
    stdout: ctx.io.stdout,
    stderr: ctx.io.stderr,
    json: ctx.globals.json,
    registry: gate.registry,
    // The same list the gate reads (`--workspace` does not change whose list it is).
    trusted: (() => {
      const lookup = trustLookup(trustStorePath({ env: ctx.io.env }));
      return (file: string, sha256: string) => lookup.file(file, { sha256 });
    })(),
  })) as ExitCode;
}

/** What the listing needs. */
export interface McpListIo {
  /** The project root (where `.mcp.json` is). */
  root: string;
  stdout(text: string): void;
  stderr(text: string): void;
  json: boolean;
  /** The host's tools: MCP names are made so they never take one of these. */
  registry: ToolRegistry;
  /**
   * Whether each MCP file may start its servers, given the digest of the bytes read (or one answer for all):
   * an untrusted file's servers are listed as `untrusted` and never started.
   */
  trusted: boolean | ((file: string, sha256: string) => boolean | FileTrust);
}

/**
 * Lists the servers. Exit code: 0, or 2 when `.mcp.json` or one of its entries is invalid (a server that
 * fails to start is reported, not a configuration error). A file that is not JSON throws ConfigError.
 * JSON output: `[{"name","type","state","tools","error","file","shadowed","notes"}]`, sorted by name.
 */
const line = (text: string) => displaySafe(text, false);

export async function runMcpListCommand(io: McpListIo): Promise<number> {
  const config = await loadMcpConfig(io.root);
  const digests = new Map(config.sources.map((s) => [s.file, s.sha256 ?? ""]));
  const why = new Map<string, string | undefined>();
  for (const file of new Set(Object.values(config.origins))) {
    const answer = typeof io.trusted === "boolean" ? io.trusted : io.trusted(file, digests.get(file) ?? "");
    why.set(file, untrustedReason(answer));
  }
  const untrustedNames = Object.keys(config.servers).filter((n) => why.get(config.origins[n]!) !== undefined);
  // A file that came with the repository, or changed since it was trusted: show what it would start, start nothing.
  const untrusted = untrustedNames.map(
    (name): McpServerStatus => ({
      name,
      type: config.servers[name]!.type,
      state: "untrusted",
      toolCount: 0,
      restarts: 0,
    }),
  );
  for (const [file, reason] of why) {
    const names = untrustedNames.filter((n) => config.origins[n] === file);
    if (reason !== undefined && names.length > 0)
      io.stderr(
        `toolgate: ${file} ${reason}: did not start ${names.map(line).join(", ")} (\`toolgate trust\` shows what it would start and trusts it)\n`,
      );
  }
  const trustedServers = Object.fromEntries(
    Object.entries(config.servers).filter(([name]) => !untrustedNames.includes(name)),
  );
  let started: McpServerStatus[] = [];
  // An untrusted file's broken entries are not its servers' business yet either.
  const problems = config.problems.filter((p) => why.get(config.origins[p.server] ?? "") === undefined);
  if (Object.keys(trustedServers).length > 0 || problems.length > 0) {
    const pool = new McpClientPool({ logger: { warn: () => {} } });
    try {
      pool.configure(trustedServers, problems);
      started = (await pool.discover(new Set(io.registry.names()))).servers;
    } finally {
      await pool.close();
    }
  }
  // Server names and errors come from the files and the servers: one row each, nothing hidden.
  const servers = [...started, ...untrusted].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (io.json) {
    const rows = servers.map((s) => ({
      name: s.name,
      type: s.type,
      state: s.state,
      tools: s.toolCount,
      error: s.error ?? null,
      ...serverProvenance(config, s.name),
    }));
    io.stdout(`${displaySafeJson(rows)}\n`);
  } else if (servers.length === 0) {
    io.stdout(config.file ? `no MCP servers in ${config.file}\n` : `no MCP configuration in ${io.root}\n`);
    io.stdout(describeMcpSources(config));
  } else {
    const width = Math.max(...servers.map((s) => line(s.name).length));
    const typeWidth = Math.max(5, ...servers.map((s) => s.type.length));
    for (const s of servers) {
      const tools = s.state === "ready" ? `${s.toolCount} tool${s.toolCount === 1 ? "" : "s"}` : "-";
      io.stdout(
        `${line(s.name).padEnd(width)}  ${s.type.padEnd(typeWidth)}  ${s.state.padEnd(8)}  ${tools}${s.error ? `  ${line(s.error)}` : ""}\n`,
      );
    }
    io.stdout(`\n${describeMcpSources(config)}`);
  }
  return servers.some((s) => s.state === "invalid") ? 2 : 0;
}
