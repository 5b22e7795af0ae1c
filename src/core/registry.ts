/**
 * @module core/registry
 * The tool registry: tools keyed by name, listed alphabetically, replaced with a warning, refused at
 * registration when the name or the schema is bad. A version number lets caches (provider schemas, pools)
 * know when the set changed.
 */
import { ConfigError } from "./errors.js";
import type { Logger, Tool } from "./types.js";
import { ParamValidator } from "./validate.js";

/** Names given to models: the intersection of OpenAI, Anthropic and Gemini rules (DESIGN §7). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

export interface RegistryOptions {
  /** Receives the warning when a tool replaces another. Default: `console.warn`. */
  logger?: Logger;
  /** Compiled validators to share: a registry rebuilt from another's tools need not compile them again. */
  validator?: ParamValidator;
}

/** Listens for registry changes. */
export type RegistryListener = (event: { type: "register" | "unregister"; name: string }) => void;

/**
 * The central tool registry.
 * @example
 * const registry = new ToolRegistry();
 * registry.register(myTool);
 * registry.list().map((t) => t.name);
 */
export class ToolRegistry {
  readonly validator: ParamValidator;
  private readonly tools = new Map<string, Tool>();
  private sorted: Tool[] | undefined;
  private readonly logger: Logger;
  private readonly listeners = new Set<RegistryListener>();
  private versionCounter = 0;

  constructor(options: RegistryOptions = {}) {
    this.logger = options.logger ?? { warn: (m) => console.warn(m) };
    this.validator = options.validator ?? new ParamValidator();
  }

  /** Increases on every change; caches compare it. */
  get version(): number {
    return this.versionCounter;
  }

  get size(): number {
    return this.tools.size;
  }

  /**
   * Registers a tool; a tool with the same name is replaced (with a warning). Throws ConfigError on a bad name
   * or schema. `schemaChecked` skips the meta-schema check (compiling the meta-schema costs tens of
   * milliseconds at start-up): only for toolgate's built-in tools, whose schemas a test checks.
   */
  register(tool: Tool, options: { schemaChecked?: boolean } = {}): void {
    if (typeof tool.name !== "string" || !TOOL_NAME_PATTERN.test(tool.name)) {
      throw new ConfigError(
        `cannot register tool ${JSON.stringify(tool.name)}: a tool name must start with a letter or _, contain only letters, digits, _ and -, and be at most 64 characters`,
      );
    }
    const problem = options.schemaChecked
      ? this.validator.shapeProblem(tool.parameters)
      : this.validator.schemaProblem(tool.parameters);
    if (problem)
      throw new ConfigError(`cannot register tool ${tool.name}: its parameter schema is invalid: ${problem}`);
    if (this.tools.has(tool.name))
      this.logger.warn(`tool ${tool.name} was registered again; the new definition replaces the old one`);
    this.tools.set(tool.name, tool);
    this.changed("register", tool.name);
  }

  /** Removes a tool; returns whether it was there. */
  unregister(name: string): boolean {
    const had = this.tools.delete(name);
    if (had) this.changed("unregister", name);
    return had;
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** All tools, sorted by name (code-point order, stable across calls). The array is shared: do not mutate. */
  list(): readonly Tool[] {
    if (!this.sorted) this.sorted = [...this.tools.values()].sort((a, b) => compareNames(a.name, b.name));
    return this.sorted;
  }

  names(): string[] {
    return this.list().map((t) => t.name);
  }

  onChange(listener: RegistryListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(type: "register" | "unregister", name: string): void {
    this.sorted = undefined;
    this.versionCounter++;
    for (const listener of this.listeners) listener({ type, name });
  }
}

/** Code-point order: deterministic regardless of locale. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
