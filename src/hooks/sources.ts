/**
 * @module hooks/sources
 * Where hooks come from: toolgate's `[[hooks]]` tables, and the `hooks` sections of Claude Code's, gemini-cli's
 * and Codex's files (`.claude/settings.json`, `.gemini/settings.json`, `.codex/hooks.json` and the `[hooks]` of
 * `.codex/config.toml`, the user's and the workspace's). Each becomes a {@link HookSpec} naming its source;
 * what toolgate does not run (other events, non-command or background hooks) is listed as skipped, with why.
 */
import { parse as parseToml } from "smol-toml";
import { compileToolPattern } from "../core/index.js";
import { isPlainObject } from "../utils/index.js";
import type { HostFormat } from "./mapping.js";

export type HookEvent = "pre_tool" | "post_tool";
export type HookFormat = "toolgate" | HostFormat;
/** Whose configuration a hook comes from: only the user's own may lift an `ask` (`hooks_may_allow`). */
export type HookOrigin = "user" | "workspace";

/** One hook, ready to match and run. */
export interface HookSpec {
  name: string;
  event: HookEvent;
  format: HookFormat;
  command: string;
  timeoutMs: number;
  /** toolgate's tool patterns (`[[hooks]] tools`), or the host's matcher (a regex on the host's tool name). */
  match: { tools: string[] } | { matcher: string };
  /** The file and place it was read from (`~/.claude/settings.json#PreToolUse[0].hooks[1]`). */
  source: string;
  origin: HookOrigin;
}

/** An entry of a settings file toolgate does not run, and why. */
export interface SkippedHook {
  source: string;
  why: string;
}

/** The host events toolgate runs, by host. */
const HOST_EVENTS: Record<HostFormat, Record<string, HookEvent>> = {
  claude: { PreToolUse: "pre_tool", PostToolUse: "post_tool" },
  gemini: { BeforeTool: "pre_tool", AfterTool: "post_tool" },
  codex: { PreToolUse: "pre_tool", PostToolUse: "post_tool" },
};

/** A `[[hooks]]` table as the config's settings give it (defaults applied; a list keeps the file's key names). */
export interface ConfigHook {
  name?: string;
  event: HookEvent;
  tools: string[];
  command: string;
  timeout_ms: number;
  format: HookFormat;
}

/** The config's `[[hooks]]` tables as specs; a tool pattern that does not compile throws naming it. */
export function configHooks(entries: readonly ConfigHook[], source: string, origin: HookOrigin): HookSpec[] {
  return entries.map((entry, i) => {
    for (const pattern of entry.tools) compileToolPattern(pattern);
    return {
      name: entry.name ?? entry.command,
      event: entry.event,
      format: entry.format,
      command: entry.command,
      timeoutMs: entry.timeout_ms,
      match: { tools: [...entry.tools] },
      source: `${source}#hooks[${i}]`,
      origin,
    };
  });
}

/**
 * The hooks of a host's file, from its text: JSON (Claude Code's and gemini-cli's settings, Codex's
 * `hooks.json`) or TOML (Codex's `config.toml`, whose other settings are not read). A file that does not parse,
 * or a `hooks` section of the wrong shape, throws naming the file: a guard that cannot be read must not
 * silently vanish.
 */
export function hostHooks(
  format: HostFormat,
  text: string,
  source: string,
  origin: HookOrigin,
  syntax: "json" | "toml" = "json",
): { hooks: HookSpec[]; skipped: SkippedHook[] } {
  let settings: unknown;
  try {
    settings = syntax === "json" ? JSON.parse(text) : parseToml(text);
  } catch (error) {
    const what = syntax === "json" ? "JSON" : "TOML";
    throw new Error(`${source}: not valid ${what} (${(error as Error).message.split("\n")[0]})`);
  }
  const hooks: HookSpec[] = [];
  const skipped: SkippedHook[] = [];
  const section = isPlainObject(settings) ? settings["hooks"] : undefined;
  if (section === undefined) return { hooks, skipped };
  if (!isPlainObject(section)) throw new Error(`${source}: "hooks" must be an object of events`);
  for (const [eventName, groups] of Object.entries(section)) {
    const event = HOST_EVENTS[format][eventName];
    // Codex keeps, beside its events, which hooks its user enabled and trusted: toolgate has its own trust.
    if (format === "codex" && eventName === "state") {
      skipped.push({ source: `${source}#state`, why: "Codex's own record of enabled and trusted hooks" });
      continue;
    }
    if (!Array.isArray(groups)) throw new Error(`${source}: hooks.${eventName} must be a list`);
    groups.forEach((group, g) => {
      const where = `${source}#${eventName}[${g}]`;
      if (!isPlainObject(group) || !Array.isArray(group["hooks"]))
        throw new Error(`${where}: must be {"matcher", "hooks": [...]}`);
      if (!event) {
        skipped.push({ source: where, why: `toolgate runs no ${eventName} hooks (only tool events)` });
        return;
      }
      const matcher = typeof group["matcher"] === "string" ? group["matcher"] : "";
      checkMatcher(matcher, where);
      group["hooks"].forEach((raw: unknown, h: number) => {
        const at = `${where}.hooks[${h}]`;
        if (!isPlainObject(raw) || raw["type"] !== "command" || typeof raw["command"] !== "string") {
          skipped.push({ source: at, why: 'only {"type": "command", "command": ...} hooks run' });
          return;
        }
        // Codex runs an `async` hook in the background: it never decides, so toolgate has nothing to wait for.
        if (format === "codex" && raw["async"] === true) {
          skipped.push({ source: at, why: "an async hook cannot decide (Codex runs it in the background)" });
          return;
        }
        hooks.push({
          name: typeof raw["name"] === "string" ? raw["name"] : raw["command"],
          event,
          format,
          command: raw["command"],
          timeoutMs: timeoutOf(
            format,
            raw["timeout"] ?? (format === "codex" ? raw["timeoutSec"] : undefined),
            at,
          ),
          match: { matcher },
          source: at,
          origin,
        });
      });
    });
  }
  return { hooks, skipped };
}

/** Claude Code's and Codex's `timeout` is in seconds, gemini-cli's in milliseconds; Codex's default is 600 s. */
function timeoutOf(format: HostFormat, value: unknown, where: string): number {
  if (value === undefined) return format === "codex" ? 600_000 : 60_000;
  if (typeof value !== "number" || !(value > 0))
    throw new Error(`${where}: timeout must be a positive number`);
  return format === "gemini" ? value : value * 1000;
}

function checkMatcher(matcher: string, where: string): void {
  if (matcher === "*") return; // every tool, in each host (not a regex)
  try {
    new RegExp(matcher);
  } catch (error) {
    throw new Error(`${where}: the matcher is not a regular expression (${(error as Error).message})`);
  }
}

/** A matcher's test on the names a host knows a tool by (its name, and Codex's aliases). */
export type NamesTest = (names: readonly string[]) => boolean;

/**
 * A host matcher as a test; undefined for empty and `*`, which match every tool. Claude Code's and gemini-cli's:
 * a whole-name regex. Codex's: names and `|` only is a list of exact names; anything else a regex that may
 * match part of the name (`^Bash` matches `BashOutput`), as Codex does.
 */
export function compileMatcher(matcher: string, format: HookFormat = "claude"): NamesTest | undefined {
  if (matcher === "" || matcher === "*") return undefined;
  if (format === "codex" && /^[A-Za-z0-9_|]+$/.test(matcher)) {
    const exact = new Set(matcher.split("|"));
    return (names) => names.some((n) => exact.has(n));
  }
  const regex = new RegExp(format === "codex" ? matcher : `^(?:${matcher})$`);
  return (names) => names.some((n) => regex.test(n));
}

/** Whether a host matcher matches a host's tool name (and aliases). */
export function matcherMatches(matcher: string, names: readonly string[], format?: HookFormat): boolean {
  return compileMatcher(matcher, format)?.(names) ?? true;
}
