/**
 * @module config/trust
 * A workspace's own `.toolgate/config.toml` before the user trusts it: the security settings
 * (`security-keys.json`: hosts web tools may reach, variables passed to commands, where credentials and the
 * conversation go, the sandbox, the audit file) are dropped, and so are `[files] protected` entries that take
 * protection away (`!.git`); everything else applies.
 */

import { HOOK_KEYS } from "./hooks-schema.js";
import { CONFIG_SCHEMA, type ToolgateConfig } from "./schema.js";
import SECURITY from "./security-keys.json" with { type: "json" };

/** `section.key` or `section.*`: the settings an untrusted workspace config cannot set. */
export const SECURITY_KEYS: readonly string[] = Object.freeze(checkedKeys(SECURITY.keys));

/** Every entry must name a section (and key) of the schema: a misspelt entry would protect nothing. */
export function checkedKeys(keys: readonly string[]): string[] {
  const sections = CONFIG_SCHEMA.shape as unknown as Record<string, { unwrap(): { shape: object } }>;
  for (const entry of keys) {
    const [section = "", key = ""] = entry.split(".");
    const shape = Object.hasOwn(sections, section) ? sections[section]!.unwrap().shape : undefined;
    if (!shape || (key !== "*" && !Object.hasOwn(shape, key)))
      throw new Error(`security-keys.json: ${JSON.stringify(entry)} names no setting of the config schema`);
  }
  return [...keys];
}

function isSecurityKey(section: string, key: string, keys: readonly string[]): boolean {
  return keys.includes(`${section}.${key}`) || keys.includes(`${section}.*`);
}

/**
 * A `[files] protected` entry that takes protection away: a gitignore negation (`!.git`, `!*`). The built-in
 * list is matched apart and never loses a path (workspace/workspace.ts); a negation can still exempt paths
 * from the config's own entries, which only trust may do. Leading blanks are allowed for, so no spelling
 * slips through.
 */
export function removesProtection(pattern: string): boolean {
  return pattern.trimStart().startsWith("!");
}

/** What an untrusted workspace's config loses. */
export interface UntrustedConfig {
  config: ToolgateConfig;
  /** The security keys dropped (`web.allow_hosts`, ...). */
  ignored: string[];
  /** The `[files] protected` entries dropped because they remove protection (`!.git`). */
  unprotected: string[];
}

/**
 * The config without its security settings and without `[files] protected` entries that remove protection:
 * an untrusted workspace's config can only add protection.
 * @example withoutSecurityKeys({ web: { allow_hosts: ["10.0.0.1"], timeout_ms: 5 } }) // { config: { web: { timeout_ms: 5 } }, ignored: ["web.allow_hosts"], unprotected: [] }
 */
export function withoutSecurityKeys(
  config: ToolgateConfig,
  keys: readonly string[] = SECURITY_KEYS,
): UntrustedConfig {
  const out: Record<string, Record<string, unknown>> = {};
  const ignored: string[] = [];
  const unprotected: string[] = [];
  for (const [section, table] of Object.entries(config as Record<string, Record<string, unknown>>)) {
    // Hooks are code: a workspace's own hooks, and its say on how hooks count, wait for trust.
    if (HOOK_KEYS.includes(section)) {
      ignored.push(section);
      continue;
    }
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(table ?? {})) {
      if (isSecurityKey(section, key, keys)) ignored.push(`${section}.${key}`);
      else if (section === "files" && key === "protected" && Array.isArray(value)) {
        const adds = value.filter((p) => typeof p !== "string" || !removesProtection(p));
        unprotected.push(...value.filter((p): p is string => typeof p === "string" && removesProtection(p)));
        kept[key] = adds;
      } else kept[key] = value;
    }
    if (Object.keys(kept).length > 0) out[section] = kept;
  }
  return { config: out as ToolgateConfig, ignored, unprotected };
}
