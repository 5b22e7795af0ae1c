/**
 * @module hooks/load
 * Collects a gate's hooks from every source, in a fixed order: the config's `[[hooks]]`, then the user's
 * host files (`~/.claude/settings.json`, `~/.gemini/settings.json`, `~/.codex/hooks.json`,
 * `~/.codex/config.toml`), then the workspace's same files — the workspace's only while the user trusts those
 * exact bytes (`toolgate trust`).
 */

import { join } from "node:path";
import { readPlainFile, whyUnread } from "../utils/index.js";
import type { HostFormat } from "./mapping.js";
import {
  type ConfigHook,
  configHooks,
  type HookOrigin,
  type HookSpec,
  hostHooks,
  type SkippedHook,
} from "./sources.js";

/** The host files toolgate reads hooks from, relative to the home folder or the workspace. */
export const HOST_SETTINGS_FILES: readonly { path: string; format: HostFormat; syntax: "json" | "toml" }[] = [
  { path: ".claude/settings.json", format: "claude", syntax: "json" },
  { path: ".gemini/settings.json", format: "gemini", syntax: "json" },
  { path: ".codex/hooks.json", format: "codex", syntax: "json" },
  { path: ".codex/config.toml", format: "codex", syntax: "toml" },
];

/** The host file at `path` (relative, `/`-separated), if toolgate reads hooks from it. */
export function hostSettingsFile(path: string): (typeof HOST_SETTINGS_FILES)[number] | undefined {
  return HOST_SETTINGS_FILES.find((f) => f.path === path);
}

export interface LoadHooksOptions {
  /** The workspace root. */
  root: string;
  /** The user's home folder (`os.homedir()`). */
  home: string;
  /** The config's `[[hooks]]` tables, where they were read, and whose config it is. */
  config?: { hooks: readonly ConfigHook[]; source: string; origin: HookOrigin };
  /** Whether the workspace file at `path` with these bytes is trusted. */
  trusted(path: string, bytes: Buffer): boolean;
}

export interface LoadedHooks {
  hooks: HookSpec[];
  skipped: SkippedHook[];
  /** Hooks of workspace files that do not run because the user has not trusted those bytes. */
  untrusted: HookSpec[];
}

async function readIfThere(path: string): Promise<Buffer | undefined> {
  try {
    return await readPlainFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(
      `${path}: cannot read hooks (${(error as NodeJS.ErrnoException).code === "ENOTPLAIN" ? whyUnread(error) : (error as Error).message})`,
    );
  }
}

/** Every hook of every source. A source that cannot be read throws: a guard must not silently vanish. */
export async function loadHooks(options: LoadHooksOptions): Promise<LoadedHooks> {
  const out: LoadedHooks = { hooks: [], skipped: [], untrusted: [] };
  if (options.config) {
    const { hooks, source, origin } = options.config;
    out.hooks.push(...configHooks(hooks, source, origin));
  }
  const places: { dir: string; origin: HookOrigin; label: string }[] = [
    { dir: options.home, origin: "user", label: "~" },
    { dir: options.root, origin: "workspace", label: options.root },
  ];
  // The home folder as workspace: its files are the user's own (read once, as the user's).
  if (options.home === options.root) places.pop();
  for (const { dir, origin, label } of places) {
    for (const file of HOST_SETTINGS_FILES) {
      const path = join(dir, file.path);
      const bytes = await readIfThere(path);
      if (!bytes) continue;
      const found = hostHooks(
        file.format,
        bytes.toString("utf8"),
        `${label}/${file.path}`,
        origin,
        file.syntax,
      );
      out.skipped.push(...found.skipped);
      if (origin === "workspace" && found.hooks.length > 0 && !options.trusted(path, bytes)) {
        out.untrusted.push(...found.hooks);
        continue;
      }
      out.hooks.push(...found.hooks);
    }
  }
  return out;
}
