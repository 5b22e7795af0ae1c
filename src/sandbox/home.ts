/**
 * @module sandbox/home
 * The home folder inside the sandbox: an empty, writable, throw-away folder, except the entries that stay
 * visible read-only (home-visible.json: toolchains and caches builds need; the folders on PATH and those the
 * toolchain variables name; what the user's own config adds with `[sandbox] readable`). Credential files,
 * shell history, other agents' tokens and other projects are unreachable because nothing else is shown, not
 * because a list names them.
 */
import { delimiter, isAbsolute, join, resolve } from "node:path";
import data from "./home-visible.json" with { type: "json" };

/** One entry of the list: a path relative to the home folder, and why a build needs it. */
export interface HomeEntry {
  readonly path: string;
  readonly why: string;
}

/** The built-in list of what stays visible (read-only) in the home folder. */
export const HOME_VISIBLE: readonly HomeEntry[] = Object.freeze(
  data.visible.map((e) => Object.freeze({ path: e.path, why: e.why })),
);

/** Variables that name a toolchain's folder; when inside the home folder, it stays visible. */
export const HOME_TOOLCHAIN_VARIABLES: readonly string[] = Object.freeze([...data.env]);

/** Where a visible path came from (for `toolgate doctor`). */
export interface VisiblePath {
  /** Absolute path (text). */
  path: string;
  /** `list` (home-visible.json), `PATH`, a variable's name, or `config` (`[sandbox] readable`). */
  from: string;
}

/**
 * The paths inside `home` that commands may read, before checking which exist: the list, PATH entries and
 * toolchain variables inside the home folder (never the home folder itself), and `readable`.
 * @example visibleInHome("/home/u", { PATH: "/home/u/.local/bin:/usr/bin" }, []) // [{ path: "/home/u/.nvm", from: "list" }, …]
 */
export function visibleInHome(
  home: string,
  env: Readonly<Record<string, string | undefined>>,
  readable: readonly string[],
): VisiblePath[] {
  const out = new Map<string, VisiblePath>();
  const add = (path: string, from: string) => {
    const absolute = resolve(path);
    if (absolute.startsWith(`${home}/`) && !out.has(absolute)) out.set(absolute, { path: absolute, from });
  };
  for (const entry of HOME_VISIBLE) add(join(home, entry.path), "list");
  for (const dir of (env.PATH ?? "").split(delimiter)) if (isAbsolute(dir)) add(dir, "PATH");
  for (const name of HOME_TOOLCHAIN_VARIABLES) {
    const value = env[name];
    if (value && isAbsolute(value)) add(value, name);
  }
  for (const path of readable) {
    // `[sandbox] readable = ["~"]` shows the whole home folder (read-only): the user's explicit choice.
    if (resolve(path) === home) out.set(home, { path: home, from: "config" });
    else add(path, "config");
  }
  return [...out.values()];
}
