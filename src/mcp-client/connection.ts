/**
 * @module mcp-client/connection
 * One external MCP server: starting it (stdio child or streamable HTTP), listing its tools across every page,
 * calling a tool with a hard timeout, capturing its stderr, and restarting it with backoff after it crashed.
 * A call never hangs: the SDK's request timeout and the caller's AbortSignal bound it.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Logger } from "../core/index.js";
import { ToolFailure } from "../core/index.js";
import { TOOLGATE_VERSION } from "../utils/index.js";
import type { McpServerConfig } from "./config.js";
import type { McpCallResult } from "./content.js";
import { clientSdk } from "./sdk.js";
import { ChildStdioTransport } from "./stdio-transport.js";

/** Where a server is in its life. */
export type McpServerState = "disabled" | "idle" | "starting" | "ready" | "failed" | "crashed";

/** A tool as a server lists it: the fields toolgate reads, and every other field kept as listed. */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string; [k: string]: unknown };
  _meta?: Record<string, unknown>;
  [k: string]: unknown;
}

export interface ConnectionOptions {
  /** Receives warnings (crashes, restarts) and, at debug level, each stderr line. */
  logger?: Logger;
  /** Called with each stderr line of a stdio server. */
  onStderr?: (server: string, line: string) => void;
  /** Called when the server says its tool list changed (`notifications/tools/list_changed`). */
  onToolsChanged?: (server: string) => void;
  /** Lines of stderr kept per server. Default 200. */
  stderrLines?: number;
  /** Largest single message accepted from a stdio server (bytes). Default 64 MB. */
  maxMessageBytes?: number;
  /** Longest wait for the health check after a timed-out call (ms). Default 2,000. */
  pingTimeoutMs?: number;
  /** Longest wait for a server to start and initialize (ms). Default: the larger of its timeout and 30 s. */
  startTimeoutMs?: number;
}

const MAX_PAGES = 10_000;
const MAX_BACKOFF_MS = 30_000;
/** Stderr lines quoted when a server exits. */
const STDERR_TAIL = 5;

/**
 * A managed connection to one server. Created idle; the first use starts it.
 * @example
 * const conn = new McpConnection("files", config);
 * const tools = await conn.listTools();
 * const result = await conn.callTool("read", { path: "a.txt" }, signal);
 */
export class McpConnection {
  private client: Client | undefined;
  private transport: Transport | undefined;
  private starting: Promise<Client> | undefined;
  private tools: Promise<McpToolInfo[]> | undefined;
  private healthCheck: Promise<void> | undefined;
  private failures = 0;
  private retryAt = 0;
  private closed = false;
  private stateValue: McpServerState;
  private errorValue: string | undefined;
  private restartCount = 0;
  private readonly stderrRing: string[] = [];
  /** How the last stdio child ended, while no newer one runs. */
  private exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly options: ConnectionOptions = {},
  ) {
    this.stateValue = config.enabled ? "idle" : "disabled";
  }

  get state(): McpServerState {
    return this.stateValue;
  }

  /** The last start or crash error, if any. */
  get lastError(): string | undefined {
    return this.errorValue;
  }

  /** How many times the server was started again after a crash or failure. */
  get restarts(): number {
    return this.restartCount;
  }

  /** The last lines the server wrote to stderr (stdio servers). */
  stderr(): readonly string[] {
    return this.stderrRing;
  }

  /** The server's tools (every page), filtered by `includeTools` / `excludeTools`; cached until list_changed. */
  listTools(): Promise<McpToolInfo[]> {
    if (!this.tools) {
      const listing = this.fetchTools();
      this.tools = listing;
      listing.catch(() => {
        if (this.tools === listing) this.tools = undefined;
      });
    }
    return this.tools;
  }

  /** Forgets the cached tool list (the next `listTools` asks the server). */
  forgetTools(): void {
    this.tools = undefined;
  }

  /**
   * Calls a tool. Resolves with the server's result; throws {@link ToolFailure} (`timeout`, `cancelled`,
   * `execution_failed`) when the server crashes, hangs past the timeout, or the caller aborts.
   */
  async callTool(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
    const client = await this.ready();
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: this.config.timeoutMs,
        signal,
      });
      this.failures = 0;
      return result as McpCallResult;
    } catch (error) {
      if (signal.aborted)
        throw new ToolFailure("cancelled", `the call to ${tool} on MCP server ${this.name} was cancelled`);
      // Loaded already: the client that failed came from it.
      const { ErrorCode, McpError } = (await clientSdk()).types;
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        this.checkHealth(client);
        throw new ToolFailure(
          "timeout",
          `MCP server ${this.name} did not answer the call to ${tool} within ${this.config.timeoutMs} ms`,
          { elapsedMs: this.config.timeoutMs },
        );
      }
      if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
        const how = this.exitReport();
        throw new ToolFailure(
          "execution_failed",
          `MCP server ${this.name} stopped during the call to ${tool}${how ? ` (${how})` : ""}; it will be restarted on next use`,
        );
      }
      throw new ToolFailure(
        "execution_failed",
        `MCP server ${this.name} failed the call to ${tool}: ${(error as Error).message}`,
      );
    }
  }

  /** Stops the server for good. */
  async close(): Promise<void> {
    this.closed = true;
    this.tools = undefined;
    await this.stop();
  }

  /** The connected client, starting (or restarting, after the backoff) the server when needed. */
  private async ready(): Promise<Client> {
    if (this.healthCheck) await this.healthCheck;
    if (this.client) return this.client;
    if (this.closed) throw new ToolFailure("execution_failed", `MCP server ${this.name} is closed`);
    if (!this.config.enabled)
      throw new ToolFailure("execution_failed", `MCP server ${this.name} is disabled`);
    if (!this.starting) {
      const wait = this.retryAt - Date.now();
      if (wait > 0) {
        throw new ToolFailure(
          "execution_failed",
          `MCP server ${this.name} is unavailable (${this.errorValue ?? "it failed"}); next start attempt in ${Math.ceil(wait / 1000)} s`,
        );
      }
      if (this.failures > 0) this.restartCount++;
      const starting = this.start();
      this.starting = starting;
      starting.then(
        () => {
          this.starting = undefined;
        },
        () => {
          this.starting = undefined;
        },
      );
    }
    return this.starting;
  }

  private async start(): Promise<Client> {
    this.stateValue = "starting";
    this.exited = undefined;
    const sdk = await clientSdk();
    const transport = this.createTransport(sdk);
    const client = new sdk.Client({ name: "toolgate", version: TOOLGATE_VERSION }, { capabilities: {} });
    client.setNotificationHandler(sdk.types.ToolListChangedNotificationSchema, async () => {
      if (this.client !== client) return;
      this.tools = undefined;
      this.options.onToolsChanged?.(this.name);
    });
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.transport = undefined;
      if (this.closed) return;
      const how = this.exitReport();
      this.markFailed("crashed", `the server stopped unexpectedly${how ? ` (${how})` : ""}`);
      this.options.logger?.warn(
        `MCP server ${this.name} stopped unexpectedly${how ? ` (${how})` : ""}; it will be restarted on next use`,
      );
    };
    try {
      await client.connect(transport, {
        timeout: this.options.startTimeoutMs ?? Math.max(this.config.timeoutMs, 30_000),
      });
    } catch (error) {
      await transport.close().catch(() => {});
      // A child that exited says more than the SDK's "Connection closed": its exit code and last words.
      const how = this.exitReport();
      const message = how
        ? `could not start: ${how}`
        : `could not start: ${(error as Error).message}${this.stderrHint()}`;
      this.markFailed("failed", message);
      throw new ToolFailure("execution_failed", `MCP server ${this.name} ${message}`);
    }
    if (this.closed) {
      await client.close().catch(() => {});
      throw new ToolFailure("execution_failed", `MCP server ${this.name} is closed`);
    }
    this.client = client;
    this.transport = transport;
    this.stateValue = "ready";
    this.errorValue = undefined;
    return client;
  }

  private createTransport(sdk: Awaited<ReturnType<typeof clientSdk>>): Transport {
    const config = this.config;
    if (config.type === "http" || config.type === "sse") {
      const requestInit = { headers: config.headers };
      return config.type === "sse"
        ? new sdk.SSEClientTransport(new URL(config.url), { requestInit })
        : new sdk.StreamableHTTPClientTransport(new URL(config.url), { requestInit });
    }
    let partial = "";
    return new ChildStdioTransport({
      command: config.command,
      args: config.args,
      env: config.env,
      ...(config.cwd ? { cwd: config.cwd } : {}),
      maxMessageBytes: this.options.maxMessageBytes ?? 64 * 1024 * 1024,
      // Never the user's terminal: stderr goes to the ring buffer and the log.
      onStderr: (chunk) => {
        const lines = (partial + chunk.toString("utf8")).split("\n");
        partial = (lines.pop() ?? "").slice(-4000);
        for (const line of lines) this.recordStderr(line);
      },
      onExit: (code, signal) => {
        if (partial !== "") this.recordStderr(partial);
        partial = "";
        this.exited = { code, signal };
      },
    });
  }

  private recordStderr(line: string): void {
    const text = line.length > 2000 ? `${line.slice(0, 2000)}…` : line;
    this.stderrRing.push(text);
    if (this.stderrRing.length > (this.options.stderrLines ?? 200)) this.stderrRing.shift();
    this.options.onStderr?.(this.name, text);
    this.options.logger?.debug?.(`[mcp ${this.name}] ${text}`);
  }

  /** How the stdio child ended and its last stderr lines, once it has exited. */
  private exitReport(): string | undefined {
    if (!this.exited) return undefined;
    const { code, signal } = this.exited;
    const how = signal ? `it was stopped by ${signal}` : `it exited with code ${code}`;
    const tail = this.stderrRing.filter((l) => l.trim() !== "").slice(-STDERR_TAIL);
    return tail.length > 0
      ? `${how}; its last stderr: ${tail.map((l) => JSON.stringify(l)).join(", ")}`
      : how;
  }

  private stderrHint(): string {
    const last = this.stderrRing.at(-1);
    return last ? ` (stderr: ${last})` : "";
  }

  private markFailed(state: "failed" | "crashed", message: string): void {
    this.failures++;
    this.stateValue = state;
    this.errorValue = message;
    // The first restart is immediate; then 1 s, 2 s, 4 s ... up to 30 s between attempts.
    const delay = this.failures <= 1 ? 0 : Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (this.failures - 2));
    this.retryAt = Date.now() + delay;
  }

  /** After a timeout: a server that cannot even answer a ping is wedged; stop it so the next use restarts it. */
  private checkHealth(client: Client): void {
    if (this.healthCheck) return;
    const timeout = Math.min(this.options.pingTimeoutMs ?? 2000, this.config.timeoutMs);
    this.healthCheck = client
      .ping({ timeout })
      .then(
        () => undefined,
        async () => {
          if (this.client !== client) return;
          this.options.logger?.warn(`MCP server ${this.name} stopped answering; restarting it on next use`);
          this.markFailed("crashed", "the server stopped answering");
          this.client = undefined;
          await this.stop(client, this.transport);
        },
      )
      .finally(() => {
        this.healthCheck = undefined;
      });
  }

  private async stop(client = this.client, transport = this.transport): Promise<void> {
    if (client === this.client) {
      this.client = undefined;
      this.transport = undefined;
    }
    if (transport instanceof ChildStdioTransport && transport.pid) {
      // A wedged server ignores stdin closing; do not wait the SDK's grace period.
      try {
        process.kill(transport.pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    await client?.close().catch(() => {});
  }

  private async fetchTools(): Promise<McpToolInfo[]> {
    const client = await this.ready();
    const all: McpToolInfo[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      let result: Awaited<ReturnType<Client["listTools"]>>;
      try {
        result = await client.listTools(cursor === undefined ? {} : { cursor }, {
          timeout: this.config.timeoutMs,
        });
      } catch (error) {
        throw new ToolFailure(
          "execution_failed",
          `MCP server ${this.name} failed to list its tools: ${(error as Error).message}`,
        );
      }
      for (const tool of result.tools) all.push(tool as McpToolInfo);
      cursor = result.nextCursor;
      if (cursor === undefined || cursor === "") break;
      if (seen.has(cursor))
        throw new ToolFailure(
          "execution_failed",
          `MCP server ${this.name} repeated the page cursor ${JSON.stringify(cursor)}`,
        );
      seen.add(cursor);
    }
    this.failures = 0;
    return filterTools(all, this.config);
  }
}

function filterTools(tools: McpToolInfo[], config: McpServerConfig): McpToolInfo[] {
  const include = config.includeTools ? new Set(config.includeTools) : undefined;
  const exclude = new Set(config.excludeTools ?? []);
  return tools.filter((t) => (!include || include.has(t.name)) && !exclude.has(t.name));
}
