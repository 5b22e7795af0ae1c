/**
 * @module core/schemas/cache
 * `SchemaCache`: a registry's provider payloads, computed once per provider (and per scope) and kept until
 * the registry's version changes. Each tool's lowering is also kept per tool object, so registering one
 * tool re-lowers only that tool.
 */

import { deepFreeze } from "../../utils/index.js";
import type { ToolRegistry } from "../registry.js";
import type { Tool } from "../types.js";
import { type LoweredTool, lowerTool, wrapTools } from "./lower.js";
import { assertProviderName, type LoweringResult, type ProviderName } from "./types.js";

/**
 * Cached provider schemas for one registry. Results are frozen and shared: do not mutate them.
 * @example
 * const schemas = new SchemaCache(registry);
 * schemas.get("openai").tools;                 // computed
 * schemas.get("openai").tools;                 // same object, until registry.register/unregister
 * schemas.get("anthropic", ["read_file"]);     // only the tools of a scope
 */
export class SchemaCache {
  private seenVersion: number;
  private readonly results = new Map<string, LoweringResult>();
  private readonly texts = new Map<string, string>();
  private readonly perTool = new WeakMap<Tool, Map<ProviderName, LoweredTool>>();

  constructor(private readonly registry: ToolRegistry) {
    this.seenVersion = registry.version;
  }

  /**
   * The payload for `provider`, for every registered tool or only those named in `scope` (names not
   * registered are ignored). Throws ConfigError for an unknown provider.
   */
  get<P extends ProviderName>(provider: P, scope?: Iterable<string>): LoweringResult<P>;
  get(provider: string, scope?: Iterable<string>): LoweringResult;
  get(provider: string, scope?: Iterable<string>): LoweringResult {
    const name = assertProviderName(provider);
    const key = this.key(name, scope);
    let result = this.results.get(key);
    if (!result) {
      const wanted = scope === undefined ? undefined : new Set(scope);
      const tools = this.registry.list().filter((t) => wanted === undefined || wanted.has(t.name));
      const lowered = tools.map((t) => this.lowered(t, name));
      result = deepFreeze({ tools: wrapTools(name, lowered), report: lowered.flatMap((t) => t.report) });
      this.results.set(key, result);
    }
    return result;
  }

  /** `JSON.stringify` of {@link get}'s `tools`, cached too: byte-identical while the registry is unchanged. */
  json(provider: string, scope?: Iterable<string>): string {
    const key = this.key(assertProviderName(provider), scope);
    let text = this.texts.get(key);
    if (text === undefined) {
      text = JSON.stringify(this.get(provider, scope).tools);
      this.texts.set(key, text);
    }
    return text;
  }

  /** How many payloads are held now (for tests and diagnostics). */
  get size(): number {
    this.checkVersion();
    return this.results.size;
  }

  /** Forgets everything. */
  clear(): void {
    this.results.clear();
    this.texts.clear();
  }

  private key(provider: ProviderName, scope: Iterable<string> | undefined): string {
    this.checkVersion();
    if (scope === undefined) return provider;
    return `${provider}\n${[...new Set(scope)].sort().join("\n")}`;
  }

  private checkVersion(): void {
    if (this.registry.version === this.seenVersion) return;
    this.seenVersion = this.registry.version;
    this.clear();
  }

  private lowered(tool: Tool, provider: ProviderName): LoweredTool {
    let byProvider = this.perTool.get(tool);
    if (!byProvider) {
      byProvider = new Map();
      this.perTool.set(tool, byProvider);
    }
    let lowered = byProvider.get(provider);
    if (!lowered) {
      lowered = deepFreeze(lowerTool(tool, provider));
      byProvider.set(provider, lowered);
    }
    return lowered;
  }
}
