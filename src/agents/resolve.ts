/**
 * @module agents/resolve
 * ResolveTools: an agent's whitelist (exact names, globs, `*`) against a project's pool, with the sub-agent
 * restrictions on coordination tools and `max_depth`. Never fails as a whole: an entry that matches nothing
 * is a warning naming the agent and the entry. The result is a frozen scope, fixed for one execution.
 */
import {
  compileToolPattern,
  type Logger,
  matchSorted,
  type ToolPattern,
  type ToolScope,
} from "../core/index.js";
import { type AgentDefinition, DEFAULT_MAX_DEPTH } from "./definitions.js";

export const SPAWN_AGENTS = "spawn_agents";
export const LIST_AVAILABLE_AGENTS = "list_available_agents";
/** Tools that start or list other agents; restricted for sub-agents. */
export const COORDINATION_TOOLS: readonly string[] = [LIST_AVAILABLE_AGENTS, SPAWN_AGENTS];

/** The agent fields resolution reads. */
export type AgentWhitelist = Pick<AgentDefinition, "name" | "tools"> & { maxDepth?: number };

/** What resolution produced. */
export interface Resolution {
  /** Resolved names, sorted (code-point order). */
  tools: string[];
  warnings: string[];
  /** Frozen; built once per execution. */
  scope: ToolScope;
}

/**
 * Resolves `agent`'s tools at `depth` (0 = the top-level agent) against `poolNames`.
 * @param poolNames every tool of the project's pool, sorted in code-point order
 * @param logger receives each warning
 * @example
 * resolveTools({ name: "researcher", tools: ["entities_*", "spawn_agents"] }, 1, pool.names).tools
 */
export function resolveTools(
  agent: AgentWhitelist,
  depth: number,
  poolNames: readonly string[],
  logger?: Logger,
): Resolution {
  const maxDepth = agent.maxDepth ?? DEFAULT_MAX_DEPTH;
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    logger?.warn(message);
  };
  const picked = new Set<string>();
  const explicit = new Set<string>();
  let poolSet: Set<string> | undefined;
  for (const entry of agent.tools) {
    let pattern: ToolPattern;
    try {
      pattern = compileToolPattern(entry);
    } catch (error) {
      warn(`agent ${agent.name}: tool entry ${JSON.stringify(entry)} skipped: ${(error as Error).message}`);
      continue;
    }
    if (pattern.type === "any") {
      for (const name of poolNames) picked.add(name);
    } else if (pattern.type === "glob") {
      const matches = matchSorted(pattern, poolNames);
      if (matches.length === 0)
        warn(
          `agent ${agent.name}: tool pattern ${JSON.stringify(entry)} matches no tool in the pool; skipped`,
        );
      for (const name of matches) picked.add(name);
    } else if (COORDINATION_TOOLS.includes(entry)) {
      // Known names: never "not found", whether or not the pool lists them.
      explicit.add(entry);
      picked.add(entry);
    } else {
      poolSet ??= new Set(poolNames);
      if (poolSet.has(entry)) picked.add(entry);
      else warn(`agent ${agent.name}: tool ${JSON.stringify(entry)} is not in the pool; skipped`);
    }
  }
  if (depth > 0) {
    // A `*` or a glob is no opt-in: a sub-agent keeps a coordination tool only when it names it.
    for (const name of COORDINATION_TOOLS) if (!explicit.has(name)) picked.delete(name);
  }
  if (picked.has(SPAWN_AGENTS) && depth >= maxDepth) {
    picked.delete(SPAWN_AGENTS);
    warn(`agent ${agent.name}: ${SPAWN_AGENTS} removed: max depth ${maxDepth} reached (depth ${depth})`);
  }
  const tools = [...picked].sort(compare);
  return { tools, warnings, scope: createScope(tools, agent.name, depth) };
}

/** A scope whose name set cannot be changed after creation, not even through a cast. */
export function createScope(tools: Iterable<string>, agent?: string, depth = 0): ToolScope {
  const scope: ToolScope = {
    tools: new FrozenNameSet(tools),
    depth,
    ...(agent === undefined ? {} : { agent }),
  };
  return Object.freeze(scope);
}

class FrozenNameSet implements ReadonlySet<string> {
  readonly #names: Set<string>;
  constructor(names: Iterable<string>) {
    this.#names = new Set(names);
    Object.freeze(this);
  }
  get size(): number {
    return this.#names.size;
  }
  has(name: string): boolean {
    return this.#names.has(name);
  }
  forEach(fn: (value: string, key: string, set: ReadonlySet<string>) => void, thisArg?: unknown): void {
    for (const name of this.#names) fn.call(thisArg, name, name, this);
  }
  entries(): SetIterator<[string, string]> {
    return this.#names.entries();
  }
  keys(): SetIterator<string> {
    return this.#names.keys();
  }
  values(): SetIterator<string> {
    return this.#names.values();
  }
  [Symbol.iterator](): SetIterator<string> {
    return this.#names.values();
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
