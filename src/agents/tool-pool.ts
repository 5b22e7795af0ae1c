/**
 * @module agents/tool-pool
 * Per-project tool pools: the host's built-in tools, the coordination tools and every configured MCP
 * server's tools, built on first access and cached per project. Each build is a new, immutable snapshot
 * (its own registry; compiled validators are shared, not the registry). Any change to a project's MCP
 * configuration (API, `.mcp.json` on disk, `list_changed`) or to the built-ins invalidates the cache; the
 * next access rebuilds it. Concurrent accesses share one build. A build for one tool name
 * (`get(root, { tool })`) starts only the servers that name can belong to.
 */
import { resolve as resolvePath } from "node:path";
import type { Logger, Tool } from "../core/index.js";
import { ConfigError, displaySafe, ParamValidator, ToolRegistry } from "../core/index.js";
import {
  loadMcpConfig,
  McpClientPool,
  type McpClientPoolOptions,
  type McpConfigProblem,
  type McpServerConfig,
  type McpServerStatus,
  mcpConfigHash,
  mcpConfigStamp,
  normalizeServerConfig,
  type RoutingTable,
  sanitizeNamePart,
} from "../mcp/index.js";
import { type FileTrust, trustLookup, untrustedReason } from "../workspace/index.js";
import { type AgentRunner, createListAvailableAgentsTool, createSpawnAgentsTool } from "./coordination.js";
import { loadAgentDefinitions } from "./definitions.js";
import { type AgentWhitelist, COORDINATION_TOOLS, type Resolution, resolveTools } from "./resolve.js";

/** A built pool: a snapshot. A later change builds a new one; this one stays as it was. */
export interface ToolPool {
  readonly root: string;
  /**
   * Built-ins + coordination tools + MCP tools of this build, in a registry of its own that nothing changes
   * afterwards (unchanged tools keep their compiled validators across builds). Give it to the pipeline
   * (`executeCall`); a caller's scope, not the registry, fixes what one execution may call.
   */
  readonly registry: ToolRegistry;
  /** The tools this pool adds to the built-ins: coordination tools and MCP tools, sorted by name. */
  readonly added: readonly Tool[];
  /**
   * Set when the build listed only the servers one tool name can belong to (`get(root, { tool })`): the
   * servers listed. Absent for a full build.
   */
  readonly partial?: readonly string[];
  /** Every name of this build, sorted (code-point order). */
  readonly names: readonly string[];
  readonly servers: readonly McpServerStatus[];
  readonly routes: RoutingTable;
  /** Increases with every build of this project's pool. */
  readonly generation: number;
  readonly warnings: readonly string[];
}

export interface ToolPoolsOptions {
  /** The host's tools (built-ins and its own); every pool includes them. */
  builtins: ToolRegistry;
  logger?: Logger;
  /** Runs sub-agents for `spawn_agents`. Without it, `spawn_agents` answers with a clear error. */
  runner?: AgentRunner;
  /** Options for every MCP connection (stderr sink, limits, timeouts). */
  mcp?: McpClientPoolOptions;
  /** Variables `${VAR}` in `.mcp.json` expands from. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Whether one of a project's MCP files (`.mcp.json`, `.vscode/mcp.json`, …) may start its servers, given
   * the digest of the bytes read. Untrusted, they are listed as `untrusted` and never started (servers set
   * through the API still are). Default: the user's trust list, file by file (`toolgate trust`).
   */
  trusted?: McpFileTrust;
}

/**
 * Answers whether an MCP file (absolute path) with content of this sha256 may start its servers: a boolean,
 * or the trust list's answer (which says why not).
 */
export type McpFileTrust = (file: string, sha256: string) => boolean | FileTrust;

interface Project {
  root: string;
  /** The tool name a partial build was made for. */
  partialFor?: string;
  clients: McpClientPool;
  /** Servers set through the API: a config, or `null` for "removed". They override the file. */
  overrides: Map<string, McpServerConfig | null>;
  building?: Promise<ToolPool>;
  built?: ToolPool;
  dirty: boolean;
  stamp?: string;
  hash?: string;
  builtinsVersion?: number;
  generation: number;
  /** Shared by every build's registry: an unchanged tool is not compiled again. */
  validator: ParamValidator;
  /** Tools whose schema a build's registry already accepted (checked once, not on every build). */
  checked: WeakSet<Tool>;
  coordination: Tool[];
}

/**
 * @example
 * const pools = new ToolPools({ builtins: gate.registry });
 * const pool = await pools.get(process.cwd());
 * const { scope } = await pools.resolve(process.cwd(), "researcher", 0);
 * await executeCall({ ...deps, registry: pool.registry }, call, { scope });
 */
export class ToolPools {
  private readonly projects = new Map<string, Project>();
  private runner: AgentRunner | undefined;

  constructor(private readonly options: ToolPoolsOptions) {
    this.runner = options.runner;
  }

  /** Sets the runner `spawn_agents` uses from now on (a host that creates its model after the pool). */
  setRunner(runner: AgentRunner | undefined): void {
    this.runner = runner;
  }

  /**
   * The project's pool, built on first access and rebuilt after any change. With `tool`, a pool that can
   * answer for that name is enough: when no full pool is built, only the servers whose public prefix
   * (`mcp__<server>__`) the name carries are started and listed.
   */
  async get(root: string, options: { tool?: string } = {}): Promise<ToolPool> {
    const project = this.project(root);
    if (project.building) return project.building;
    const fits = (pool: ToolPool) =>
      pool.partial === undefined || (options.tool !== undefined && project.partialFor === options.tool);
    if (project.built && fits(project.built) && !project.dirty && (await this.unchanged(project)))
      return project.built;
    // A build may have started while we looked at the file.
    if (project.building) return project.building;
    const tool = project.built && !project.built.partial ? undefined : options.tool;
    const building = this.build(project, tool);
    project.building = building;
    try {
      return await building;
    } finally {
      if (project.building === building) project.building = undefined;
    }
  }

  /** Resolves an agent's tools (by name or definition) in the project's pool at `depth`. */
  async resolve(root: string, agent: string | AgentWhitelist, depth = 0): Promise<Resolution> {
    const pool = await this.get(root);
    let definition: AgentWhitelist;
    if (typeof agent === "string") {
      const { agents } = await loadAgentDefinitions(this.project(root).root);
      const found = agents.find((a) => a.name === agent);
      if (!found)
        throw new ConfigError(`agent ${JSON.stringify(agent)} is not defined in ${root}/.toolgate/agents`);
      definition = found;
    } else definition = agent;
    return resolveTools(definition, depth, pool.names, this.options.logger);
  }

  /** Adds, replaces (`config`) or removes (`null`) a server through the API; validated like the file. */
  setServer(root: string, name: string, config: unknown | null): void {
    const project = this.project(root);
    const normalized =
      config === null
        ? null
        : normalizeServerConfig(name, config, "MCP server set through the API", {
            baseDir: project.root,
            ...(this.options.env ? { env: this.options.env } : {}),
          });
    project.overrides.set(name, normalized);
    project.dirty = true;
  }

  /** Forgets the project's built pool and its servers' tool lists; the next access rediscovers everything. */
  invalidate(root: string): void {
    const project = this.projects.get(resolvePath(root));
    if (!project) return;
    project.dirty = true;
    project.clients.forgetTools();
  }

  /** The MCP servers of a project, as last built (builds when needed). */
  async servers(root: string): Promise<readonly McpServerStatus[]> {
    return (await this.get(root)).servers;
  }

  /** Stops every MCP server of every project. */
  async close(): Promise<void> {
    const all = [...this.projects.values()];
    this.projects.clear();
    await Promise.all(all.map((p) => p.clients.close()));
  }

  private project(root: string): Project {
    const key = resolvePath(root);
    let project = this.projects.get(key);
    if (!project) {
      const created: Project = {
        root: key,
        validator: new ParamValidator(),
        checked: new WeakSet(),
        coordination: [],
        clients: new McpClientPool({
          ...this.options.mcp,
          ...(this.options.logger ? { logger: this.options.logger } : {}),
        }),
        overrides: new Map(),
        dirty: true,
        generation: 0,
      };
      created.coordination = this.coordinationTools(created);
      created.clients.onToolsChanged(() => {
        created.dirty = true;
      });
      project = created;
      this.projects.set(key, project);
    }
    return project;
  }

  /**
   * True when neither `.mcp.json` nor the built-ins changed since the last build. A cheap stat first; when
   * size or mtime moved, the content hash decides (a `touch` does not rebuild).
   */
  private async unchanged(project: Project): Promise<boolean> {
    if (project.builtinsVersion !== this.options.builtins.version) return false;
    const stamp = await mcpConfigStamp(project.root);
    if (stamp === project.stamp) return true;
    if (project.hash === undefined) return false;
    if ((await mcpConfigHash(project.root)) !== project.hash) return false;
    project.stamp = stamp;
    return true;
  }

  private async build(project: Project, tool?: string): Promise<ToolPool> {
    project.dirty = false;
    const builtins = this.options.builtins;
    const builtinsVersion = builtins.version;
    const stamp = await mcpConfigStamp(project.root);
    let servers: Record<string, McpServerConfig> = {};
    let problems: McpConfigProblem[] = [];
    let hash: string | undefined;
    let origins: Record<string, string> = {};
    let digests: Record<string, string> = {};
    const warnings: string[] = [];
    try {
      const loaded = await loadMcpConfig(project.root, this.options.env ? { env: this.options.env } : {});
      servers = loaded.servers;
      problems = loaded.problems;
      hash = loaded.hash;
      origins = loaded.origins;
      digests = Object.fromEntries(loaded.sources.flatMap((s) => (s.sha256 ? [[s.file, s.sha256]] : [])));
    } catch (error) {
      // A broken file leaves the pool without MCP servers, reported; built-in tools still work.
      problems = [{ server: "(.mcp.json)", message: (error as Error).message }];
    }
    const untrusted = this.untrustedServers(servers, origins, digests);
    for (const [file, names] of untrusted.files)
      warnings.push(
        `${file} ${names.why}: not starting ${names.servers.map((n) => displaySafe(n, false)).join(", ")} (\`toolgate trust\` shows what it would start and trusts it)`,
      );
    for (const status of untrusted.servers) delete servers[status.name];
    for (const [name, config] of project.overrides) {
      if (config === null) delete servers[name];
      else servers[name] = config;
      problems = problems.filter((p) => p.server !== name);
    }
    for (const p of problems) warnings.push(p.message);
    project.clients.configure(servers, problems);
    const base: Tool[] = [...builtins.list()];
    const taken = new Set(base.map((t) => t.name));
    for (const tool of project.coordination) if (!taken.has(tool.name)) base.push(tool);
    for (const w of warnings) this.options.logger?.warn(w);
    const only = tool === undefined ? undefined : serversFor(tool, Object.keys(servers));
    // Discovery logs its own warnings (server failures, replaced schemas) through the same logger.
    const discovery = await project.clients.discover(new Set(base.map((t) => t.name)), only);
    warnings.push(...discovery.warnings);
    const registry = new ToolRegistry({
      validator: project.validator,
      logger: { warn: (m) => warnings.push(m) },
    });
    const added = [...base.filter((t) => !builtins.has(t.name)), ...discovery.tools];
    fillRegistry(registry, [...base, ...discovery.tools], project.checked, warnings);
    project.stamp = stamp;
    project.hash = hash;
    project.builtinsVersion = builtinsVersion;
    project.partialFor = tool;
    const pool: ToolPool = Object.freeze({
      root: project.root,
      registry,
      added: Object.freeze(
        added.filter((t) => registry.get(t.name) === t).sort((a, b) => (a.name < b.name ? -1 : 1)),
      ),
      ...(only ? { partial: Object.freeze([...only].sort()) } : {}),
      names: Object.freeze(registry.names()),
      servers: Object.freeze(
        [...project.clients.status(), ...untrusted.servers.filter((u) => !(u.name in servers))].sort(
          (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
        ),
      ),
      routes: discovery.routes,
      generation: ++project.generation,
      warnings: Object.freeze(warnings),
    });
    project.built = pool;
    return pool;
  }

  /**
   * The servers whose file the user has not trusted with its present content (they came with the repository,
   * or the file changed since it was trusted): listed as `untrusted`, never started. By file, with why.
   */
  private untrustedServers(
    servers: Record<string, McpServerConfig>,
    origins: Record<string, string>,
    digests: Record<string, string>,
  ): { servers: McpServerStatus[]; files: Map<string, { why: string; servers: string[] }> } {
    const out: McpServerStatus[] = [];
    const files = new Map<string, { why: string; servers: string[] }>();
    if (Object.keys(servers).length === 0) return { servers: out, files };
    const trusted = this.options.trusted ?? defaultTrust();
    const answers = new Map<string, string | undefined>();
    for (const [name, config] of Object.entries(servers)) {
      const file = origins[name] ?? name;
      if (!answers.has(file)) answers.set(file, untrustedReason(trusted(file, digests[file] ?? "")));
      const why = answers.get(file);
      if (why === undefined) continue;
      out.push({ name, type: config.type, state: "untrusted", toolCount: 0, restarts: 0 });
      const entry = files.get(file) ?? { why, servers: [] };
      entry.servers.push(name);
      files.set(file, entry);
    }
    return { servers: out, files };
  }

  private coordinationTools(project: Project): Tool[] {
    const pools = this;
    const host = {
      root: project.root,
      agents: () => loadAgentDefinitions(project.root),
      poolNames: async () => (await this.get(project.root)).names,
      // Read at call time: a host may set its runner after the pool exists.
      get runner() {
        return pools.runner;
      },
      ...(this.options.logger ? { logger: this.options.logger } : {}),
    };
    const tools = [createListAvailableAgentsTool(host), createSpawnAgentsTool(host)];
    return tools.filter((t) => COORDINATION_TOOLS.includes(t.name));
  }
}

/** Registers `tools` in a fresh registry; a tool the registry refuses is left out with a warning. */
function fillRegistry(
  registry: ToolRegistry,
  tools: readonly Tool[],
  checked: WeakSet<Tool>,
  warnings: string[],
): void {
  for (const tool of tools) {
    try {
      registry.register(tool, { schemaChecked: checked.has(tool) });
      checked.add(tool);
    } catch (error) {
      warnings.push((error as Error).message);
    }
  }
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

/** The user's trust list as it is at this build. */
function defaultTrust(): McpFileTrust {
  const lookup = trustLookup();
  return (file, sha256) => lookup.file(file, { sha256 });
}
