/**
 * @module sandbox/home
 * The home folder inside the sandbox: an empty, writable, throw-away folder, except the entries that stay
 * visible read-only (home-visible.json: what toolchains need to run, and caches builds need; the folders on PATH
 * and those the toolchain variables name; what the user's own config adds with `[sandbox] readable`). Credential
 * files, shell history, other agents' tokens and other projects are unreachable because nothing else is shown,
 * not because a list names them — and inside a toolchain's folder only the parts its entry names (`show`) are
 * shown, so its configuration (npm's global npmrc, cargo's config.toml) stays hidden whatever it is called.
 */
import { delimiter, isAbsolute, join, resolve } from "node:path";
import data from "./home-visible.json" with { type: "json" };

/**
 * One entry of the list: a path relative to the home folder, why a build needs it, the variables that move it
 * elsewhere, and (when it is not shown whole) the patterns of the parts shown (home-parts.ts).
 */
export interface HomeEntry {
  readonly path: string;
  readonly why: string;
  readonly env: readonly string[];
  readonly show?: readonly string[];
}

/** The built-in list of what stays visible (read-only) in the home folder. */
export const HOME_VISIBLE: readonly HomeEntry[] = Object.freeze(
  data.visible.map((e) =>
    Object.freeze({
      path: e.path,
      why: e.why,
      env: Object.freeze([...(e.env ?? [])]),
      ...(e.show ? { show: Object.freeze([...e.show]) } : {}),
    }),
  ),
);

/** Variables that name an install prefix (a JDK, a Go install); inside the home folder its `PREFIX_SHOW` parts stay visible. */
export const HOME_PREFIX_VARIABLES: readonly string[] = Object.freeze([...data.env]);

/** What of an install prefix is shown: its folders (binaries, libraries), never its loose files or `etc`. */
export const PREFIX_SHOW: readonly string[] = Object.freeze([...data.prefixShow]);

/** Names a `*` of a part pattern never matches (configuration folders of install prefixes). */
export const NEVER_SHOWN: ReadonlySet<string> = new Set(data.neverShown);

/** Every variable that names a toolchain's folder (the entries' own and the install prefixes'). */
export const HOME_TOOLCHAIN_VARIABLES: readonly string[] = Object.freeze([
  ...HOME_VISIBLE.flatMap((e) => e.env),
  ...HOME_PREFIX_VARIABLES,
]);

/** Where a visible path came from (for `toolgate doctor`). */
export interface VisiblePath {
  /** Absolute path (text). */
  path: string;
  /** `list` (home-visible.json), `PATH`, a variable's name, or `config` (`[sandbox] readable`). */
  from: string;
  /** Patterns of the parts shown (home-parts.ts); undefined: shown whole. */
  show?: readonly string[];
}

/**
 * The paths inside `home` that commands may read, before checking which exist: the list, PATH entries and
 * toolchain variables inside the home folder (never the home folder itself), and `readable`.
 * @example visibleInHome("/home/u", { PATH: "/home/u/.local/bin:/usr/bin" }, []) // [{ path: "/home/u/.nvm", from: "list", show: ["nvm.sh", …] }, …]
 */
export function visibleInHome(
  home: string,
  env: Readonly<Record<string, string | undefined>>,
  readable: readonly string[],
): VisiblePath[] {
  const out = new Map<string, VisiblePath>();
  const add = (path: string, from: string, show: readonly string[] | undefined) => {
    const absolute = resolve(path);
    if (absolute.startsWith(`${home}/`) && !out.has(absolute))
      out.set(absolute, { path: absolute, from, ...(show ? { show } : {}) });
  };
  for (const entry of HOME_VISIBLE) {
    add(join(home, entry.path), "list", entry.show);
    for (const name of entry.env) {
      const value = env[name];
      if (value && isAbsolute(value)) add(value, name, entry.show);
    }
  }
  for (const name of HOME_PREFIX_VARIABLES) {
    const value = env[name];
    if (value && isAbsolute(value)) add(value, name, PREFIX_SHOW);
  }
  // A folder on PATH holds the commands themselves: shown whole.
  for (const dir of (env.PATH ?? "").split(delimiter)) if (isAbsolute(dir)) add(dir, "PATH", undefined);
  for (const path of readable) {
    // `[sandbox] readable` shows a path whole, `["~"]` the whole home folder: the user's explicit choice.
    const absolute = resolve(path);
    if (absolute === home || absolute.startsWith(`${home}/`))
      out.set(absolute, { path: absolute, from: "config" });
  }
  return [...out.values()];
}
