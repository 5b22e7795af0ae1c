/**
 * @module mcp-client/client-pool
 * The connections to a project's configured MCP servers. Discovery lists every enabled server in parallel
 * (every page), names the tools (`mcp__<server>__<tool>`) and wraps them as toolgate Tools; a server that
 * fails is reported with its error and its tools are left out. Reconfiguring keeps unchanged connections.
 */

import type { Tool, ToolResult } from "../core/index.js";
import { ParamValidator, resultFromThrown } from "../core/index.js";
import type { McpConfigProblem, McpServerConfig } from "./config.js";
import {
  type ConnectionOptions,
  McpConnection,
  type McpServerState,
  type McpToolInfo,
} from "./connection.js";
import { type ContentLimits, DEFAULT_CONTENT_LIMITS, mcpResultToToolResult } from "./content.js";
import { createMcpTool, normalizeInputSchema } from "./mcp-tool.js";
import { assignPublicNames, type McpRoute, type RoutingTable } from "./naming.js";

/** One server as `mcp list` shows it. */
export interface McpServerStatus {
  name: string;
  /** `unknown`: an invalid entry that names no transport. */
  type: "stdio" | "http" | "sse" | "unknown";
  /** `invalid`: its configuration entry was refused; `untrusted`: from a workspace not trusted, not started. */
  state: McpServerState | "invalid" | "untrusted";
  /** Tools exposed from it at the last discovery. */
  toolCount: number;
  error?: string;
  restarts: number;
}

/** What a discovery produced. */
export interface McpDiscovery {
  /** Sorted by name. */
  tools: Tool[];
  routes: RoutingTable;
  servers: McpServerStatus[];
  /** Problems worth a warning (schemas replaced, ...). */
  warnings: string[];
}

export interface McpClientPoolOptions extends ConnectionOptions {
  contentLimits?: ContentLimits;
}

/**
 * @example
 * const pool = new McpClientPool();
 * pool.configure((await loadMcpConfig(root)).servers);
 * const { tools, servers } = await pool.discover(new Set(builtins.names()));
 */
export class McpClientPool {
  private readonly connections = new Map<string, { connection: McpConnection; key: string }>();
  private problems: McpConfigProblem[] = [];
  private readonly counts = new Map<string, number>();
  private readonly listeners = new Set<(server: string) => void>();
  private readonly validator = new ParamValidator();
  /** Tools from the last discovery, by identity key: unchanged tools keep their object across discoveries. */
  private toolCache = new Map<string, { tool: Tool; warning?: string }>();

  constructor(private readonly options: McpClientPoolOptions = {}) {}

  /** Sets the servers. A server whose configuration is unchanged keeps its connection; others are closed. */
  configure(servers: Readonly<Record<string, McpServerConfig>>, problems: McpConfigProblem[] = []): void {
    this.problems = problems;
    for (const [name, entry] of this.connections) {
      const next = servers[name];
      if (!next || JSON.stringify(next) !== entry.key) {
        this.connections.delete(name);
        this.counts.delete(name);
        void entry.connection.close();
      }
    }
    for (const name of Object.keys(servers).sort()) {
      if (this.connections.has(name)) continue;
      const config = servers[name]!;
      const connection = new McpConnection(name, config, {
        ...this.options,
        onToolsChanged: (server) => {
          this.options.onToolsChanged?.(server);
          for (const listener of this.listeners) listener(server);
        },
      });
      this.connections.set(name, { connection, key: JSON.stringify(config) });
    }
  }

  /** Listens for `list_changed` from any server; returns a function that stops listening. */
  onToolsChanged(listener: (server: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  connection(name: string): McpConnection | undefined {
    return this.connections.get(name)?.connection;
  }

  /** Names of the configured servers (valid entries), sorted. */
  serverNames(): string[] {
    return [...this.connections.keys()].sort();
  }

  /**
   * Lists every enabled server's tools (or only the `only` servers': the others are not started) and builds
   * the Tools. `reserved`: names already taken (built-ins).
   */
  async discover(
    reserved: ReadonlySet<string> = new Set(),
    only?: ReadonlySet<string>,
  ): Promise<McpDiscovery> {
    const entries = [...this.connections.values()]
      .map((e) => e.connection)
      .filter((c) => c.config.enabled && (!only || only.has(c.name)));
    const warnings: string[] = [];
    const listed = await Promise.all(
      entries.map(async (c) => {
        try {
          return { connection: c, tools: await c.listTools() };
        } catch (error) {
          // Connection errors already name the server.
          const message = (error as Error).message;
          const named = message.startsWith(`MCP server ${c.name} `)
            ? message
            : `MCP server ${c.name}: ${message}`;
          warnings.push(`${named}; its tools are left out`);
          return { connection: c, tools: [] as McpToolInfo[] };
        }
      }),
    );
    const infos = new Map<string, McpToolInfo>();
    const routes: McpRoute[] = [];
    for (const { connection, tools } of listed) {
      this.counts.set(connection.name, tools.length);
      for (const info of tools) {
        const key = `${connection.name}\u0000${info.name}`;
        if (infos.has(key)) continue; // a server listing a name twice: the first wins
        infos.set(key, info);
        routes.push({ server: connection.name, tool: info.name });
      }
    }
    const table = assignPublicNames(routes, reserved);
    const tools: Tool[] = [];
    const call = (route: McpRoute, args: Record<string, unknown>, signal: AbortSignal) =>
      this.call(route, args, signal);
    const cache = new Map<string, { tool: Tool; warning?: string }>();
    for (const [name, route] of table) {
      const info = infos.get(`${route.server}\u0000${route.tool}`)!;
      const key = `${name}\u0000${route.server}\u0000${route.tool}\u0000${JSON.stringify(info)}`;
      let entry = this.toolCache.get(key);
      if (!entry) {
        let parameters = normalizeInputSchema(info.inputSchema);
        const problem = this.validator.schemaProblem(parameters);
        let warning: string | undefined;
        if (problem) {
          warning = `MCP tool ${route.tool} of server ${route.server}: its input schema was replaced by an open object schema (${problem})`;
          parameters = { type: "object", additionalProperties: true };
        }
        entry = { tool: createMcpTool(name, route, info, call, parameters), ...(warning ? { warning } : {}) };
      }
      cache.set(key, entry);
      if (entry.warning) warnings.push(entry.warning);
      tools.push(entry.tool);
    }
    this.toolCache = cache;
    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const w of warnings) this.options.logger?.warn(w);
    return { tools, routes: table, servers: this.status(), warnings };
  }

  /** Forgets every server's cached tool list: the next discovery asks each server again. */
  forgetTools(): void {
    for (const { connection } of this.connections.values()) connection.forgetTools();
  }

  /** Every configured server, valid or not, sorted by name. */
  status(): McpServerStatus[] {
    const out: McpServerStatus[] = [];
    for (const { connection } of this.connections.values()) {
      const status: McpServerStatus = {
        name: connection.name,
        type: connection.config.type,
        state: connection.state,
        toolCount: this.counts.get(connection.name) ?? 0,
        restarts: connection.restarts,
      };
      if (connection.lastError && connection.state !== "ready") status.error = connection.lastError;
      out.push(status);
    }
    for (const p of this.problems)
      out.push({
        name: p.server,
        type: p.type ?? "unknown",
        state: "invalid",
        toolCount: 0,
        error: p.message,
        restarts: 0,
      });
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Calls a routed tool; every failure is a result. */
  async call(route: McpRoute, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    const connection = this.connection(route.server);
    const name = `${route.tool} (MCP server ${route.server})`;
    if (!connection)
      return resultFromThrown(new Error(`MCP server ${route.server} is no longer configured`), name, signal);
    try {
      const result = await connection.callTool(route.tool, args, signal);
      return mcpResultToToolResult(route.tool, result, this.options.contentLimits ?? DEFAULT_CONTENT_LIMITS);
    } catch (error) {
      return resultFromThrown(error, name, signal);
    }
  }

  /** Stops every server. */
  async close(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((e) => e.connection.close()));
  }
}
