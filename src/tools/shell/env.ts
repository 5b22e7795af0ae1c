/**
 * @module tools/shell/env
 * The environment a shell command gets: an allowlist of ordinary variables from the parent plus what the host
 * passes explicitly, minus anything that looks like a secret (by name or by value) and minus loader and
 * interpreter hooks. Secrets in the agent's own environment must never reach a command the model wrote.
 * git gets its own safety switches (from `git-env.json`), set last so neither the host nor a repository's
 * config can undo them: a repository must not be able to make an allowed git command run code.
 */
import GIT_ENV from "./git-env.json" with { type: "json" };

/** Ordinary variables passed through from the parent (exact names; `LC_*` and `XDG_*` by prefix). */
export const ENV_ALLOWLIST: ReadonlySet<string> = new Set([
  "PATH",
  "HOME",
  "LANG",
  "LANGUAGE",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "USER",
  "LOGNAME",
  "SHELL",
  "TMPDIR",
  "TMP",
  "TEMP",
  "TZ",
  "COLUMNS",
  "LINES",
  "HOSTNAME",
  "EDITOR",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "JAVA_HOME",
  "GOPATH",
  "GOROOT",
  "CARGO_HOME",
  "RUSTUP_HOME",
  "NVM_DIR",
  "VIRTUAL_ENV",
]);
const ALLOWED_PREFIXES = ["LC_", "XDG_"];

/** Names that look like secrets (case-insensitive substring). */
const SECRET_NAME = /TOKEN|SECRET|KEY|PASS|_PWD$|CREDENTIAL|AUTH|PRIVATE|COOKIE|SESSION/i;

/** Values that look like secrets whatever their name. */
const SECRET_VALUES: readonly RegExp[] = [
  /-----BEGIN [A-Z0-9 ]*(PRIVATE KEY|CERTIFICATE|PGP)/,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/,
  /\bglpat-[A-Za-z0-9_-]{16,}/,
  /\bsk-[A-Za-z0-9_-]{16,}/,
  /\b[sr]k_(live|test)_[A-Za-z0-9]{16,}/,
  /\bxox[abposr]-[A-Za-z0-9-]{8,}/,
  /\b(AKIA|ASIA)[0-9A-Z]{16}\b/,
  /\bAIza[0-9A-Za-z_-]{30,}/,
  /\bnpm_[A-Za-z0-9]{30,}/,
  /\beyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\./,
  /[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/,
];

/** Never passed, even when the host asks: they make the shell or a loader run code the command did not name. */
const NEVER_EXACT = new Set([
  "NODE_OPTIONS",
  "NODE_PATH",
  "BASH_ENV",
  "ENV",
  "PROMPT_COMMAND",
  "PS4",
  "SHELLOPTS",
  "BASHOPTS",
  "IFS",
  "CDPATH",
  "GLOBIGNORE",
  "ZDOTDIR",
  "PYTHONSTARTUP",
  "PYTHONPATH",
  "PYTHONHOME",
  "PERL5OPT",
  "PERL5LIB",
  "RUBYOPT",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "GIT_SSH_COMMAND",
  "GIT_EXEC_PATH",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "GIT_EXTERNAL_DIFF",
  "GIT_PROXY_COMMAND",
]);
const NEVER_PREFIXES = ["LD_", "DYLD_", "BASH_FUNC_", "GIT_"];
/** `GIT_*` variables a host may pass (identity only): the rest choose repositories, configs and programs. */
const GIT_HOST_MAY_PASS: ReadonlySet<string> = new Set(GIT_ENV.hostMayPass);

const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why a variable is dropped, or undefined when it may pass. */
export function dropReason(name: string, value: string): string | undefined {
  if (!VALID_NAME.test(name)) return "invalid name";
  if (value.includes("\0")) return "invalid value";
  if (NEVER_EXACT.has(name)) return "hook";
  if (NEVER_PREFIXES.some((p) => name.startsWith(p)) && !GIT_HOST_MAY_PASS.has(name)) return "hook";
  // GIT_AUTHOR_* holds "AUTH" but is an identity, not a secret; values are still checked.
  if (SECRET_NAME.test(name) && !GIT_HOST_MAY_PASS.has(name)) return "secret name";
  if (SECRET_VALUES.some((re) => re.test(value))) return "secret value";
  return undefined;
}

function isAllowlisted(name: string): boolean {
  return ENV_ALLOWLIST.has(name) || ALLOWED_PREFIXES.some((p) => name.startsWith(p));
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
