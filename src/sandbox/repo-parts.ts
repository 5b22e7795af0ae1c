/**
 * @module sandbox/repo-parts
 * A repository that is new since a command started is judged by its content: what `git init` and `git clone`
 * write stays — the keys of git-new-repo.json, git's sample hooks — and each part that would make git on the
 * host run something is named, to be moved on its own: a config with another key (core.fsmonitor, hooksPath,
 * aliases, filters, includes…) or another hard link, each hook that is not a sample (also where the person's
 * relative `core.hooksPath` points below its checkout), `commondir`, `config.worktree`, rebase and sequencer
 * state, a submodule's git folder that is unsafe itself. The objects, refs, index and `HEAD` stay: a
 * repository the person cloned into the workspace while a background command ran is not taken from them
 * because that command planted a hook in it (red team 2026-11-27e, G6).
 */
import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { bytesOf } from "./descriptors.js";
import { readWorkspaceGitConfig } from "./git-config.js";
import { childFolders, gitDirOfFile, WATCHED } from "./git-dirs.js";
import safe from "./git-new-repo.json" with { type: "json" };
import { heldPlaceholderFiles, intactPlaceholder } from "./placeholders.js";
import { identity } from "./survey.js";

const SAFE_KEYS = safe.keys.map((key) => {
  const [section, ...rest] = key.split(".");
  return { section: section!, sub: rest.length === 2 ? rest[0] : undefined, key: rest.at(-1)! };
});

/** One part of a repository (raw path) that would run something, and why. */
export interface UnsafePart {
  path: string;
  why: string;
}

/**
 * Why a repository a command made must not stay as it is (undefined when it holds only what git writes
 * itself): the first of {@link unsafeParts}.
 */
export function unsafeRepository(
  gitDir: string,
  worktree?: string,
  globalHooksPaths: readonly string[] = [],
): string | undefined {
  return unsafeParts(gitDir, worktree, globalHooksPaths)[0]?.why;
}

/**
 * The parts of the git folder `gitDir` (raw) that would run something (see the module comment); `worktree`
 * is its checkout, where the person's relative `globalHooksPaths` point.
 */
export function unsafeParts(
  gitDir: string,
  worktree?: string,
  globalHooksPaths: readonly string[] = [],
): UnsafePart[] {
  const parts: UnsafePart[] = [];
  const config = `${gitDir}/config`;
  const configWhy = unsafeConfig(gitDir);
  if (configWhy) parts.push({ path: config, why: configWhy });
  const hooksFolders = [`${gitDir}/hooks`];
  for (const value of globalHooksPaths) {
    if (worktree && value !== "" && !isAbsolute(value) && !value.startsWith("~"))
      hooksFolders.push(resolve(worktree, value));
  }
  for (const folder of hooksFolders) {
    const where = folder === hooksFolders[0] ? "" : " where your git config's core.hooksPath points";
    for (const part of unsafeHooks(folder)) parts.push({ path: part.path, why: `${part.why}${where}` });
  }
  const ours = heldPlaceholderFiles();
  for (const name of WATCHED) {
    const path = `${gitDir}/${name}`;
    if (identity(path) !== "missing" && !intactPlaceholder(path, ours.get(path)))
      parts.push({ path, why: `has ${name}` });
  }
  for (const name of childFolders(`${gitDir}/modules`)) {
    const why = unsafeRepository(`${gitDir}/modules/${name}`);
    if (why) parts.push({ path: `${gitDir}/modules/${name}`, why: `holds a submodule that ${why}` });
  }
  return parts;
}

/** Why a git folder's config would run or redirect something: a key git does not write, a hard link, unread. */
function unsafeConfig(gitDir: string): string | undefined {
  const config = readWorkspaceGitConfig(`${gitDir}/config`);
  if (config === undefined && identity(`${gitDir}/config`) !== "missing") return "has an unreadable config";
  if (linkCount(`${gitDir}/config`) > 1) return "has a config with another hard link";
  for (const entry of config ?? []) {
    if (entry.section === "core" && entry.key === "worktree" && entry.subsection === undefined) {
      if (ownWorktree(gitDir, entry.value)) continue;
      return "sets core.worktree to a folder that is not its own checkout (git would check files out there)";
    }
    const allowed = SAFE_KEYS.some(
      (k) =>
        k.section === entry.section &&
        k.key === entry.key &&
        (k.sub === undefined ? entry.subsection === undefined : entry.subsection !== undefined),
    );
    if (!allowed) {
      // A subsection is free text (url.<https://user:token@host/>.insteadOf): never echoed.
      const sub = entry.subsection === undefined ? "" : ".…";
      return `sets ${entry.section}${sub}.${entry.key} in its config`;
    }
  }
  return undefined;
}

/**
 * Whether `core.worktree` (relative to the git folder) names the git folder's own checkout: a folder whose `.git`
 * file names this git folder back, as git writes for a submodule. Anything else redirects git's work tree.
 */
function ownWorktree(gitDir: string, value: string): boolean {
  const worktree = isAbsolute(value) ? resolve(value) : resolve(gitDir, value);
  const named = gitDirOfFile(`${worktree}/.git`);
  return named !== undefined && resolve(named) === resolve(gitDir);
}

/** The entries of a hooks folder git would run (not a `*.sample` file; a sample with another hard link). */
function unsafeHooks(folder: string): UnsafePart[] {
  let hooks: Dirent<Buffer>[];
  try {
    hooks = readdirSync(bytesOf(folder), { withFileTypes: true, encoding: "buffer" });
  } catch (error) {
    // No hooks folder; one the check cannot list is not known to be empty.
    return (error as NodeJS.ErrnoException).code === "ENOENT"
      ? []
      : [{ path: folder, why: "has a hooks folder it cannot list" }];
  }
  const parts: UnsafePart[] = [];
  for (const hook of hooks) {
    const path = `${folder}/${hook.name.toString("latin1")}`;
    if (!hook.isFile() || !hook.name.toString("latin1").endsWith(".sample"))
      parts.push({ path, why: "has hooks" });
    else if (linkCount(path) > 1) parts.push({ path, why: "has a hook with another hard link" });
  }
  return parts;
}

/** A file's hard link count (0 when it is not there or cannot be looked at). */
function linkCount(path: string): number {
  try {
    return lstatSync(bytesOf(path), { throwIfNoEntry: false })?.nlink ?? 0;
  } catch {
    return 0;
  }
}
