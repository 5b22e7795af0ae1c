/**
 * @module policy/git-config-hazards
 * What a repository's own git config could make an allowed git command run, where no environment switch can
 * stop it (filter, textconv and merge drivers, an external diff, credential helpers, the man viewer and
 * browser of `--help`, ...; the switches toolgate does set are in `tools/shell/git-env.json`). The keys are
 * data (`git-hazards.json`). The config read is the one of the repository each git command actually runs in
 * (`cd`, `-C`, `--git-dir`, `GIT_DIR=`; `git-repositories.ts`), and its submodules' when it goes into them.
 * The check is IO, so it runs while the command argument is prepared, never inside the pure `evaluate`: each
 * key found becomes an `unsafe` reason on the analysis, which caps an allow rule at `ask` and names the key.
 */
import { statSync } from "node:fs";
import { basename, dirname, relative, resolve } from "node:path";
import { readPlainFileSync } from "../utils/index.js";
import {
  GIT_HAZARD_KEYS,
  type GitConfigEntry,
  type GitHazardKey,
  keyMatches,
  SUBMODULE_RECURSION,
  spellEntry,
} from "./git-hazards.js";
import { gitTarget, type Repository, repositoryAt, submodulesOf } from "./git-repositories.js";
import { type CommandAnalysis, commandFolder } from "./shell/index.js";
import type { ArgKindPlugin } from "./types.js";

export { GIT_HAZARD_KEYS, type GitConfigEntry, type GitHazardKey } from "./git-hazards.js";
export { repositoryConfigFiles } from "./git-repositories.js";

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
    const key = keys.find((k) => keyMatches(entry, k));
    if (key) found.push(`${spellEntry(entry)} (${key.does})`);
  }
  return [...new Set(found)];
}

function statOf(path: string) {
  try {
    return statSync(path, { throwIfNoEntry: false });
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
  /** Whether it makes git go into submodules (`submodule.recurse`, `diff.submodule`, ...). */
  recursion: boolean;
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
  recursion: false,
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
  let text: string;
  try {
    text = readPlainFileSync(file).toString("utf8");
  } catch {
    text = "";
  }
  const entries = parseGitConfig(text);
  const found: FileHazards = {
    ino: info.ino,
    size: info.size,
    mtimeMs: info.mtimeMs,
    ctimeMs: info.ctimeMs,
    hazards: hazardsInEntries(entries),
    worktreeConfig: entries.some((e) => turnedOn(e, "extensions.worktreeconfig")),
    recursion: entries.some((e) => SUBMODULE_RECURSION.configKeys.some((k) => turnedOn(e, k))),
  };
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(file, found);
  return found;
}

/** Git's false spellings; any other value (an empty one included) counts as on, the careful reading. */
const FALSE = new Set(["false", "no", "off", "0"]);

function turnedOn(entry: GitConfigEntry, key: string): boolean {
  return spellEntry(entry) === key && !FALSE.has(entry.value.trim().toLowerCase());
}

/** The hazards of one repository's config, and whether that config makes git go into submodules. */
function repositoryConfig(repository: Repository): { hazards: string[]; recursion: boolean } {
  const hazards: string[] = [];
  let recursion = false;
  const { files } = repository;
  for (let i = 0; i < files.length; i++) {
    const file = hazardsOfFile(files[i]!);
    hazards.push(...file.hazards);
    recursion ||= file.recursion;
    // `.git/config.worktree` counts only when `.git/config` turns the extension on. (A linked worktree's
    // files are all read: its extension lives in the common config, listed last.)
    if (repository.worktreeNeedsExtension && i === 0 && !file.worktreeConfig) break;
  }
  return { hazards, recursion };
}

/** Every hazard in the config of the repository holding `dir`, as `repository config sets KEY (...)`. */
export function repositoryHazards(dir: string): string[] {
  const repository = repositoryAt(dir);
  return repository ? repositoryConfig(repository).hazards.map((h) => `repository config sets ${h}`) : [];
}

/** Why each git command of the analysis is not plain: the hazards of every config it would read. */
function gitReasons(analysis: CommandAnalysis, base: string): string[] {
  const out = new Set<string>();
  const seen = new Set<string>();
  const where = (repository: Repository) => {
    const { workTree, commonDir } = repository;
    const path = workTree ?? (basename(commonDir) === ".git" ? dirname(commonDir) : commonDir);
    return relative(base, path) || ".";
  };
  const check = (repository: Repository, label: string, recurse: boolean) => {
    const key = repository.files[0] ?? repository.commonDir;
    if (seen.has(key)) return;
    seen.add(key);
    const { hazards, recursion } = repositoryConfig(repository);
    for (const hazard of hazards) out.add(`${label} sets ${hazard}`);
    if (!recurse && !recursion) return;
    for (const sub of submodulesOf(repository)) check(sub, `the config of submodule ${where(sub)}`, false);
  };
  // The folder the line starts in, always: a `cd` that fails leaves git there.
  const home = repositoryAt(base);
  const found = new Map<string, Repository | undefined>([[base, home]]);
  const lookup = (dir: string) => {
    if (!found.has(dir)) found.set(dir, repositoryAt(dir));
    return found.get(dir);
  };
  analysis.commands.forEach((words, i) => {
    if (words[0] === undefined || basename(words[0]) !== "git") return;
    const place = analysis.places[i];
    if (place === undefined || place.dir === null) {
      out.add(
        "git runs in a folder the analysis cannot tell (after cd): its repository config was not checked",
      );
      return;
    }
    const target = gitTarget(words, place.dir === "." ? base : resolve(base, place.dir), place.vars, lookup);
    if (home) check(home, "repository config", target.recurses);
    for (const repository of target.repositories) {
      const label =
        repository === home || where(repository) === "."
          ? "repository config"
          : `the repository config in ${where(repository)}`;
      check(repository, label, target.recurses);
    }
    for (const file of target.files) {
      for (const hazard of hazardsOfFile(file).hazards) out.add(`config file ${file} sets ${hazard}`);
    }
  });
  return [...out];
}

/**
 * Wraps the command kind so a git command whose repository config (or submodule config, or a config file
 * named by `GIT_CONFIG_GLOBAL=`) holds a hazard key is unsafe: allow rules cap at `ask`, a default `allow`
 * does not apply, the key named in the reason.
 * @example const plugin = withGitConfigCheck(createCommandKind());
 */
export function withGitConfigCheck(plugin: ArgKindPlugin<CommandAnalysis>): ArgKindPlugin<CommandAnalysis> {
  return {
    ...plugin,
    async prepare(raw, context) {
      const analysis = await plugin.prepare(raw, context);
      if (!analysis.commands.some((words) => words[0] !== undefined && basename(words[0]) === "git"))
        return analysis;
      const base = commandFolder(context);
      if (base === undefined) return analysis;
      let reasons: string[];
      try {
        reasons = gitReasons(analysis, base);
      } catch (error) {
        reasons = [`repository config could not be checked (${(error as Error).message})`];
      }
      return reasons.length === 0 ? analysis : { ...analysis, unsafe: [...analysis.unsafe, ...reasons] };
    },
  };
}
