/**
 * @module policy/git-config-hazards
 * What a repository's own git config could make an allowed git command run, where no environment switch can
 * stop it (filter, textconv and merge drivers, an external diff, credential helpers, ...; the switches toolgate
 * does set are in `tools/shell/git-env.json`). The keys are data (`git-hazards.json`). The check is IO, so it
 * runs while the command argument is prepared, never inside the pure `evaluate`: each key found becomes an
 * `unsafe` reason on the analysis, which caps an allow rule at `ask` and names the key.
 */
import { readFileSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import HAZARDS from "./git-hazards.json" with { type: "json" };
import type { CommandAnalysis } from "./shell/index.js";
import type { ArgKindPlugin, PrepareContext } from "./types.js";

/** One entry of `git-hazards.json`. */
export interface GitHazardKey {
  section: string;
  /** `*`: any subsection (a driver or remote name); absent: the key has none. */
  subsection?: string;
  /** `*`: any name. */
  name: string;
  valueStartsWith?: string;
  does: string;
}

/** A key as git config files spell it: section and name lower-case, subsection as written. */
export interface GitConfigEntry {
  section: string;
  subsection?: string;
  name: string;
  value: string;
}

export const GIT_HAZARD_KEYS: readonly GitHazardKey[] = Object.freeze(HAZARDS.keys as GitHazardKey[]);

/** Reads one header `[section "sub"]` or `[section.sub]` at the start of `line`; returns it and the rest. */
function parseHeader(line: string): { section: string; subsection?: string; rest: string } | undefined {
  const quoted = /^\[\s*([A-Za-z0-9.-]+)\s+"((?:[^"\\]|\\.)*)"\s*\]/.exec(line);
  if (quoted) {
    const subsection = quoted[2]!.replace(/\\(.)/g, "$1");
    return { section: quoted[1]!.toLowerCase(), subsection, rest: line.slice(quoted[0].length) };
  }
  const plain = /^\[\s*([A-Za-z0-9.-]+)\s*\]/.exec(line);
  if (!plain) return undefined;
  const [section, ...sub] = plain[1]!.split(".");
  const rest = line.slice(plain[0].length);
  // The old `[section.sub]` form: the subsection is lower-cased by git.
  return sub.length > 0
    ? { section: section!.toLowerCase(), subsection: sub.join(".").toLowerCase(), rest }
    : { section: section!.toLowerCase(), rest };
}

/**
 * The keys a git config file sets. Deliberately loose: a continuation line that looks like a key counts as
 * one (a false alarm asks once more; a missed key would run code).
 * @example parseGitConfig('[diff "x"]\n\ttextconv = cat') // [{ section: "diff", subsection: "x", name: "textconv", value: "cat" }]
 */
export function parseGitConfig(text: string): GitConfigEntry[] {
  const out: GitConfigEntry[] = [];
  let section: string | undefined;
  let subsection: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    while (line.startsWith("[")) {
      const header = parseHeader(line);
      if (!header) {
        section = undefined;
        line = "";
        break;
      }
      section = header.section;
      subsection = header.subsection;
      line = header.rest.trim();
    }
    if (line === "" || line.startsWith("#") || line.startsWith(";") || section === undefined) continue;
    const key = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!key) continue;
    const value = (key[2] ?? "").replace(/^"/, "");
    out.push({
      section,
      ...(subsection !== undefined ? { subsection } : {}),
      name: key[1]!.toLowerCase(),
      value,
    });
  }
  return out;
}

function matches(entry: GitConfigEntry, key: GitHazardKey): boolean {
  if (entry.section !== key.section) return false;
  if (key.subsection === undefined ? entry.subsection !== undefined : entry.subsection === undefined)
    return false;
  if (key.name !== "*" && entry.name !== key.name) return false;
  return key.valueStartsWith === undefined || entry.value.startsWith(key.valueStartsWith);
}

/** The spelled key (`diff.x.textconv`). */
function spell(entry: GitConfigEntry): string {
  return [entry.section, entry.subsection, entry.name].filter((p) => p !== undefined).join(".");
}

/** Hazards in config text, as `"diff.x.textconv (a textconv driver runs ...)"`. */
export function hazardsInConfig(text: string, keys: readonly GitHazardKey[] = GIT_HAZARD_KEYS): string[] {
  return hazardsInEntries(parseGitConfig(text), keys);
}

function hazardsInEntries(
  entries: GitConfigEntry[],
  keys: readonly GitHazardKey[] = GIT_HAZARD_KEYS,
): string[] {
  const found: string[] = [];
  for (const entry of entries) {
    const key = keys.find((k) => matches(entry, k));
    if (key) found.push(`${spell(entry)} (${key.does})`);
  }
  return [...new Set(found)];
}

function statOf(path: string) {
  return statSync(path, { throwIfNoEntry: false });
}

/**
 * The config files of the repository `dir` is in: `.git/config` (and `config.worktree`), following a
 * `.git` file (`gitdir: ...`) and a worktree's `commondir`. None outside a repository. Synchronous: a few
 * stats on the path up, done for every git command the policy prepares (see `npm run bench git-config`).
 */
export function repositoryConfigFiles(dir: string): string[] {
  for (const level of levelsUp(dir)) {
    const info = statOf(level.dotGit);
    if (info?.isDirectory()) return [level.config, level.worktree];
    if (info?.isFile()) {
      const target = /^gitdir:\s*(.+)$/m.exec(readText(level.dotGit) ?? "")?.[1]?.trim();
      if (!target) return [];
      const gitDir = isAbsolute(target) ? target : resolve(level.dir, target);
      const files = [join(gitDir, "config"), join(gitDir, "config.worktree")];
      const common = (readText(join(gitDir, "commondir")) ?? "").trim();
      if (common) files.push(join(isAbsolute(common) ? common : resolve(gitDir, common), "config"));
      return files;
    }
  }
  return [];
}

/** One folder on the way up, with the paths looked for in it. */
interface Level {
  dir: string;
  dotGit: string;
  config: string;
  worktree: string;
}

/**
 * `dir` and each folder above it, with their `.git` paths: path arithmetic only (no file system), kept per
 * folder, since the joins cost as much as the stats they lead to.
 */
function levelsUp(dir: string): readonly Level[] {
  let levels = levelCache.get(dir);
  if (levels === undefined) {
    const out: Level[] = [];
    for (let current = resolve(dir); ; ) {
      const dotGit = join(current, ".git");
      out.push({
        dir: current,
        dotGit,
        config: join(dotGit, "config"),
        worktree: join(dotGit, "config.worktree"),
      });
      const up = dirname(current);
      if (up === current) break;
      current = up;
    }
    levels = Object.freeze(out);
    if (levelCache.size >= CACHE_LIMIT) levelCache.delete(levelCache.keys().next().value!);
    levelCache.set(dir, levels);
  }
  return levels;
}
const levelCache = new Map<string, readonly Level[]>();

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** What a config file holds, valid while the file's identity, size and times are unchanged. */
interface FileHazards {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  hazards: string[];
  /** Whether it turns on `extensions.worktreeConfig`, without which git never reads `config.worktree`. */
  worktreeConfig: boolean;
}
const cache = new Map<string, FileHazards>();
const CACHE_LIMIT = 256;
const NO_FILE: FileHazards = Object.freeze({
  ino: 0,
  size: 0,
  mtimeMs: 0,
  ctimeMs: 0,
  hazards: [],
  worktreeConfig: false,
});

function hazardsOfFile(file: string): FileHazards {
  const info = statOf(file);
  if (!info?.isFile()) return NO_FILE;
  const known = cache.get(file);
  if (
    known !== undefined &&
    known.ino === info.ino &&
    known.size === info.size &&
    known.mtimeMs === info.mtimeMs &&
    known.ctimeMs === info.ctimeMs
  )
    return known;
  const text = readText(file) ?? "";
  const entries = parseGitConfig(text);
  const found: FileHazards = {
    ino: info.ino,
    size: info.size,
    mtimeMs: info.mtimeMs,
    ctimeMs: info.ctimeMs,
    hazards: hazardsInEntries(entries),
    worktreeConfig: entries.some(turnsOnWorktreeConfig),
  };
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(file, found);
  return found;
}

/** Git's false spellings; any other value (an empty one included) counts as on, the careful reading. */
const FALSE = new Set(["false", "no", "off", "0"]);

function turnsOnWorktreeConfig(entry: GitConfigEntry): boolean {
  return (
    entry.section === "extensions" &&
    entry.subsection === undefined &&
    entry.name === "worktreeconfig" &&
    !FALSE.has(entry.value.trim().toLowerCase())
  );
}

/** Every hazard in the config of the repository holding `dir`, as `repository config sets KEY (...)`. */
export function repositoryHazards(dir: string): string[] {
  const out: string[] = [];
  const files = repositoryConfigFiles(dir);
  // `.git/config` and `.git/config.worktree`: git reads the second only when the first turns the extension
  // on. (A linked worktree's files are all read: its extension lives in the common config, listed last.)
  const plain = files.length === 2;
  for (let i = 0; i < files.length; i++) {
    const file = hazardsOfFile(files[i]!);
    for (const hazard of file.hazards) out.push(`repository config sets ${hazard}`);
    if (plain && i === 0 && !file.worktreeConfig) break;
  }
  return out;
}

/** True when a sub-command runs git. */
function runsGit(analysis: CommandAnalysis): boolean {
  return analysis.commands.some((words) => words[0] !== undefined && basename(words[0]) === "git");
}

/** The directory the command runs in: the call's `cwd` against the first root, else the first root. */
function commandDir(context: PrepareContext): string | undefined {
  const root = context.roots[0];
  if (root === undefined) return undefined;
  const cwd = context.args["cwd"];
  // A `cwd` that does not exist is still walked up: its nearest existing repository is the one git would use.
  return typeof cwd === "string" && cwd !== "" ? resolve(root, cwd) : root;
}

/**
 * Wraps the command kind so a git command in a repository whose own config holds a hazard key is
 * unsafe (allow rules cap at `ask`, a default `allow` does not apply), the key named in the reason.
 * @example const plugin = withGitConfigCheck(createCommandKind());
 */
export function withGitConfigCheck(plugin: ArgKindPlugin<CommandAnalysis>): ArgKindPlugin<CommandAnalysis> {
  return {
    ...plugin,
    async prepare(raw, context) {
      const analysis = await plugin.prepare(raw, context);
      if (!runsGit(analysis)) return analysis;
      const dir = commandDir(context);
      if (dir === undefined) return analysis;
      let hazards: string[];
      try {
        hazards = repositoryHazards(dir);
      } catch (error) {
        hazards = [`repository config could not be checked (${(error as Error).message})`];
      }
      return hazards.length === 0 ? analysis : { ...analysis, unsafe: [...analysis.unsafe, ...hazards] };
    },
  };
}
