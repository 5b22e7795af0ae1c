/**
 * @module tool-source
 * The gate's one tool source: the host's tools (built-ins and what the host registers) plus the project's
 * MCP pool (the root's `.mcp.json` servers and the coordination tools), as immutable generations. A change
 * — a tool registered, `.mcp.json` edited, a server's `list_changed`, a server set through the API — makes a
 * new generation; the old one stays as it was, so a call keeps the generation it started with. Nothing else
 * swaps tools under the pipeline. One root (a gate has one), one generation counter, one registry per
 * generation; below it only the MCP client pool (`McpClientPool` → `McpConnection`).
 *
 * The MCP client code (and with it the MCP SDK) is loaded only when asked for: a call of a host tool with no
 * complete pool built yet uses the host's tools alone, and a call of `mcp__<server>__<tool>` starts only the
 * servers that name can belong to. Concurrent asks share one build.
 */
import { resolve as resolvePath } from "node:path";
import {
  type AgentRunner,
  type AgentWhitelist,
  COORDINATION_TOOLS,
  createListAvailableAgentsTool,
  createSpawnAgentsTool,
  loadAgentDefinitions,
  type Resolution,
  resolveTools,
} from "./agents/index.js";
import type { Logger, Tool } from "./core/index.js";
import { ConfigError, ToolRegistry } from "./core/index.js";
import type { McpClientPool, McpServerConfig, McpServerStatus } from "./mcp-client/index.js";
import { type FileTrust, untrustedReason } from "./workspace/index.js";

/** One generation of the gate's tools. Nothing changes it after it is made. */
export interface ToolGeneration {
  /** Increases with every generation of this gate. */
  readonly number: number;
  /** The tools of this generation. Read it; never register into it (use `gate.register`). */
  readonly registry: ToolRegistry;
  /** Every tool name, sorted (code-point order). */
  readonly names: readonly string[];
  /** The project's MCP servers as the pool last saw them (empty when no pool is used yet). */
  readonly servers: readonly McpServerStatus[];
  /** What the pool's build reported (servers that failed, tools left out). */
  readonly warnings: readonly string[];
  /**
   * Set when only some servers were listed (a call of one `mcp__…` name before any complete listing): the
   * servers listed. Absent when the generation holds every server's tools or no pool is used.
   */
  readonly partial?: readonly string[];
}

/**
 * Answers whether an MCP file (absolute path) with content of this sha256 may start its servers: a boolean,
 * or the trust list's answer (which says why not).
 */
export type McpFileTrust = (file: string, sha256: string) => boolean | FileTrust;

export interface ToolSourceOptions {
  /** The host's tools: built-ins and registered tools. They win over a pool tool of the same name. */
  host: ToolRegistry;
  /** The project root whose `.mcp.json` the pool reads. */
  root: string;
  /** Whether the project's MCP pool joins the tools (`attach` turns it on later). */
  mcp: boolean;
  /** Whether each of the workspace's MCP files may start its servers (checked on the bytes read). */
  trusted: McpFileTrust;
  /** Throws when the policy refuses a pool tool (the check `register` does for host tools). */
  admit(tool: Tool): void;
  logger: Logger;
}

/** What the last listing of the project's servers found. */
interface Listing {
  tools: readonly Tool[];
  servers: readonly McpServerStatus[];
  warnings: readonly string[];
  partial?: readonly string[];
}

type McpClient = typeof import("./mcp-client/index.js");

/**
 * @example
 * const source = new ToolSource({ host, root, mcp: true, trusted: () => true, admit, logger });
 * const generation = await source.forCall("mcp__files__read_text_file");
 * await executeCall({ ...deps, registry: generation.registry }, call);
 */
export class ToolSource {
  private client: Promise<{ mcp: McpClient; pool: McpClientPool }> | undefined;
  private listing: Listing | undefined;
  private building: Promise<ToolGeneration> | undefined;
  /** Set by `list_changed`, `setServer` and `invalidate`: the next ask lists the servers again. */
  private dirty = true;
  /** The MCP files as the last listing read them, and the host's version then. */
  private readonly seen: { stamp?: string; hash?: string; host?: number; partialFor?: string } = {};
  private readonly overrides = new Map<string, McpServerConfig | null>();
  private readonly coordination: readonly Tool[];
  private generation: ToolGeneration;
  private hostVersion = -1;
  private counter = 0;
  private runner: AgentRunner | undefined;
  private mcp: boolean;
  /** A pool tool's policy verdict, decided (and warned about) once per tool object. */
  private readonly refused = new WeakMap<Tool, string | null>();
  /** Pool tools whose schema a generation's registry already accepted (checked once). */
  private readonly checked = new WeakSet<Tool>();

  /** The project root, absolute. */
  private readonly root: string;

  constructor(private readonly options: ToolSourceOptions) {
    this.root = resolvePath(options.root);
    this.mcp = options.mcp;
    this.coordination = this.coordinationTools();
    this.generation = this.compose();
  }

  /** The generation in force; a tool registered since the last one makes a new one first. */
  get current(): ToolGeneration {
    if (this.options.host.version !== this.hostVersion) this.generation = this.compose();
    return this.generation;
  }

  /** Every tool: the project's pool is listed (or listed again, when it changed) and a new generation made. */
  async full(): Promise<ToolGeneration> {
    if (!this.mcp) return this.current;
    return this.refresh(undefined);
  }

  /**
   * The generation a call of `name` runs against. Once every server was listed, the pool is kept fresh
   * (a cheap check of `.mcp.json`); before that, a host tool needs no server and `mcp__…` only its own.
   */
  async forCall(name: unknown): Promise<ToolGeneration> {
    if (!this.mcp) return this.current;
    if (this.listing && this.listing.partial === undefined) return this.full();
    if (typeof name === "string" && this.options.host.has(name)) return this.current;
    if (typeof name === "string" && name.startsWith("mcp__")) return this.refresh(name);
    return this.full();
  }

  /** Resolves an agent's tools (by name in `.toolgate/agents/`, or a definition) among every tool, at `depth`. */
  async resolveAgent(agent: string | AgentWhitelist, depth = 0): Promise<Resolution> {
    const { names } = await this.full();
    let definition: AgentWhitelist;
    if (typeof agent === "string") {
      const { agents } = await loadAgentDefinitions(this.root);
      const found = agents.find((a) => a.name === agent);
      if (!found)
        throw new ConfigError(
          `agent ${JSON.stringify(agent)} is not defined in ${this.root}/.toolgate/agents`,
        );
      definition = found;
    } else definition = agent;
    return resolveTools(definition, depth, names);
  }

  /** Turns the project's pool on (if it was off) and sets the runner `spawn_agents` uses. */
  attach(runner?: AgentRunner): void {
    this.mcp = true;
    this.setAgentRunner(runner);
  }

  /** The runner `spawn_agents` uses (the agent loop sets it once it has a model); read at call time. */
  setAgentRunner(runner: AgentRunner | undefined): void {
    this.runner = runner;
  }

  /**
   * Adds, replaces (`config`) or removes (`null`) a server through the API, over the project's files;
   * validated like a file's entry (a bad one throws, naming it). The next ask lists the servers again.
   */
  async setServer(name: string, config: unknown | null): Promise<void> {
    const { mcp } = await this.loadClient();
    const normalized =
      config === null
        ? null
        : mcp.normalizeServerConfig(name, config, "MCP server set through the API", {
            baseDir: this.root,
          });
    this.overrides.set(name, normalized);
    this.dirty = true;
  }

  /** Forgets the servers' tool lists: the next ask lists every server again. */
  invalidate(): void {
    this.dirty = true;
    if (this.client) void this.client.then(({ pool }) => pool.forgetTools());
  }

  /** Stops the pool's MCP servers. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.listing = undefined;
    this.dirty = true;
    if (client) await (await client).pool.close();
  }

  /**
   * The generation after listing the servers when anything changed since the last listing (or when the last
   * one was partial and `tool` needs another server); else the current one.
   */
  private async refresh(tool: string | undefined): Promise<ToolGeneration> {
    if (this.building) return this.building;
    const listing = this.listing;
    const fits =
      listing !== undefined &&
      (listing.partial === undefined || (tool !== undefined && this.seen.partialFor === tool));
    if (
      fits &&
      !this.dirty &&
      this.seen.host === this.options.host.version &&
      (await (await this.loadClient()).mcp.filesUnchanged(this.root, this.seen))
    )
      return this.current;
    // A listing may have started while we looked at the files.
    if (this.building) return this.building;
    const building = this.list(listing && !listing.partial ? undefined : tool);
    this.building = building;
    try {
      return await building;
    } finally {
      if (this.building === building) this.building = undefined;
    }
  }

  /** Reads the project's servers, lists them (only `tool`'s, when given) and makes a new generation. */
  private async list(tool: string | undefined): Promise<ToolGeneration> {
    this.dirty = false;
    const { mcp, pool } = await this.loadClient();
    const host = this.options.host.version;
    const read = await mcp.readProjectServers(this.root, {
      whyUntrusted: (file, sha256) => untrustedReason(this.options.trusted(file, sha256)),
      overrides: this.overrides,
    });
    for (const w of read.warnings) this.options.logger.warn(w);
    pool.configure(read.servers, read.problems);
    const reserved = new Set([...this.options.host.names(), ...this.coordination.map((t) => t.name)]);
    const only = tool === undefined ? undefined : mcp.serversFor(tool, Object.keys(read.servers));
    // Discovery logs its own warnings (server failures, replaced schemas) through the same logger.
    const discovery = await pool.discover(reserved, only);
    Object.assign(this.seen, { stamp: read.stamp, hash: read.hash, host, partialFor: tool });
    this.listing = {
      tools: discovery.tools,
      servers: Object.freeze([...pool.status(), ...read.untrusted].sort(byName)),
      warnings: [...read.warnings, ...discovery.warnings],
      ...(only ? { partial: Object.freeze([...only].sort()) } : {}),
    };
    this.generation = this.compose();
    return this.generation;
  }

  /** The MCP client code, loaded on first use, and the project's client pool. */
  private loadClient(): Promise<{ mcp: McpClient; pool: McpClientPool }> {
    this.client ??= import("./mcp-client/index.js").then((mcp) => {
      const pool = new mcp.McpClientPool({ logger: this.options.logger });
      pool.onToolsChanged(() => {
        this.dirty = true;
      });
      return { mcp, pool };
    });
    return this.client;
  }

  /** A new generation: the host's tools, then (once listed) the coordination and MCP tools the policy admits. */
  private compose(): ToolGeneration {
    const host = this.options.host;
    this.hostVersion = host.version;
    const listing = this.listing;
    const warnings = [...(listing?.warnings ?? [])];
    const registry = new ToolRegistry({
      validator: host.validator,
      logger: { warn: (m) => warnings.push(m) },
    });
    // Host tools were checked when they were registered; pool tools the first time a registry took them.
    for (const tool of host.list()) registry.register(tool, { schemaChecked: true });
    const pooled = listing ? [...this.coordination, ...listing.tools] : [];
    for (const tool of pooled) {
      if (registry.has(tool.name)) continue; // the host's own tool keeps its name
      const refusal = this.refusal(tool);
      if (refusal !== null) {
        warnings.push(refusal);
        continue;
      }
      try {
        registry.register(tool, { schemaChecked: this.checked.has(tool) });
        this.checked.add(tool);
      } catch (error) {
        warnings.push((error as Error).message);
      }
    }
    return Object.freeze({
      number: ++this.counter,
      registry,
      names: Object.freeze(registry.names()),
      servers: listing?.servers ?? [],
      warnings: Object.freeze(warnings),
      ...(listing?.partial ? { partial: listing.partial } : {}),
    });
  }

  private refusal(tool: Tool): string | null {
    let refusal = this.refused.get(tool);
    if (refusal === undefined) {
      try {
        this.options.admit(tool);
        refusal = null;
      } catch (error) {
        refusal = `tool ${tool.name} left out: ${(error as Error).message}`;
        this.options.logger.warn(refusal);
      }
      this.refused.set(tool, refusal);
    }
    return refusal;
  }

  /** `list_available_agents` and `spawn_agents`, over this root's agents and tools. */
  private coordinationTools(): readonly Tool[] {
    const source = this;
    const host = {
      root: this.root,
      agents: () => loadAgentDefinitions(this.root),
      poolNames: async () => (await this.full()).names,
      // Read at call time: a host may set its runner after the pool exists.
      get runner() {
        return source.runner;
      },
      logger: this.options.logger,
    };
    const tools = [createListAvailableAgentsTool(host), createSpawnAgentsTool(host)];
    return tools.filter((t) => COORDINATION_TOOLS.includes(t.name));
  }
}

function byName(a: McpServerStatus, b: McpServerStatus): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
