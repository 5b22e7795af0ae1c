/**
 * @module cli/commands/mcp-list
 * `toolgate mcp list`: the project's MCP servers — state, tool count, error, the file each came from — and
 * the configuration files read, in order. It builds the project's pool (starting every configured server)
 * and stops the servers after; in a workspace the user has not trusted it starts none and lists them as
 * `untrusted`.
 */
import type { ToolRegistry } from "../../core/index.js";
import {
  describeMcpSources,
  loadMcpConfig,
  McpClientPool,
  type McpServerStatus,
  serverProvenance,
} from "../../mcp/index.js";
import type { CliContext } from "../context.js";
import type { ExitCode } from "../exit-codes.js";

/** `toolgate mcp list` with the gate's tools and trust. */
export async function runMcpList(ctx: CliContext): Promise<ExitCode> {
  const gate = await ctx.gate();
  return (await runMcpListCommand({
    root: ctx.root,
    stdout: ctx.io.stdout,
    stderr: ctx.io.stderr,
    json: ctx.globals.json,
    registry: gate.registry,
    trusted: gate.workspaceTrusted,
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
  /** Whether the workspace is trusted: untrusted, its servers are listed as `untrusted` and never started. */
  trusted: boolean;
}

/**
 * Lists the servers. Exit code: 0, or 2 when `.mcp.json` or one of its entries is invalid (a server that
 * fails to start is reported, not a configuration error). A file that is not JSON throws ConfigError.
 * JSON output: `[{"name","type","state","tools","error","file","shadowed","notes"}]`, sorted by name.
 */
export async function runMcpListCommand(io: McpListIo): Promise<number> {
  const config = await loadMcpConfig(io.root);
  let servers: McpServerStatus[];
  if (!io.trusted) {
    // The file came with the repository: show what it would start, start nothing.
    servers = Object.entries(config.servers)
      .map(
        ([name, c]): McpServerStatus => ({
          name,
          type: c.type,
          state: "untrusted",
          toolCount: 0,
          restarts: 0,
        }),
      )
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (servers.length > 0)
      io.stderr(
        `toolgate: ${[...new Set(Object.values(config.origins))].join(", ")} is not trusted: no server was started (\`toolgate trust\` to start them)\n`,
      );
  } else {
    const pool = new McpClientPool({ logger: { warn: () => {} } });
    try {
      pool.configure(config.servers, config.problems);
      servers = (await pool.discover(new Set(io.registry.names()))).servers;
    } finally {
      await pool.close();
    }
  }
  if (io.json) {
    const rows = servers.map((s) => ({
      name: s.name,
      type: s.type,
      state: s.state,
      tools: s.toolCount,
      error: s.error ?? null,
      ...serverProvenance(config, s.name),
    }));
    io.stdout(`${JSON.stringify(rows)}\n`);
  } else if (servers.length === 0) {
    io.stdout(config.file ? `no MCP servers in ${config.file}\n` : `no MCP configuration in ${io.root}\n`);
    io.stdout(describeMcpSources(config));
  } else {
    const width = Math.max(...servers.map((s) => s.name.length));
    const typeWidth = Math.max(5, ...servers.map((s) => s.type.length));
    for (const s of servers) {
      const tools = s.state === "ready" ? `${s.toolCount} tool${s.toolCount === 1 ? "" : "s"}` : "-";
      io.stdout(
        `${s.name.padEnd(width)}  ${s.type.padEnd(typeWidth)}  ${s.state.padEnd(8)}  ${tools}${s.error ? `  ${s.error}` : ""}\n`,
      );
    }
    io.stdout(`\n${describeMcpSources(config)}`);
  }
  return servers.some((s) => s.state === "invalid") ? 2 : 0;
}
