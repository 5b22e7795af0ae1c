/**
 * @module sandbox/survey
 * Looks at the disk once per command to turn sandbox settings into a {@link Layout}: what stays visible of the
 * home folder, which paths are covered read-only (existing protected paths at any depth, git's own files),
 * which missing ones are blocked with a placeholder, and what is hidden (secrets by name, folders the walk
 * could not read or reach). The protected and secret lists are the workspace's — the data the file tools
 * enforce — so the two agree. Nothing is opened here; src/sandbox/open-layout.ts opens what this decided.
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, resolve } from "node:path";
import {
  DEFAULT_READ_ASK_PATTERNS,
  isInsideOrEqual,
  PathPatternSet,
  PROTECTED_ENTRIES,
  USER_SECRET_PATHS,
  WORKSPACE_SECRET_PATHS,
} from "../workspace/index.js";
import { bytesOf, rawOf, textOf } from "./descriptors.js";
import {
  commonDirOf,
  type GitContext,
  type GitProtection,
  gitDirOfFile,
  globalHooksPaths,
  includedConfigs,
  newGitProtection,
  protectGitDir,
} from "./git-dirs.js";
import { trackedUnchanged } from "./git-index.js";
import { repoConfigCopyFile } from "./git-repo-config.js";
import { gitConfigCopyFile, userGitConfigPaths } from "./git-user-config.js";
import { type VisiblePath, visibleInHome } from "./home.js";
import { shownParts } from "./home-parts.js";
import { pathFolders, pointerTargets, toolgateCodePaths } from "./own-paths.js";
import { heldPlaceholderFiles, heldPlaceholders } from "./placeholders.js";
import { fitPlan, PlanBudgetError } from "./plan-budget.js";
import { listFolder, SCAN_MAX_DIRS, type ScanResult, type ScanRules, scanRoot } from "./scan.js";
import { unwalkedCovers } from "./skipped-budget.js";
import { gitlinkStamps } from "./sweep-gitlinks.js";

/** What a layout is made from (paths as text, absolute). */
export interface SurveyInput {
  mode: "workspace-write" | "read-only";
  network: boolean;
  /** Canonical roots. */
  roots: readonly string[];
  cwd: string;
  /** Extra writable paths. */
  writable?: readonly string[];
  /** Extra unreadable paths. */
  hidden?: readonly string[];
  /** Extra paths inside the home folder that stay visible (read-only): `[sandbox] readable`. */
  readable?: readonly string[];
  /** Folders the walk leaves alone (`[sandbox] unchecked`): large build output with no secrets. */
  unchecked?: readonly string[];
  /** Extra protected patterns (`[files] protected`), relative gitignore patterns or absolute paths. */
  protectedExtra?: readonly string[];
  /** The home folder (default: the user's). */
  home?: string;
  /** Where PATH, the toolchain variables and XDG_CONFIG_HOME are read (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** At most this many folders read per root (default {@link SCAN_MAX_DIRS}). */
  maxDirs?: number;
  /** At most this many folders read inside skipped folders per root (tests; default in scan-skipped.ts). */
  skippedMaxDirs?: number;
  /**
   * When hiding what lies past `maxDirs` would hide a root, the walk reads on up to this many folders instead of
   * refusing (default {@link SCAN_WIDE_MAX_DIRS}).
   */
  maxDirsWide?: number;
}

/**
 * How far the walk reads on when the folders past {@link SCAN_MAX_DIRS} are spread so widely that hiding them
 * would hide the root (thousands of folders side by side, as a command can make): slower, never refused for it
 * below this many (issue 26.7: a command cannot make later commands fail). Past it, refused with the reason.
 */
export const SCAN_WIDE_MAX_DIRS = 1_000_000;

/**
 * How a covered path is covered (all read-only): `self`, with its own file (a protected path that exists);
 * `empty`, with the empty folder (a placeholder for a missing protected path, a hidden folder); `null`, with
 * /dev/null (a hidden file).
 */
export type CoverKind = "self" | "empty" | "null";

/** The survey's decision, in raw paths (one byte per character). */
export interface Layout {
  mode: "workspace-write" | "read-only";
  network: boolean;
  cwd: string;
  /** The home folder, emptied (a writable tmpfs); undefined when it is shown (a root, or `readable`). */
  home: string | undefined;
  /** Read-only binds into the emptied home folder: where, and the real path shown there. */
  visible: { path: string; source: string }[];
  /** Writable places: the roots (in `workspace-write`) and `[sandbox] writable`. */
  writable: string[];
  /** Roots shown read-only (in `read-only` mode). */
  readOnlyRoots: string[];
  /** Covered paths and how. */
  covers: Map<string, CoverKind>;
  /**
   * `self` covers shown with another file's content: a repository's config → its filtered copy
   * (git-repo-config.ts). Absent: each shows itself.
   */
  coverSources?: Map<string, string>;
  /** Missing protected paths to make (empty folders) so they can be covered; inside a writable place. */
  placeholders: string[];
  /** Missing git files to make so they can be covered (raw path → what git reads there as nothing). */
  placeholderFiles: Map<string, string>;
  /** Folders between a writable place and a covered path: bound onto themselves (cannot be renamed away). */
  pins: string[];
  /** Git folders whose missing state (commondir, rebase/sequencer, config.worktree) the check after looks for. */
  gitDirs: string[];
  /** Separate git folders (raw) → the folder of the `.git` file that names them: the worktree of their index. */
  gitTops: Map<string, string>;
  /** Gitlinked repositories the indexes record before the command: `.git` (raw) → stamp (sweep-gitlinks.ts). */
  gitlinks: Map<string, string>;
  /** `core.hooksPath` values of the user's and the system's git config (raw; relative ones apply per repository). */
  globalHooksPaths: string[];
  /** Per root: existing protected paths (raw relative) and what they were, for the check after the command. */
  baseline: Map<string, Map<string, string>>;
  /** What was hidden because it could not be looked at (for the result): raw paths. */
  unsurveyed: string[];
  /** Lines for the result about how the survey went (a root read on past the folder limit). */
  notes: string[];
  /** When the survey began (ms): what changed since was changed by the command or while it ran. */
  surveyedAt?: number;
}

/** Folders left unread at the limit are hidden whole; when more than this many, their parents instead. */
const MAX_UNSURVEYED_COVERS = 64;

/** Why a command cannot be sandboxed as asked (fail closed). */
export class SandboxSetupError extends Error {
  override readonly name = "SandboxSetupError";
}

// Made on the first survey, not at load: a gate that runs no command does not pay for them (~3 ms).
let builtin: { protectedSet: PathPatternSet; secretSet: PathPatternSet } | undefined;
function builtinPatterns() {
  builtin ??= {
    protectedSet: new PathPatternSet(PROTECTED_ENTRIES.map((e) => e.pattern)),
    secretSet: new PathPatternSet(DEFAULT_READ_ASK_PATTERNS),
  };
  return builtin;
}

/** The protected and secret patterns a survey matches with (the built-in ones plus `[files] protected`). */
export function surveyPatterns(protectedExtra: readonly string[] = []): {
  protectedSet: PathPatternSet;
  secretSet: PathPatternSet;
} {
  const { protectedSet, secretSet } = builtinPatterns();
  if (protectedExtra.length === 0) return { protectedSet, secretSet };
  return {
    protectedSet: new PathPatternSet([...PROTECTED_ENTRIES.map((e) => e.pattern), ...protectedExtra]),
    secretSet,
  };
}

/**
 * Surveys the disk for `input` and returns the layout.
 * @throws SandboxSetupError when a writable path does not exist, or so much of the workspace is beyond the
 * walk's limit that hiding it would hide a root.
 */
export function surveySandbox(input: SurveyInput): Layout {
  const env = input.env ?? process.env;
  const homeText = input.home ?? homedir();
  const home = rawOf(homeText);
  const roots = input.roots.map(rawOf);
  const writableExtra = (input.writable ?? []).map(rawOf);
  for (const path of writableExtra) {
    if (kindAt(path) === "missing") {
      throw new SandboxSetupError(
        `[sandbox] writable path ${textOf(path)} does not exist; create it or remove it`,
      );
    }
  }
  const writing = input.mode === "workspace-write";
  const writable = writing ? [...roots, ...writableExtra] : writableExtra;
  const writableAt = (path: string) => writable.some((w) => isInsideOrEqual(w, path));
  const visibleAll = visibleInHome(homeText, env, input.readable ?? []);
  const homeShown =
    visibleAll.some((v) => rawOf(v.path) === home) ||
    roots.some((r) => isInsideOrEqual(r, home) && r.length >= home.length);
  const layout: Layout = {
    mode: input.mode,
    network: input.network,
    cwd: rawOf(input.cwd),
    // A home folder that does not exist (HOME set elsewhere) has nothing to hide.
    home: homeShown || kindAt(home) !== "dir" ? undefined : home,
    visible: [],
    writable,
    readOnlyRoots: writing ? [] : roots,
    covers: new Map(),
    placeholders: [],
    placeholderFiles: new Map(),
    pins: [],
    gitDirs: [],
    gitTops: new Map(),
    gitlinks: new Map(),
    globalHooksPaths: [],
    baseline: new Map(),
    unsurveyed: [],
    notes: [],
    surveyedAt: Date.now(),
  };
  const { protectedSet, secretSet } = surveyPatterns(input.protectedExtra);
  if (layout.home) {
    showHomeParts(layout, visibleAll, roots, secretSet);
    showGitConfigCopies(layout, homeText, env.XDG_CONFIG_HOME);
  }
  const readableAt = (path: string) =>
    !layout.home ||
    !isInsideOrEqual(home, path) ||
    writableAt(path) ||
    roots.some((r) => isInsideOrEqual(r, path)) ||
    layout.visible.some((v) => isInsideOrEqual(v.path, path));

  const unchecked = new Set((input.unchecked ?? []).map(rawOf));
  const scans = roots.map((root) =>
    scanWithin(
      root,
      { protectedSet, secretSet, unchecked, maxDirs: input.maxDirs, skippedMaxDirs: input.skippedMaxDirs },
      input,
      layout.notes,
    ),
  );
  const git: GitContext = {
    writableAt,
    home,
    globalHooksPaths: globalHooksPaths(homeText, env.XDG_CONFIG_HOME).map(rawOf),
  };
  layout.globalHooksPaths = [...git.globalHooksPaths];
  const gitProtection = newGitProtection();
  const held = heldPlaceholders();
  for (const scan of scans) {
    hideSecrets(scan, layout, roots, readableAt);
    coverUnwalked(scan, layout, writableAt);
    if (writing) coverProtected(scan, layout, writableAt, held);
    layout.baseline.set(scan.root, baselineOf(scan));
    if (!writing) {
      // Nothing is writable, but the repositories' configs are still shown only as filtered copies.
      for (const found of scan.gitDirs)
        if (kindAt(`${found.path}/config`) === "file") gitProtection.readOnly.add(`${found.path}/config`);
      continue;
    }
    for (const found of scan.gitDirs) {
      const worktree = found.relative.split("/").pop() === ".git" ? dirname(found.path) : undefined;
      protectGitDir(found.path, worktree, git, gitProtection);
    }
    for (const file of scan.gitFiles) {
      layout.covers.set(file.path, "self");
      const target = gitDirOfFile(file.path);
      if (target && writableAt(target)) {
        layout.gitTops.set(target, dirname(file.path));
        protectGitDir(target, dirname(file.path), git, gitProtection);
        protectGitDir(commonDirOf(target), undefined, git, gitProtection);
      }
    }
  }
  if (writing) keepOwnPathsReadOnly(layout, env.PATH ?? "", writableAt);
  for (const path of writableExtra) {
    if (kindAt(`${path}/HEAD`) === "file") protectGitDir(path, undefined, git, gitProtection);
  }
  for (const path of gitProtection.readOnly) layout.covers.set(path, "self");
  showRepoConfigCopies(layout, gitProtection);
  for (const path of gitProtection.hidden) if (readableAt(path)) layout.covers.set(path, "null");
  for (const path of gitProtection.blocked) block(layout, path);
  for (const [path, content] of gitProtection.blockedFiles) {
    layout.covers.set(path, "self");
    layout.placeholderFiles.set(path, content);
  }
  layout.gitDirs = [...gitProtection.watched];
  for (const gitDir of layout.gitDirs) {
    for (const [dotGit, stamp] of gitlinkStampsOrNone(gitDir, layout.gitTops))
      layout.gitlinks.set(dotGit, stamp);
  }
  if (writing) blockMissingAtRoots(layout, roots, home);
  hideListed(layout, input, home, readableAt, env.XDG_CONFIG_HOME);
  try {
    fitPlan(layout, roots);
  } catch (error) {
    throw error instanceof PlanBudgetError ? new SandboxSetupError(error.message) : error;
  }
  finish(layout);
  // A placeholder another command made (still held, or lingering for the next command) looks like an existing
  // folder: this command holds it too, or it could be removed (which unmounts whatever covers it) meanwhile.
  const heldFiles = heldPlaceholderFiles();
  for (const path of [...layout.covers.keys(), ...layout.pins]) {
    const content = heldFiles.get(path);
    if (content !== undefined) layout.placeholderFiles.set(path, content);
    else if (held.has(path) && !layout.placeholders.includes(path)) layout.placeholders.push(path);
  }
  return layout;
}

/** Secrets by name, and what could not be looked at, hidden; secret links hide what they point at. */
function hideSecrets(
  scan: ScanResult,
  layout: Layout,
  roots: readonly string[],
  readableAt: (path: string) => boolean,
): void {
  const tracked = trackedSecrets(scan);
  for (const found of scan.secrets) {
    if (tracked.has(found.path)) continue;
    if (found.kind === "link") {
      // A link's own text is not the secret; what it points at may be. Hidden when the command could read it.
      const target = resolveThroughLinks(found.path);
      const kind = target === undefined ? "missing" : kindAt(target);
      if (target && kind !== "missing" && readableAt(target) && roots.some((r) => isInsideOrEqual(r, target)))
        layout.covers.set(target, kind === "dir" ? "empty" : "null");
      continue;
    }
    layout.covers.set(found.path, found.kind === "dir" ? "empty" : "null");
  }
  for (const sub of WORKSPACE_SECRET_PATHS) {
    const path = `${scan.root}/${rawOf(sub)}`;
    const kind = kindAt(path);
    if (kind === "dir" || kind === "file") layout.covers.set(path, kind === "dir" ? "empty" : "null");
  }
  for (const found of scan.unreadable) {
    layout.covers.set(found.path, "empty");
    layout.unsurveyed.push(found.path);
  }
  const left = coarsen(
    scan.unscanned.map((f) => f.path),
    scan.root,
  );
  if (left.includes(scan.root)) {
    throw new SandboxSetupError(
      `the workspace ${textOf(scan.root)} holds more folders than the sandbox looks through per command ` +
        `(${scan.dirs} read, outside node_modules), spread so widely that hiding the rest would hide the ` +
        "workspace itself; list large build folders in [sandbox] unchecked, or remove some folders",
    );
  }
  for (const path of left) {
    layout.covers.set(path, "empty");
    layout.unsurveyed.push(path);
  }
}

/**
 * Secret files git tracks unchanged (their content is in the history a command reads anyway): left visible, so
 * git works inside the sandbox. Each file is looked up in the index of the nearest repository above it.
 */
function trackedSecrets(scan: ScanResult): Set<string> {
  const worktrees: { top: string; gitDir: string }[] = [];
  for (const dir of scan.gitDirs) {
    if (dir.relative.split("/").pop() === ".git")
      worktrees.push({ top: dirname(dir.path), gitDir: dir.path });
  }
  for (const file of scan.gitFiles) {
    const gitDir = gitDirOfFile(file.path);
    if (gitDir) worktrees.push({ top: dirname(file.path), gitDir });
  }
  worktrees.sort((a, b) => b.top.length - a.top.length);
  const byRepository = new Map<(typeof worktrees)[number], string[]>();
  for (const found of scan.secrets) {
    if (found.kind !== "file") continue;
    const repository = worktrees.find((w) => found.path.startsWith(`${w.top}/`));
    if (!repository) continue;
    const list = byRepository.get(repository) ?? [];
    list.push(found.path.slice(repository.top.length + 1));
    byRepository.set(repository, list);
  }
  const out = new Set<string>();
  for (const [repository, paths] of byRepository) {
    for (const path of trackedUnchanged(repository.top, repository.gitDir, paths)) {
      out.add(`${repository.top}/${path}`);
    }
  }
  return out;
}

/**
 * Existing protected paths found at any depth: read-only (a link: what it points at, when writable). A
 * placeholder still empty (an earlier command's, lingering, or another process's) is blocked again as if
 * missing: covered by the one empty folder rather than opened and mounted on its own.
 */
function coverProtected(
  scan: ScanResult,
  layout: Layout,
  writableAt: (path: string) => boolean,
  held: ReadonlySet<string>,
): void {
  for (const found of scan.protected) {
    // A secret that also decides what runs (.npmrc) stays hidden: that is read-only too.
    if (layout.covers.has(found.path)) continue;
    if (found.kind === "dir" && held.has(found.path) && writableAt(found.path) && isEmptyFolder(found.path)) {
      block(layout, found.path);
      continue;
    }
    if (found.kind !== "link") {
      layout.covers.set(found.path, "self");
      continue;
    }
    const target = resolveThroughLinks(found.path);
    if (target === undefined || !writableAt(target)) continue;
    if (kindAt(target) === "missing") block(layout, target);
    else layout.covers.set(target, "self");
  }
}

/**
 * PATH's folders, toolgate's own code and the programs Yarn's settings name (own-paths.ts) inside a writable
 * place: read-only; a missing one is
 * blocked (a command would make it: a PATH folder to plant commands in, the program Yarn runs). One that is a
 * writable place or holds one (an empty PATH entry or `.` is the root) cannot be covered without making the root
 * read-only: left (docs/sandbox.md).
 */
function keepOwnPathsReadOnly(layout: Layout, pathVariable: string, writableAt: (path: string) => boolean) {
  const roots = layout.writable.map(textOf);
  const named = pointerTargets(roots);
  for (const text of [...pathFolders(pathVariable, roots), ...toolgateCodePaths(), ...named]) {
    const path = rawOf(text);
    if (!writableAt(path) || layout.writable.some((w) => isInsideOrEqual(path, w))) continue;
    const kind = kindAt(path);
    if (kind !== "missing") {
      if (kind === "dir" || kind === "file") layout.covers.set(path, "self");
      continue;
    }
    const place = layout.writable.find((w) => isInsideOrEqual(w, path))!;
    const where = whereMissing(place, path);
    if (where !== undefined && writableAt(where)) block(layout, where);
  }
}

/**
 * Missing protected names at each root (the entries' `sandbox` paths): blocked by a placeholder, so even a
 * command that runs for hours cannot create them. Deeper ones are found by the check after each command.
 * A folder on the way that is a link leads the placeholder to where it points (when that is writable).
 */
function blockMissingAtRoots(layout: Layout, roots: readonly string[], home: string): void {
  for (const root of roots) {
    for (const entry of PROTECTED_ENTRIES) {
      if (entry.home && root !== home) continue;
      for (const sub of entry.sandbox) {
        const path = whereMissing(root, `${root}/${rawOf(sub)}`);
        if (path === undefined || !layout.writable.some((w) => isInsideOrEqual(w, path))) continue;
        if (entry.init && kindAt(`${root}/${rawOf(sub.split("/")[0]!)}`) === "missing") continue;
        block(layout, path);
      }
    }
  }
}

/**
 * Where a missing path below `root` would be created: itself when every folder on the way is a real folder
 * or missing, where a link on the way leads (followed), undefined when it exists or cannot be made (a file on
 * the way, e.g. `.git` pointing elsewhere).
 */
function whereMissing(root: string, path: string): string | undefined {
  if (kindAt(path) !== "missing") return undefined;
  const names = path.slice(root.length + 1).split("/");
  for (let i = 1; i < names.length; i++) {
    const kind = kindAt(`${root}/${names.slice(0, i).join("/")}`);
    if (kind === "missing") return path;
    if (kind === "link") {
      const target = resolveThroughLinks(path);
      return target !== undefined && kindAt(target) === "missing" ? target : undefined;
    }
    if (kind !== "dir") return undefined;
  }
  return path;
}

/**
 * What the command sees of the home folder: what exists of each visible entry — whole, or only the parts its
 * patterns name (home-parts.ts) — as the real path it leads to. A part that leads elsewhere in the home folder
 * (a link out of the toolchain's folder) is not shown: only the entry's own folder was chosen.
 */
function showHomeParts(
  layout: Layout,
  visible: readonly VisiblePath[],
  roots: readonly string[],
  secretSet: PathPatternSet,
): void {
  const shown = new Set<string>();
  const secretName = (name: string) => secretSet.matches(textOf(name));
  for (const entry of visible) {
    const path = rawOf(entry.path);
    if (roots.some((r) => isInsideOrEqual(r, path))) continue;
    const own = realPathOf(path);
    if (own === undefined) continue;
    const parts = entry.show ? shownParts(path, entry.show, secretName) : [path];
    for (const part of parts) {
      const source = part === path ? own : realPathOf(part);
      if (source === undefined || shown.has(part)) continue;
      if (layout.home && isInsideOrEqual(layout.home, source) && !isInsideOrEqual(own, source)) continue;
      shown.add(part);
      layout.visible.push({ path: part, source });
    }
  }
}

/**
 * The user's git config files the command could read are shown as filtered copies (git-user-config.ts): they
 * often hold tokens. Only inside an emptied home folder: a home shown whole is the user's explicit choice.
 */
function showGitConfigCopies(layout: Layout, home: string, xdgConfigHome: string | undefined): void {
  for (const text of userGitConfigPaths(home, xdgConfigHome)) {
    const path = rawOf(text);
    const shown = layout.visible.find((v) => v.path === path);
    if (!shown && !layout.visible.some((v) => isInsideOrEqual(v.path, path))) continue;
    const real = realPathOf(path);
    if (real === undefined || kindAt(real) !== "file") continue;
    const copy = gitConfigCopyFile(text);
    if (copy.note) layout.notes.push(copy.note);
    if (shown) shown.source = rawOf(copy.path);
    else layout.visible.push({ path, source: rawOf(copy.path) });
  }
}

/**
 * A repository's own config files (`config`, `config.worktree` of each git folder protected) are shown as
 * filtered copies: remote URLs with a token, `http.*.extraheader`, `url.*.insteadOf` carry credentials.
 */
function showRepoConfigCopies(layout: Layout, protection: GitProtection): void {
  for (const path of protection.readOnly) {
    const name = path.slice(path.lastIndexOf("/") + 1);
    if ((name !== "config" && name !== "config.worktree") || kindAt(path) !== "file") continue;
    const copy = repoConfigCopyFile(textOf(path));
    if (copy.note) layout.notes.push(copy.note);
    layout.coverSources ??= new Map();
    layout.coverSources.set(path, rawOf(copy.path));
  }
}

/**
 * `[sandbox] hidden`, the user's credential paths and the files the user's git config includes (their copies
 * drop the includes: the files often hold tokens), where the command could otherwise read them.
 */
function hideListed(
  layout: Layout,
  input: SurveyInput,
  home: string,
  readableAt: (path: string) => boolean,
  xdgConfigHome: string | undefined,
): void {
  const listed = [
    ...USER_SECRET_PATHS.map((p) => (p.startsWith("~/") ? `${home}/${rawOf(p.slice(2))}` : rawOf(p))),
    ...(input.hidden ?? []).map(rawOf),
    ...userGitConfigPaths(textOf(home), xdgConfigHome).flatMap((p) => includedConfigs(rawOf(p), home)),
  ];
  for (const listedPath of listed) {
    if (!readableAt(listedPath)) continue;
    // A link is followed: what it points at is what a command would read.
    const path = kindAt(listedPath) === "link" ? resolveThroughLinks(listedPath) : listedPath;
    const kind = path === undefined ? "missing" : kindAt(path);
    if (path === undefined || kind === "missing" || kind === "link" || !readableAt(path)) continue;
    layout.covers.set(path, kind === "dir" ? "empty" : "null");
  }
}

/** Whether the raw path is a folder with nothing in it (through the walk's listings: usually one lstat). */
function isEmptyFolder(path: string): boolean {
  try {
    return listFolder(path).length === 0;
  } catch {
    return false;
  }
}

/** Records a missing path to block with a placeholder (made before the command, removed after). */
function block(layout: Layout, path: string): void {
  if (layout.covers.has(path)) return;
  layout.covers.set(path, "empty");
  layout.placeholders.push(path);
}

/**
 * Drops covers a shallower cover already hides (an emptied folder has no mount point inside it; a read-only
 * one needs none), and computes the folders to pin: those strictly between a writable place and each cover.
 */
function finish(layout: Layout): void {
  closeUnreachable(layout);
  // Looked up by ancestor (a few per path) rather than against every cover: plans hold hundreds of covers.
  const emptied = new Set([...layout.covers].filter(([, kind]) => kind === "empty").map(([path]) => path));
  for (const path of [...layout.covers.keys()]) {
    if (ancestorsOf(path).some((a) => emptied.has(a))) dropCover(layout, path);
  }
  const coveredAt = (path: string) =>
    [path, ...ancestorsOf(path)].some((p) => {
      const kind = layout.covers.get(p);
      return kind !== undefined && kind !== "null";
    });
  const pins = new Set<string>();
  for (const path of layout.covers.keys()) {
    const place = layout.writable.find((w) => path !== w && isInsideOrEqual(w, path));
    if (!place) continue;
    for (let at = dirname(path); at.length > place.length && isInsideOrEqual(place, at); at = dirname(at)) {
      if (!coveredAt(at)) pins.add(at);
    }
  }
  layout.pins = [...pins];
}

/** Drops a cover, and the placeholder it would have needed. */
function dropCover(layout: Layout, path: string): void {
  layout.covers.delete(path);
  layout.placeholders = layout.placeholders.filter((p) => p !== path);
  layout.placeholderFiles.delete(path);
}

/** The folders above a raw absolute path, nearest first, `/` last. */
function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  if (path === "/") return out;
  for (let at = dirname(path); ; at = dirname(at)) {
    out.push(at);
    if (at === "/" || at === ".") return out;
  }
}

/**
 * A cover below a folder the command's user may not enter (no search permission — toolgate, as root, may
 * enter it anyway): the shallowest such folder is hidden whole when the user owns it (a command could
 * `chmod` it back), and nothing below it is mounted otherwise (the command can never reach there). Either way
 * the check inside the sandbox never has to look at a path it cannot reach.
 */
function closeUnreachable(layout: Layout): void {
  const uid = process.getuid?.() ?? -1;
  const groups = new Set([process.getgid?.() ?? -1, ...(process.getgroups?.() ?? [])]);
  const known = new Map<string, { enter: boolean; own: boolean }>();
  const folder = (path: string) => {
    let seen = known.get(path);
    if (!seen) {
      const stat = lstatSync(bytesOf(path), { throwIfNoEntry: false });
      const mode = stat?.mode ?? 0o777;
      const bit = stat?.uid === uid ? 0o100 : stat && groups.has(stat.gid) ? 0o010 : 0o001;
      seen = { enter: !stat?.isDirectory() || (mode & bit) !== 0, own: stat?.uid === uid };
      known.set(path, seen);
    }
    return seen;
  };
  for (const path of [...layout.covers.keys()]) {
    for (let at = dirname(path), chain: string[] = []; ; at = dirname(at)) {
      chain.unshift(at);
      if (at === "/") {
        const closed = chain.find((c) => !folder(c).enter);
        if (closed === undefined) break;
        dropCover(layout, path);
        if (folder(closed).own && closed !== "/") {
          layout.covers.set(closed, "empty");
          if (!layout.unsurveyed.includes(closed)) layout.unsurveyed.push(closed);
        }
        break;
      }
    }
  }
}

/**
 * Per existing protected path and secret (raw relative): its device, inode and kind, to tell a new one from it
 * after the command.
 */
function baselineOf(scan: ScanResult): Map<string, string> {
  const out = new Map<string, string>();
  for (const found of [...scan.protected, ...scan.gitFiles, ...scan.secrets])
    out.set(found.relative, identity(found.path));
  for (const found of [...scan.gitDirs, ...scan.hgDirs, ...scan.skippedProtected])
    out.set(found.relative, identity(found.path));
  // Links by path: the check after the command judges a link new at its path, whatever its age.
  for (const found of scan.links) out.set(found.relative, identity(found.path));
  return out;
}

/**
 * A path's identity (device, inode, kind, birth time): what a new file in its place changes, even when the
 * file system hands the freed inode number straight to it.
 */
export function identity(path: string): string {
  try {
    const stat = lstatSync(bytesOf(path), { throwIfNoEntry: false, bigint: true });
    return stat ? `${stat.dev}:${stat.ino}:${stat.mode >> 12n}:${stat.birthtimeNs}` : "missing";
  } catch {
    return "missing";
  }
}

/**
 * The unread folders to hide: themselves, or when there are too many, their parents (repeatedly, stopping at
 * the root: the result holds the root when hiding the rest would hide the workspace).
 */
function coarsen(paths: readonly string[], root: string): string[] {
  let set = [...new Set(paths)];
  while (set.length > MAX_UNSURVEYED_COVERS && !set.includes(root)) {
    const deepest = Math.max(...set.map((p) => p.split("/").length));
    set = [...new Set(set.map((p) => (p.split("/").length === deepest ? dirname(p) : p)))];
    set = set.filter((p) => !set.some((q) => q !== p && isInsideOrEqual(q, p)));
  }
  return set;
}

/**
 * One root's walk. Folders past the limit are hidden (a few covers, their parents when many); when they are
 * spread so widely that only hiding the root would do, the walk reads on up to `maxDirsWide` instead (slower,
 * said in a note): a command that makes thousands of folders slows the next commands down, it does not stop
 * them, and nothing unread is left visible.
 */
function scanWithin(
  root: string,
  rules: ScanRules,
  input: Pick<SurveyInput, "maxDirsWide">,
  notes: string[],
): ScanResult {
  const scan = scanRoot(root, rules);
  if (scan.unscanned.length === 0) return scan;
  const left = coarsen(
    scan.unscanned.map((f) => f.path),
    root,
  );
  if (!left.includes(root)) return scan;
  const wide = scanRoot(root, { ...rules, maxDirs: input.maxDirsWide ?? SCAN_WIDE_MAX_DIRS });
  notes.push(
    `[sandbox: ${textOf(root)} holds ${wide.dirs} or more folders side by side: the survey read past its ` +
      `limit of ${rules.maxDirs ?? SCAN_MAX_DIRS} rather than hide the workspace, so commands start slower; ` +
      "list large build folders in [sandbox] unchecked]",
  );
  return wide;
}

/**
 * What the walk of skipped folders did not read, past its budget, is mounted read-only (skipped-budget.ts):
 * nothing can be planted there, so the check after the command has nothing there to judge. Refused (fail
 * closed) only when that would cover a folder that is not inside a skipped one.
 */
function coverUnwalked(scan: ScanResult, layout: Layout, writableAt: (path: string) => boolean): void {
  if (!scan.skippedOver) return;
  const covers = unwalkedCovers(scan.root, scan.skippedLeft ?? []);
  if (covers === undefined)
    throw new SandboxSetupError(
      `${scan.skippedOver}; list such folders in [sandbox] unchecked (then nothing there is checked) or ` +
        "remove some",
    );
  for (const path of covers)
    if (writableAt(path) && !layout.covers.has(path)) layout.covers.set(path, "self");
  const shown = covers.slice(0, 3).map(textOf).join(", ");
  layout.notes.push(
    `[sandbox: ${shown}${covers.length > 3 ? ` and ${covers.length - 3} more` : ""} stayed read-only for ` +
      `this command: the folders inside skipped folders are more than the survey reads (${scan.skippedOver}); ` +
      "list large ones in [sandbox] unchecked to write there]",
  );
}

/**
 * Where a raw absolute path leads when every link on the way (and at its end) is followed, the missing tail
 * kept; undefined for a loop. Links are read, never trusted: the result is surveyed like any other path.
 */
export function resolveThroughLinks(path: string): string | undefined {
  let parts = path.split("/").filter(Boolean);
  let done = "";
  for (let hops = 0, i = 0; i < parts.length; ) {
    const next = `${done}/${parts[i]}`;
    let target: string | undefined;
    try {
      target = readlinkSync(bytesOf(next), { encoding: "buffer" }).toString("latin1");
    } catch {
      target = undefined; // Not a link, or missing: kept as it is.
    }
    if (target === undefined) {
      done = next;
      i++;
      continue;
    }
    if (++hops > 40) return undefined;
    const rest = parts.slice(i + 1);
    const base = isAbsolute(target) ? "" : done;
    parts = [
      ...resolve(`${base || "/"}`, target)
        .split("/")
        .filter(Boolean),
      ...rest,
    ];
    done = "";
    i = 0;
  }
  return done || "/";
}

/** The real path of an existing raw path, raw; undefined when missing. */
function realPathOf(path: string): string | undefined {
  if (kindAt(path) === "missing") return undefined;
  try {
    return realpathSync(bytesOf(path), { encoding: "buffer" }).toString("latin1");
  } catch {
    return undefined;
  }
}

function kindAt(path: string): "file" | "dir" | "link" | "missing" | "other" {
  try {
    // Most protected paths are missing: no exception (and its stack) built for each of them.
    const stat = lstatSync(bytesOf(path), { throwIfNoEntry: false });
    if (stat === undefined) return "missing";
    if (stat.isSymbolicLink()) return "link";
    if (stat.isDirectory()) return "dir";
    return stat.isFile() ? "file" : "other";
  } catch {
    return "missing";
  }
}

/** The gitlinks a git folder's index records before the command; none when it cannot tell (all judged after). */
function gitlinkStampsOrNone(gitDir: string, tops: ReadonlyMap<string, string>): Map<string, string> {
  try {
    return gitlinkStamps(gitDir, tops) ?? new Map();
  } catch {
    return new Map();
  }
}
