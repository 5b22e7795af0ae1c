/**
 * @module hooks/sources
 * Where hooks come from: toolgate's `[[hooks]]` tables, and the `hooks` sections of Claude Code's and
 * gemini-cli's settings files (the user's `~/.claude/settings.json`, `~/.gemini/settings.json`; the
 * workspace's `.claude/settings.json`, `.gemini/settings.json`). Each becomes a {@link HookSpec} naming its
 * source; what toolgate does not run (other events, non-command hooks) is listed as skipped, with why.
 */
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
 * The hooks of a Claude Code or gemini-cli settings file's text. A file that is not JSON, or a `hooks`
 * section of the wrong shape, throws naming the file: a guard that cannot be read must not silently vanish.
 */
export function hostHooks(
  format: HostFormat,
  text: string,
  source: string,
  origin: HookOrigin,
): { hooks: HookSpec[]; skipped: SkippedHook[] } {
  let settings: unknown;
  try {
    settings = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source}: not valid JSON (${(error as Error).message})`);
  }
  const hooks: HookSpec[] = [];
  const skipped: SkippedHook[] = [];
  const section = isPlainObject(settings) ? settings["hooks"] : undefined;
  if (section === undefined) return { hooks, skipped };
  if (!isPlainObject(section)) throw new Error(`${source}: "hooks" must be an object of events`);
  for (const [eventName, groups] of Object.entries(section)) {
    const event = HOST_EVENTS[format][eventName];
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
        hooks.push({
          name: typeof raw["name"] === "string" ? raw["name"] : raw["command"],
          event,
          format,
          command: raw["command"],
          timeoutMs: timeoutOf(format, raw["timeout"], at),
          match: { matcher },
          source: at,
          origin,
        });
      });
    });
  }
  return { hooks, skipped };
}

/** Claude Code's `timeout` is in seconds, gemini-cli's in milliseconds; both default to 60 s. */
function timeoutOf(format: HostFormat, value: unknown, where: string): number {
  if (value === undefined) return 60_000;
  if (typeof value !== "number" || !(value > 0))
    throw new Error(`${where}: timeout must be a positive number`);
  return format === "claude" ? value * 1000 : value;
}

function checkMatcher(matcher: string, where: string): void {
  try {
    new RegExp(matcher);
  } catch (error) {
    throw new Error(`${where}: the matcher is not a regular expression (${(error as Error).message})`);
  }
}

/** Whether a host matcher matches the host's tool name: empty and `*` match every tool, else a whole-name regex. */
export function matcherMatches(matcher: string, hostName: string): boolean {
  if (matcher === "" || matcher === "*") return true;
  return new RegExp(`^(?:${matcher})$`).test(hostName);
}
