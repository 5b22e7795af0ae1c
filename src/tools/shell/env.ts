/**
 * @module tools/shell/env
 * The environment a shell command gets: an allowlist of ordinary variables from the parent plus what the host
 * passes explicitly, minus anything that looks like a secret (by name or by value) and minus loader and
 * interpreter hooks (the lists and patterns are data: `shell-env.json`). Secrets in the agent's own
 * environment must never reach a command the model wrote.
 * git gets its own safety switches (from `git-env.json`), set last so neither the host nor a repository's
 * config can undo them: a repository must not be able to make an allowed git command run code.
 */
import GIT_ENV from "./git-env.json" with { type: "json" };
import SHELL_ENV from "./shell-env.json" with { type: "json" };

/** The tables of `shell-env.json`, checked when the module loads (a bad entry fails start-up, never a call). */
export interface ShellEnvTables {
  passThrough: ReadonlySet<string>;
  passThroughPrefixes: readonly string[];
  secretName: RegExp;
  secretValues: readonly RegExp[];
  never: ReadonlySet<string>;
  neverPrefixes: readonly string[];
}

const TABLE_KEYS = new Set([
  "about",
  "passThrough",
  "passThroughPrefixes",
  "secretNames",
  "secretValues",
  "never",
  "neverPrefixes",
]);

function names(raw: Record<string, unknown>, key: string): string[] {
  const value = raw[key];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || v === ""))
    throw new Error(`shell-env.json: ${key} must be a list of non-empty strings`);
  return value as string[];
}

function pattern(source: unknown, where: string, flags = ""): RegExp {
  if (typeof source !== "string" || source === "")
    throw new Error(`shell-env.json: ${where} must be a pattern`);
  try {
    return new RegExp(source, flags);
  } catch (error) {
    throw new Error(`shell-env.json: ${where}: ${(error as Error).message}`);
  }
}

/** Checks and compiles `shell-env.json`; throws naming the entry at fault. */
export function loadShellEnvTables(data: unknown): ShellEnvTables {
  const raw = (data ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(raw).find((k) => !TABLE_KEYS.has(k));
  if (unknown !== undefined) throw new Error(`shell-env.json: unknown key "${unknown}"`);
  return {
    passThrough: new Set(names(raw, "passThrough")),
    passThroughPrefixes: names(raw, "passThroughPrefixes"),
    secretName: pattern(raw["secretNames"], "secretNames", "i"),
    secretValues: names(raw, "secretValues").map((s, i) => pattern(s, `secretValues[${i}]`)),
    never: new Set(names(raw, "never")),
    neverPrefixes: names(raw, "neverPrefixes"),
  };
}

const TABLES = loadShellEnvTables(SHELL_ENV);

/** Ordinary variables passed through from the parent (exact names; `LC_*` and `XDG_*` by prefix). */
export const ENV_ALLOWLIST: ReadonlySet<string> = TABLES.passThrough;

/** `GIT_*` variables a host may pass (identity only): the rest choose repositories, configs and programs. */
const GIT_HOST_MAY_PASS: ReadonlySet<string> = new Set(GIT_ENV.hostMayPass);

const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why a variable is dropped, or undefined when it may pass. */
export function dropReason(name: string, value: string): string | undefined {
  if (!VALID_NAME.test(name)) return "invalid name";
  if (value.includes("\0")) return "invalid value";
  if (TABLES.never.has(name)) return "hook";
  if (TABLES.neverPrefixes.some((p) => name.startsWith(p)) && !GIT_HOST_MAY_PASS.has(name)) return "hook";
  // GIT_AUTHOR_* holds "AUTH" but is an identity, not a secret; values are still checked.
  if (TABLES.secretName.test(name) && !GIT_HOST_MAY_PASS.has(name)) return "secret name";
  if (TABLES.secretValues.some((re) => re.test(value))) return "secret value";
  return undefined;
}

function isAllowlisted(name: string): boolean {
  return TABLES.passThrough.has(name) || TABLES.passThroughPrefixes.some((p) => name.startsWith(p));
}

/**
 * Builds a child environment: allowlisted parent variables, then the host's extras (which may add any name),
 * then every secret-looking or hook variable removed.
 * @param parent the parent's environment (default `process.env`)
 * @param extras variables the host passes explicitly
 * @example sanitizeEnv(process.env, { CI: "1" }) // { PATH: ..., HOME: ..., CI: "1" }
 */
export function sanitizeEnv(
  parent: Readonly<Record<string, string | undefined>> = process.env,
  extras: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value !== undefined && isAllowlisted(name) && !dropReason(name, value)) out[name] = value;
  }
  for (const [name, value] of Object.entries(extras)) {
    if (typeof value === "string" && !dropReason(name, value)) out[name] = value;
  }
  return out;
}

/** One git configuration value toolgate forces for every command, and why. */
export interface GitOverride {
  key: string;
  value: string;
  why: string;
}

/** The git configuration toolgate forces (command-line scope: it wins over every config file). */
export const GIT_CONFIG_OVERRIDES: readonly GitOverride[] = Object.freeze(
  GIT_ENV.config.map((o) => ({ ...o })),
);

/** `GIT_CONFIG_COUNT` / `GIT_CONFIG_KEY_n` / `GIT_CONFIG_VALUE_n` for {@link GIT_CONFIG_OVERRIDES}. */
function gitConfigEnv(): Record<string, string> {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(GIT_CONFIG_OVERRIDES.length) };
  GIT_CONFIG_OVERRIDES.forEach((o, i) => {
    env[`GIT_CONFIG_KEY_${i}`] = o.key;
    env[`GIT_CONFIG_VALUE_${i}`] = o.value;
  });
  return env;
}

/**
 * The fixed variables every shell command gets, applied after everything else: no pager, no prompts, no
 * editor, and git's safety switches (no planted bare repository, fsmonitor, hooks, pager or ssh command).
 */
export const SHELL_FIXED_ENV: Readonly<Record<string, string>> = Object.freeze({
  PAGER: "cat",
  ...(GIT_ENV.fixed as Record<string, string>),
  ...gitConfigEnv(),
});
