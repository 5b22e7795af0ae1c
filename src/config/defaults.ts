/**
 * @module config/defaults
 * The value each config key takes when the file does not set it, and the settings of a workspace with no
 * config at all — without loading the schema: zod and the schema cost ~20 ms of every start-up, and a gate
 * with nothing to validate should not pay it. The schema's `.default`s read these values, and a test holds
 * {@link defaultSettings} equal to `settingsFromConfig({})`.
 */
import { DEFAULT_LIMITS } from "../core/index.js";
import { deepFreeze, isPlainObject } from "../utils/index.js";
import type { ToolgateSettings } from "./schema.js";

/** How long an `ask` waits for an answer when `[confirm] timeout_ms` is not set: 5 minutes. */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 5 * 60_000;

/**
 * Every section of the file, each with its keys that have a default (snake_case, as written in the file).
 * Keys left out are optional: the tool that reads them has its own default.
 */
export const CONFIG_DEFAULTS = deepFreeze({
  web: { allow_hosts: [] as string[] },
  search: { backend: "duckduckgo" as const },
  shell: { env: [] as string[] },
  files: { protected: [] as string[] },
  limits: { max_chars: DEFAULT_LIMITS.maxChars, max_lines: DEFAULT_LIMITS.maxLines },
  audit: {},
  confirm: { timeout_ms: DEFAULT_CONFIRM_TIMEOUT_MS },
  jira: {},
  confluence: {},
  llm: { provider: "ollama" as const },
  planner: {},
  fleet: {},
  sandbox: { mode: "auto" as const, network: false, writable: [] as string[], hidden: [] as string[] },
});

/** `settingsFromConfig({})`: every default applied, camelCase keys; a fresh copy the caller may change. */
export function defaultSettings(): ToolgateSettings {
  return camelKeys(structuredClone(CONFIG_DEFAULTS)) as ToolgateSettings;
}

/** `{ max_chars: 1 }` → `{ maxChars: 1 }`, at every depth (arrays are kept as they are). */
export function camelKeys(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
      camelKeys(v),
    ]),
  );
}
