/**
 * @module tool-source
 * The gate's one tool source: the host's tools (built-ins and what the host registers) plus the project's
 * MCP pool (`.mcp.json` servers and the coordination tools), as immutable generations. A change — a tool
 * registered, `.mcp.json` edited, a server's `list_changed` — makes a new generation; the old one stays as
 * it was, so a call keeps the generation it started with. Nothing else swaps tools under the pipeline.
 *
 * The pool (and with it the MCP SDK) is loaded only when asked for: a call of a host tool with no complete
 * pool built yet uses the host's tools alone, and a call of `mcp__<server>__<tool>` starts only the servers
 * that name can belong to.
 */
// The agents front door loads no MCP code: the pools (and the MCP client) load in `createToolPools`.
import {
  type AgentRunner,
  type AgentWhitelist,
  createToolPools,
  loadAgentDefinitions,
  type McpFileTrust,
  type Resolution,
  resolveTools,
  type ToolPool,
  type ToolPools,
} from "./agents/index.js";
import type { Logger, Tool } from "./core/index.js";
import { ConfigError, ToolRegistry } from "./core/index.js";
import type { McpServerStatus } from "./mcp/index.js";

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

/**
 * @example
 * const source = new ToolSource({ host, root, mcp: true, trusted: () => true, admit, logger });
 * const generation = await source.forCall("mcp__files__read_text_file");
 * await executeCall({ ...deps, registry: generation.registry }, call);
 */
export class ToolSource {
  private pools: Promise<ToolPools> | undefined;
  private pool: ToolPool | undefined;
  private generation: ToolGeneration;
  private hostVersion = -1;
  private counter = 0;
  private runner: AgentRunner | undefined;
  /** A pool tool's policy verdict, decided (and warned about) once per tool object. */
  private readonly refused = new WeakMap<Tool, string | null>();

  private mcp: boolean;

  constructor(private readonly options: ToolSourceOptions) {
    this.mcp = options.mcp;
    this.generation = this.compose(undefined);
  }

  /** The generation in force; a tool registered since the last one makes a new one first. */
  get current(): ToolGeneration {
    if (this.options.host.version !== this.hostVersion) this.generation = this.compose(this.pool);
    return this.generation;
  }

  /** Every tool: the project's pool is built (or rebuilt, when it changed) and a new generation adopted. */
  async full(): Promise<ToolGeneration> {
    if (!this.mcp) return this.current;
    return this.adopt(await (await this.loadPools()).get(this.options.root));
  }

  /**
   * The generation a call of `name` runs against. Once every server was listed, the pool is kept fresh
   * (a cheap check of `.mcp.json`); before that, a host tool needs no server and `mcp__…` only its own.
   */
  async forCall(name: unknown): Promise<ToolGeneration> {
    if (!this.mcp) return this.current;
    if (this.pool && this.pool.partial === undefined) return this.full();
    if (typeof name === "string" && this.options.host.has(name)) return this.current;
    if (typeof name === "string" && name.startsWith("mcp__"))
      return this.adopt(await (await this.loadPools()).get(this.options.root, { tool: name }));
    return this.full();
  }

  /** Resolves an agent's tools (by name in `.toolgate/agents/`, or a definition) among every tool, at `depth`. */
  async resolveAgent(agent: string | AgentWhitelist, depth = 0): Promise<Resolution> {
    const { names } = await this.full();
    let definition: AgentWhitelist;
    if (typeof agent === "string") {
      const { agents } = await loadAgentDefinitions(this.options.root);
      const found = agents.find((a) => a.name === agent);
      if (!found)
        throw new ConfigError(
          `agent ${JSON.stringify(agent)} is not defined in ${this.options.root}/.toolgate/agents`,
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

  /** The runner `spawn_agents` uses (the agent loop sets it once it has a model). */
  setAgentRunner(runner: AgentRunner | undefined): void {
    this.runner = runner;
    if (this.pools) void this.pools.then((p) => p.setRunner(runner));
  }

  /** Stops the pool's MCP servers. */
  async close(): Promise<void> {
    const pools = this.pools;
    this.pools = undefined;
    if (pools) await (await pools).close();
  }

  private loadPools(): Promise<ToolPools> {
    this.pools ??= createToolPools({
      builtins: this.options.host,
      logger: this.options.logger,
      trusted: this.options.trusted,
      ...(this.runner ? { runner: this.runner } : {}),
    });
    return this.pools;
  }

  private adopt(pool: ToolPool): ToolGeneration {
    if (pool === this.pool && this.options.host.version === this.hostVersion) return this.generation;
    this.pool = pool;
    this.generation = this.compose(pool);
    return this.generation;
  }

  private compose(pool: ToolPool | undefined): ToolGeneration {
    const host = this.options.host;
    this.hostVersion = host.version;
    const warnings = [...(pool?.warnings ?? [])];
    const registry = new ToolRegistry({
      validator: host.validator,
      logger: { warn: (m) => warnings.push(m) },
    });
    // Host tools were checked when they were registered; pool tools when their build accepted them.
    for (const tool of host.list()) registry.register(tool, { schemaChecked: true });
    for (const tool of pool?.added ?? []) {
      if (registry.has(tool.name)) continue; // the host's own tool keeps its name
      const refusal = this.refusal(tool);
      if (refusal !== null) {
        warnings.push(refusal);
        continue;
      }
      registry.register(tool, { schemaChecked: true });
    }
    return Object.freeze({
      number: ++this.counter,
      registry,
      names: Object.freeze(registry.names()),
      servers: pool?.servers ?? [],
      warnings: Object.freeze(warnings),
      ...(pool?.partial ? { partial: pool.partial } : {}),
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
}
