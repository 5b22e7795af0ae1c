/**
 * @module sandbox/git-dirs
 * Git's own files that decide what runs, per repository found in the workspace: the config and the files it
 * includes, the hooks folder and the folder `core.hooksPath` names, `config.worktree`, `commondir`, the
 * rebase and sequencer state (their todo lists hold `exec` lines), and the same inside each submodule's and
 * linked worktree's git folder. What exists is kept read-only; what is missing is either blocked with a
 * placeholder git reads as nothing — an empty folder at `hooks` and `config`, a file naming the folder itself
 * (`.`) at `commondir`, an empty file at a `config.worktree` git reads — or watched by the check after the
 * command (an empty rebase or sequencer folder would tell git a rebase is under way). Blocking matters while
 * the command runs: the person's editor and prompt run `git status` meanwhile, before any check after it.
 * The rest of a git folder (objects, refs, the index, logs, HEAD) stays writable, so `git add`, `commit`,
 * `checkout`, `rebase` work.
 */
import { lstatSync, readdirSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { readPlainFileSync } from "../utils/index.js";
import { bytesOf, rawOf } from "./descriptors.js";
import { configValues, readGitConfig } from "./git-config.js";
import { SETTLED_MS } from "./scan.js";

/**
 * A git folder's entries kept read-only when they exist. `info` holds `exclude` and `attributes`, which hide
 * files and changes from the person's `git status` and `git diff` (a GNUmakefile listed there runs at the next
 * `make` before the reviewed Makefile; red team round 5, I2).
 */
const READ_ONLY = [
  "config",
  "config.worktree",
  "hooks",
  "info",
  "commondir",
  "rebase-merge",
  "rebase-apply",
  "sequencer",
];
/** Missing entries blocked with a placeholder (git reads a missing and an empty one alike). */
const BLOCKED = ["config", "hooks", "info"];
/**
 * Missing entries blocked with a file git reads as if it were not there: a `commondir` of `.` names the git
 * folder itself (git takes config and hooks from where it would anyway).
 */
const BLOCKED_FILES: Readonly<Record<string, string>> = { commondir: ".\n" };
/** What a missing `config.worktree` is blocked with where git reads one (an empty config). */
const EMPTY_CONFIG = "";
/** Entries the check after the command looks for when they appear (a placeholder was not made for them). */
export const WATCHED = ["config.worktree", "commondir", "rebase-merge", "rebase-apply", "sequencer"];
/** A linked worktree's administrative entries (in `<git folder>/worktrees/<name>/`) kept read-only. */
const WORKTREE_ADMIN = ["commondir", "gitdir", "config.worktree"];
/** How deep includes, submodules of submodules and the like are followed. */
const MAX_NESTING = 8;

/** What protecting a set of repositories takes: raw absolute paths. */
export interface GitProtection {
  /** Existing files and folders to mount read-only. */
  readOnly: Set<string>;
  /** Missing paths to block with a placeholder folder (inside a root only). */
  blocked: Set<string>;
  /** Missing paths to block with a placeholder file, and what it holds (inside a root only). */
  blockedFiles: Map<string, string>;
  /** Git folders whose missing {@link WATCHED} entries the check after the command looks for. */
  watched: Set<string>;
  /**
   * Files a repository's config includes from outside every writable place: hidden (the command's copy of the
   * config drops its includes, and they often hold tokens; outside the writable places nothing is writable).
   */
  hidden: Set<string>;
}

/** Where paths may be protected, and the user's own git settings. */
export interface GitContext {
  /** True when a raw absolute path is inside a writable place (a root, or a writable extra). */
  writableAt: (path: string) => boolean;
  home: string;
  /** `core.hooksPath` values of the user's and the system's git config (relative ones apply per repository). */
  globalHooksPaths: readonly string[];
}

/** An empty protection to add repositories to. */
export function newGitProtection(): GitProtection {
  return {
    readOnly: new Set(),
    blocked: new Set(),
    blockedFiles: new Map(),
    watched: new Set(),
    hidden: new Set(),
  };
}

/**
 * Adds the protection of git folder `gitDir` (raw absolute) to `into`. `worktree` is the folder whose files
 * the repository checks out (relative `core.hooksPath` values are taken from it); undefined for a bare one.
 */
export function protectGitDir(
  gitDir: string,
  worktree: string | undefined,
  context: GitContext,
  into: GitProtection,
  depth = 0,
): void {
  if (depth > MAX_NESTING || into.watched.has(gitDir)) return;
  into.watched.add(gitDir);
  for (const name of READ_ONLY) {
    const path = `${gitDir}/${name}`;
    if (exists(path)) into.readOnly.add(path);
    else if (BLOCKED.includes(name) && context.writableAt(path)) into.blocked.add(path);
    else if (name in BLOCKED_FILES && context.writableAt(path))
      into.blockedFiles.set(path, BLOCKED_FILES[name]!);
  }
  const config = readGitConfig(bytesOf(`${gitDir}/config`)) ?? [];
  // git reads config.worktree only where extensions.worktreeConfig is on: there a missing one is blocked too.
  const worktreeConfig = configValues(config, "extensions", "worktreeconfig").some(isTrue);
  const blockWorktreeConfig = (path: string) => {
    if (worktreeConfig && !exists(path) && context.writableAt(path))
      into.blockedFiles.set(path, EMPTY_CONFIG);
  };
  blockWorktreeConfig(`${gitDir}/config.worktree`);
  const base = worktree ?? gitDir;
  const hooksPaths = [...context.globalHooksPaths, ...configValues(config, "core", "hookspath")];
  for (const configPath of includedConfigs(`${gitDir}/config`, context.home)) {
    if (context.writableAt(configPath)) protectPath(configPath, context, into);
    else if (exists(configPath)) into.hidden.add(configPath);
    const included = readGitConfig(bytesOf(configPath)) ?? [];
    hooksPaths.push(...configValues(included, "core", "hookspath"));
  }
  for (const value of hooksPaths) {
    if (value === "" || value === "/dev/null") continue;
    protectPath(expand(value, base, context.home), context, into);
  }
  for (const name of childFolders(`${gitDir}/modules`)) {
    protectGitDir(`${gitDir}/modules/${name}`, undefined, context, into, depth + 1);
  }
  for (const name of childFolders(`${gitDir}/worktrees`)) {
    for (const entry of WORKTREE_ADMIN) {
      const path = `${gitDir}/worktrees/${name}/${entry}`;
      if (exists(path)) into.readOnly.add(path);
      else if (entry === "config.worktree") blockWorktreeConfig(path);
    }
  }
}

/** Read-only when it exists, blocked when it does not and could be created (inside a writable place). */
function protectPath(path: string, context: GitContext, into: GitProtection): void {
  if (exists(path)) into.readOnly.add(path);
  else if (context.writableAt(path)) into.blocked.add(path);
}

/**
 * The git folder a `.git` file names (`gitdir: <path>`, relative to the file's folder), raw absolute; undefined
 * when the file does not say.
 */
export function gitDirOfFile(dotGit: string): string | undefined {
  let text: string;
  try {
    text = readPlainFileSync(bytesOf(dotGit)).subarray(0, 4096).toString("latin1");
  } catch {
    return undefined;
  }
  const match = /^gitdir: *(.+?)\s*$/m.exec(text);
  if (!match) return undefined;
  const named = match[1]!;
  return isAbsolute(named) ? resolve(named) : resolve(dirname(dotGit), named);
}

/** The common git folder of a (linked worktree's) git folder: what its `commondir` names, else itself. */
export function commonDirOf(gitDir: string): string {
  try {
    const named = readPlainFileSync(bytesOf(`${gitDir}/commondir`))
      .toString("latin1")
      .trim();
    if (named) return isAbsolute(named) ? resolve(named) : resolve(gitDir, named);
  } catch {
    // No commondir: the folder is its own common folder.
  }
  return gitDir;
}

/** The last answer of {@link globalHooksPaths}, with the stamp of every file it read (or found missing). */
let hooksPathsRead: { key: string; stamps: Map<string, string>; values: string[] } | undefined;

/**
 * `core.hooksPath` values of the system's and the user's git config (and what they include). Read again only
 * when one of the files read changed (device, inode, size, mtime or ctime: one stat each) or appeared.
 */
export function globalHooksPaths(home: string, xdgConfigHome: string | undefined): string[] {
  const key = `${home}\0${xdgConfigHome ?? ""}`;
  const known = hooksPathsRead;
  if (known?.key === key && [...known.stamps].every(([path, stamp]) => fileStamp(path) === stamp))
    return [...known.values];
  const before = Date.now();
  const stamps = new Map<string, string>();
  const read = (path: string) => {
    if (!stamps.has(path)) stamps.set(path, fileStamp(path));
    return readGitConfig(bytesOf(path));
  };
  const files = [
    "/etc/gitconfig",
    join(home, ".gitconfig"),
    join(xdgConfigHome?.startsWith("/") ? xdgConfigHome : join(home, ".config"), "git", "config"),
  ].map(rawOf);
  const values: string[] = [];
  for (const file of files) {
    for (const path of [file, ...includedConfigs(file, rawOf(home), read)]) {
      values.push(...configValues(read(path) ?? [], "core", "hookspath"));
    }
  }
  // Kept only when every file read had settled: a change in the same clock tick would keep its stamp.
  const settled = [...stamps.values()].every(
    (stamp) => Number(stamp.split(":")[4] ?? 0) < before - SETTLED_MS,
  );
  hooksPathsRead = settled ? { key, stamps, values: [...values] } : undefined;
  return values;
}

/** A file's identity and change times as text (links followed, as git reads it); `missing` when unreadable. */
function fileStamp(path: string): string {
  try {
    const s = statSync(bytesOf(path), { throwIfNoEntry: false });
    if (s === undefined) return "missing";
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${Math.max(s.ctimeMs, s.mtimeMs)}`;
  } catch (error) {
    return `error:${(error as NodeJS.ErrnoException).code}`;
  }
}

/** The files a config includes (`include.path`, `includeIf.*.path`), followed recursively, raw absolute. */
export function includedConfigs(
  file: string,
  home: string,
  read: (path: string) => ReturnType<typeof readGitConfig> = (path) => readGitConfig(bytesOf(path)),
  seen = new Set<string>(),
): string[] {
  if (seen.size > MAX_NESTING * 4) return [];
  const entries = read(file) ?? [];
  const paths = [
    ...configValues(entries, "include", "path"),
    ...configValues(entries, "includeif", "path", "*"),
  ];
  const out: string[] = [];
  for (const value of paths) {
    const path = expand(rawOf(value), dirname(file), home);
    if (seen.has(path)) continue;
    seen.add(path);
    out.push(path, ...includedConfigs(path, home, read, seen));
  }
  return out;
}

/** A config path value made absolute: `~/` from the home folder, relative from `base`. */
function expand(value: string, base: string, home: string): string {
  if (value.startsWith("~/")) return resolve(home, value.slice(2));
  return isAbsolute(value) ? resolve(value) : resolve(base, value);
}

/** Anything but git's spellings of false (a key with no value is true; blocking where git would not read is harmless). */
function isTrue(value: string): boolean {
  return !["", "false", "no", "off", "0"].includes(value.trim().toLowerCase());
}

function exists(path: string): boolean {
  try {
    return lstatSync(bytesOf(path), { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** The names of the real folders (not links) in `path`, raw; none when it cannot be read. */
export function childFolders(path: string): string[] {
  try {
    return readdirSync(bytesOf(path), { withFileTypes: true, encoding: "buffer" })
      .filter((e) => e.isDirectory())
      .map((e) => e.name.toString("latin1"));
  } catch {
    return [];
  }
}
