/**
 * @module policy/git-repositories
 * Which repositories' config files a git command reads: the repository it runs in — after `cd DIR`, `-C DIR`,
 * `--git-dir`, `--work-tree`, `--bare` and `GIT_DIR=`/`GIT_WORK_TREE=` prefixes — found as git finds it (a
 * `.git` folder or `.git` file on the way up), and the submodules it goes into (their git dirs under
 * `modules/`, and embedded `.git` folders named by `.gitmodules`, nested ones too). File-system reads only:
 * stats on the way up, a folder walk only where submodules exist.
 */
import { readdirSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { readPlainFileSync } from "../utils/index.js";
import { SUBMODULE_RECURSION } from "./git-hazards.js";

/** One repository's config, as git reads it. */
export interface Repository {
  /** Config files, in git's order. */
  readonly files: readonly string[];
  /** `files` is `.git/config` then `.git/config.worktree`: git reads the second only with the extension. */
  readonly worktreeNeedsExtension: boolean;
  /** The git dir holding `modules/` (the common dir of a linked worktree). */
  readonly commonDir: string;
  /** The work tree's top folder, where `.gitmodules` is; absent for a bare repository. */
  readonly workTree?: string;
  /** `commonDir/modules` and `workTree/.gitmodules`, joined once. */
  readonly modules: string;
  readonly gitmodules?: string;
}

/** A repository's paths, the joins done once. */
function repository(
  files: string[],
  worktreeNeedsExtension: boolean,
  commonDir: string,
  workTree?: string,
): Repository {
  return {
    files,
    worktreeNeedsExtension,
    commonDir,
    modules: join(commonDir, "modules"),
    ...(workTree !== undefined ? { workTree, gitmodules: join(workTree, ".gitmodules") } : {}),
  };
}

const MAX_SUBMODULES = 64;
const MAX_MODULE_DEPTH = 8;

function statOf(path: string) {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function readText(file: string): string | undefined {
  try {
    return readPlainFileSync(file).toString("utf8");
  } catch {
    return undefined;
  }
}

/** The repository whose git dir is `gitDir` (named with `--git-dir`, `GIT_DIR`, or a `.git` file). */
export function repositoryOfGitDir(gitDir: string, workTree?: string): Repository {
  const files = [join(gitDir, "config"), join(gitDir, "config.worktree")];
  const commonFile = join(gitDir, "commondir");
  const common = statOf(commonFile)?.isFile() ? (readText(commonFile) ?? "").trim() : "";
  const commonDir = common ? (isAbsolute(common) ? common : resolve(gitDir, common)) : gitDir;
  if (common) files.push(join(commonDir, "config"));
  return repository(files, false, commonDir, workTree);
}

/** Repositories of `.git` folders, by folder: path arithmetic only, so kept (a stat still says it is one). */
const folderRepositories = new Map<string, Repository>();

/** The repository at exactly `dir` (its `.git` folder or file), if any. */
function repositoryHere(dir: string, dotGit = join(dir, ".git")): Repository | undefined {
  const info = statOf(dotGit);
  if (info?.isDirectory()) {
    let known = folderRepositories.get(dotGit);
    if (known === undefined) {
      known = repository([join(dotGit, "config"), join(dotGit, "config.worktree")], true, dotGit, dir);
      if (folderRepositories.size >= 256) folderRepositories.delete(folderRepositories.keys().next().value!);
      folderRepositories.set(dotGit, known);
    }
    return known;
  }
  if (!info?.isFile()) return undefined;
  const target = /^gitdir:\s*(.+)$/m.exec(readText(dotGit) ?? "")?.[1]?.trim();
  if (!target) return repository([], false, dotGit, dir);
  return repositoryOfGitDir(isAbsolute(target) ? target : resolve(dir, target), dir);
}

/**
 * The repository `dir` is in, found as git finds it: the nearest `.git` folder or file on the way up.
 * @example repositoryAt("/ws/src")?.files // ["/ws/.git/config", "/ws/.git/config.worktree"]
 */
export function repositoryAt(dir: string): Repository | undefined {
  for (const level of levelsUp(dir)) {
    const found = repositoryHere(level.dir, level.dotGit);
    if (found) return found;
  }
  return undefined;
}

/** The config files of the repository `dir` is in (none outside a repository). */
export function repositoryConfigFiles(dir: string): string[] {
  return [...(repositoryAt(dir)?.files ?? [])];
}

/** `dir` and each folder above it, with its `.git` path: path arithmetic, kept per folder. */
function levelsUp(dir: string): readonly { dir: string; dotGit: string }[] {
  let levels = levelCache.get(dir);
  if (levels === undefined) {
    const out: { dir: string; dotGit: string }[] = [];
    for (let current = resolve(dir); ; ) {
      out.push({ dir: current, dotGit: join(current, ".git") });
      const up = dirname(current);
      if (up === current) break;
      current = up;
    }
    levels = Object.freeze(out);
    if (levelCache.size >= 256) levelCache.delete(levelCache.keys().next().value!);
    levelCache.set(dir, levels);
  }
  return levels;
}
const levelCache = new Map<string, readonly { dir: string; dotGit: string }[]>();

/** Where one git command runs and what it reads, from its words and the analysis' place for it. */
export interface GitTarget {
  /** The repositories whose config it reads (the one it runs in; its `--work-tree`'s too). */
  readonly repositories: Repository[];
  /** Whether it goes into submodules by its own words (`status`, `--recurse-submodules`, ...). */
  readonly recurses: boolean;
  /** Extra config files named by the environment (`GIT_CONFIG_GLOBAL=`). */
  readonly files: string[];
}

const CONFIG_FILE_VARIABLES = ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG"];
const WITH_VALUE = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--super-prefix",
  "--config-env",
]);

/**
 * Where `git WORDS` runs, from the folder `dir` (absolute; the analysis followed `cd`) and the variables set
 * before it. `find` looks a folder's repository up (a caller may remember them for one command line).
 * @example gitTarget(["git", "-C", "sub", "status"], "/ws", {}).repositories[0]?.workTree // "/ws/sub"
 */
export function gitTarget(
  words: readonly string[],
  dir: string,
  vars: Readonly<Record<string, string>> = {},
  find: (dir: string) => Repository | undefined = repositoryAt,
): GitTarget {
  let cwd = dir;
  let gitDir = vars["GIT_DIR"];
  let workTree = vars["GIT_WORK_TREE"];
  let i = 1;
  for (; i < words.length && words[i]!.startsWith("-"); i++) {
    const w = words[i]!;
    const eq = w.indexOf("=");
    const [name, attached] = eq > 0 ? [w.slice(0, eq), w.slice(eq + 1)] : [w, undefined];
    const value = attached ?? (WITH_VALUE.has(name) ? words[++i] : undefined);
    if (name === "-C" && value) cwd = resolve(cwd, value);
    else if (name === "--git-dir" && value !== undefined) gitDir = value;
    else if (name === "--work-tree" && value !== undefined) workTree = value;
    else if (name === "--bare") gitDir = ".";
  }
  const sub = words[i];
  const repositories: Repository[] = [];
  const tree = workTree === undefined ? undefined : resolve(cwd, workTree);
  if (gitDir !== undefined) repositories.push(repositoryOfGitDir(resolve(cwd, gitDir), tree));
  else {
    const found = find(cwd);
    if (found) repositories.push(found);
  }
  // With --work-tree, the work tree's own repository is read too: the careful reading.
  const treeRepository = tree === undefined ? undefined : find(tree);
  if (treeRepository) repositories.push(treeRepository);
  const recurses =
    (sub !== undefined && SUBMODULE_RECURSION.subcommands.has(sub)) ||
    words.some((w) => SUBMODULE_RECURSION.options.some((o) => w === o || w.startsWith(`${o}=`)));
  const files: string[] = [];
  for (const name of CONFIG_FILE_VARIABLES) if (vars[name]) files.push(resolve(cwd, vars[name]!));
  return { repositories, recurses, files };
}

/** Thrown when a repository has more submodules than are checked. */
export class TooManySubmodules extends Error {}

/**
 * Every submodule of `top`, nested ones too: git dirs under `modules/`, and `.git` folders at the
 * paths `.gitmodules` names.
 * @throws TooManySubmodules past 64: the rest would go unchecked.
 */
export function submodulesOf(top: Repository): Repository[] {
  const found = new Map<string, Repository>();
  const add = (repo: Repository) => {
    const key = repo.files[0] ?? repo.commonDir;
    if (found.has(key)) return false;
    if (found.size >= MAX_SUBMODULES) throw new TooManySubmodules("too many submodules to check");
    found.set(key, repo);
    return true;
  };
  const walkModules = (folder: string, depth: number) => {
    if (depth > MAX_MODULE_DEPTH || !statOf(folder)?.isDirectory()) return;
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const path = join(folder, entry.name);
      // A git dir has a config and a HEAD; a name with a slash is a folder of them.
      if (statOf(join(path, "HEAD"))?.isFile()) {
        if (add(repositoryOfGitDir(path))) walkModules(join(path, "modules"), depth + 1);
      } else walkModules(path, depth + 1);
    }
  };
  const walkTree = (repo: Repository, depth: number) => {
    const file = repo.gitmodules;
    if (depth > MAX_MODULE_DEPTH || repo.workTree === undefined || file === undefined) return;
    // A stat first: a read that fails throws, which costs more than the whole check.
    const text = statOf(file)?.isFile() ? readText(file) : undefined;
    if (text === undefined) return;
    for (const m of text.matchAll(/^\s*path\s*=\s*"?([^"\n]+?)"?\s*$/gim)) {
      const sub = repositoryHere(resolve(repo.workTree, m[1]!));
      if (sub && add(sub)) walkTree(sub, depth + 1);
    }
  };
  walkModules(top.modules, 0);
  walkTree(top, 0);
  return [...found.values()];
}
