/**
 * @module sandbox/sweep
 * The check after every command, before its result is returned (for a background command: when it exits):
 * the workspace is walked again, and whatever the command left that decides what runs next and that a mount
 * could not block beforehand is moved to `<root>/.toolgate/quarantine/<time>/` (read-only for later commands)
 * and named in the result — a protected name created anywhere below a root (`packages/app/.vscode`, a nested
 * `.mcp.json` or `.npmrc`), a `commondir`, `config.worktree` or unfinished rebase/sequencer state in a
 * repository, and a repository the command made whose config or hooks would run something.
 */
import { randomBytes } from "node:crypto";
import { closeSync, lstatSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { defuseMoved, quarantinedName } from "./defuse.js";
import { bytesOf, inside, openFolder, openInside, readInsideSync, textOf } from "./descriptors.js";
import { childFolders, WATCHED } from "./git-dirs.js";
import { unsafeHgRepository } from "./hg-new-repo.js";
import { heldPlaceholderFiles, heldPlaceholders, intactPlaceholder } from "./placeholders.js";
import { reopenFolder, reopenWay } from "./reopen.js";
import { unsafeParts, unsafeRepository } from "./repo-parts.js";
import { type ScanResult, type ScanRules, scanRoot } from "./scan.js";
import { SKIPPED_MAX_DIRS } from "./scan-skipped.js";
import { newTreesHolding } from "./skipped-budget.js";
import { identity, type Layout, SCAN_WIDE_MAX_DIRS } from "./survey.js";
import { unsafeGitlinks } from "./sweep-gitlinks.js";
import { gitFolderLinks, linkWhy, sharedSecretWhy } from "./sweep-links.js";
import { removeNewBytecode } from "./sweep-pyc.js";

export { unsafeRepository };

/** Where quarantined paths go, below each root. */
export const QUARANTINE = ".toolgate/quarantine";

/** One thing the check moved (paths as text, relative to their root) and why it mattered. */
export interface Quarantined {
  root: string;
  path: string;
  to: string;
  why: string;
}

/** What the check did: moved paths, what it could not do, and secrets the command could read. */
export interface SweepReport {
  moved: Quarantined[];
  /** What the check noticed and could not act on, without leaving anything unchecked. */
  problems: string[];
  /**
   * What the check could not look at or move: it did not finish, and nothing it would have caught there is
   * known safe. Later commands in the workspace are refused until a check finishes (see sandbox/incomplete.ts).
   */
  incomplete: string[];
  /** How many compiled Python files the command wrote were removed (sweep-pyc.ts). */
  removedBytecode?: number;
  /**
   * Secret-named paths (text, absolute) new or replaced since the command started: the mounts were decided at
   * the start, so the command could read them (written by it, by the person, or by another program meanwhile).
   */
  appeared: string[];
}

/** One thing to move: where, and why. */
interface Finding {
  root: string;
  relative: string;
  why: string;
}

/**
 * Walks the layout's roots again and quarantines what the command left. Call once the command (and everything
 * it started) has ended. What is judged is what is new at its path since the survey (the survey's baseline),
 * whatever its age (gitlinked repositories: new or changed since the survey's stamps). Never throws: what it
 * could not do is in `incomplete` (fail closed).
 */
export function sweep(layout: Layout, rules: ScanRules): SweepReport {
  const report: SweepReport = { moved: [], problems: [], incomplete: [], appeared: [] };
  if (layout.mode !== "workspace-write") return report;
  const started = new Date();
  const found: Finding[] = [];
  /** Folder trees past the skipped walk's budget (skipped-budget.ts), moved in bulk after the rest. */
  const bulk: Finding[] = [];
  const step = (what: string, run: () => void) => {
    try {
      run();
    } catch (error) {
      report.incomplete.push(`${what}: ${(error as Error).message}`);
    }
  };
  const gitFolders = new Set(layout.gitDirs);
  for (const [root, baseline] of layout.baseline) {
    step(`looking through ${textOf(root)}`, () =>
      sweepRoot(layout, rules, root, baseline, { report, found, gitFolders, bulk }),
    );
  }
  step("looking through the git folders", () => sweepGitFolders(layout, found));
  step("giving back write permission", () => reopenPlaceholderFolders(layout, gitFolders));
  const roots = [...layout.baseline.keys()];
  const surveyed = new Set(layout.gitDirs);
  for (const gitDir of gitFolders) {
    const root = roots.find((r) => gitDir.startsWith(`${r}/`));
    if (!root || hiddenFromCommand(layout, gitDir)) continue;
    step(`looking through ${textOf(gitDir)}`, () => {
      for (const path of gitFolderLinks(gitDir, report.incomplete)) {
        found.push({
          root,
          relative: path.slice(root.length + 1),
          why: "a link inside a git folder (git makes none there; git on the host would write through it)",
        });
      }
      const judge = (repository: string, worktree: string) =>
        unsafeRepository(repository, worktree, layout.globalHooksPaths);
      const unread: string[] = [];
      const gitlinks = unsafeGitlinks(gitDir, layout.gitTops, layout.gitlinks, judge, unread, {
        roots,
        surveyed,
      });
      if (unread.length > 0 && !layout.gitDirs.includes(gitDir)) {
        // A repository the command made: what toolgate cannot read goes, so the command cannot switch every
        // later command off on purpose (an "incomplete" check refuses them until the person acts).
        found.push({
          root,
          relative: gitDir.slice(root.length + 1),
          why: "a repository the command made whose index toolgate cannot read (which repositories it reaches is unknown)",
        });
      } else {
        // An index that is no regular file (a FIFO, a folder) is read by git on the host no more than here.
        (indexIsFile(gitDir) ? report.incomplete : report.problems).push(...unread);
      }
      for (const item of gitlinks) {
        const relative = item.path.slice(root.length + 1);
        if (hiddenFromCommand(layout, item.path)) continue;
        if (found.some((f) => f.root === root && f.relative === relative)) continue;
        found.push({ root, relative, why: item.why });
      }
    });
  }
  moveAll(found, started, report);
  for (const root of roots) {
    const trees = bulk.filter((b) => b.root === root);
    if (trees.length > 0)
      moveTrees(
        root,
        trees.map((t) => `${root}/${t.relative}`),
        trees[0]!.why,
        report,
      );
  }
  return report;
}

/**
 * Gives the owner's permissions back to the folders the next survey makes placeholders in — the roots, every
 * git folder (its submodules' and worktrees' folders too) and the folders of this command's placeholders —
 * where the command changed them (change time since the survey: `chmod 555 sub/.git` sets it). Otherwise a
 * command that made one read-only would make every later survey refuse (red team 2026-11-27f, H7); the person's
 * own read-only folders, unchanged, are left as they are (the survey then refuses, naming the folder).
 */
function reopenPlaceholderFolders(layout: Layout, gitFolders: ReadonlySet<string>): void {
  const since = layout.surveyedAt ?? 0;
  const folders = new Set<string>(layout.baseline.keys());
  for (const gitDir of gitFolders) {
    folders.add(gitDir);
    for (const sub of ["modules", "worktrees"])
      for (const name of childFolders(`${gitDir}/${sub}`)) folders.add(`${gitDir}/${sub}/${name}`);
  }
  for (const path of [...layout.placeholders, ...layout.placeholderFiles.keys()]) folders.add(dirname(path));
  for (const folder of folders) if (changedSince(folder, since)) reopenFolder(folder);
}

function indexIsFile(gitDir: string): boolean {
  try {
    return lstatSync(bytesOf(`${gitDir}/index`), { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return true;
  }
}

/**
 * What the survey keeps from commands at raw `path`, by the layout it built rather than by names: inside a git
 * folder it found (a `.bare` folder, a separate git folder), or at or below a path it mounted read-only or
 * hid (hooks folders, `core.hooksPath` targets, protected files, secrets).
 */
function keptByLayout(layout: Layout, path: string): string | undefined {
  const within = (folder: string) => path === folder || path.startsWith(`${folder}/`);
  if (layout.gitDirs.some(within) || [...layout.gitTops.keys()].some(within)) return "a git folder";
  for (const covered of layout.covers.keys())
    if (within(covered)) return "a path the sandbox keeps read-only or hidden";
  return undefined;
}

/**
 * Whether raw `path` was written, made or moved since `since` (ms): its change time, which no command can set
 * back (a rename sets it too); the kernel's file clock is coarse, so a second of slack.
 */
function changedSince(path: string, since: number): boolean {
  try {
    return (lstatSync(bytesOf(path), { throwIfNoEntry: false })?.ctimeMs ?? 0) >= since - 1000;
  } catch {
    return true;
  }
}

/** What the survey hid because it could not look there was hidden from the command too: it made nothing there. */
function hiddenFromCommand(layout: Layout, path: string): boolean {
  return layout.unsurveyed.some((u) => path === u || path.startsWith(`${u}/`));
}

/** One root's walk: new protected names, secrets seen, new links and hard-linked secrets, new repositories. */
function sweepRoot(
  layout: Layout,
  rules: ScanRules,
  root: string,
  baseline: ReadonlyMap<string, string>,
  into: { report: SweepReport; found: Finding[]; gitFolders: Set<string>; bulk: Finding[] },
): void {
  const { report, found, gitFolders } = into;
  const heldFiles = heldPlaceholderFiles();
  const placeholders = heldPlaceholders();
  // A placeholder file counts as toolgate's only while it holds what toolgate wrote (a folder: while a folder).
  const held = {
    has: (path: string) =>
      placeholders.has(path) && (!heldFiles.has(path) || intactPlaceholder(path, heldFiles.get(path))),
  };
  const hidden = (path: string) => hiddenFromCommand(layout, path);
  // What an earlier check moved away stays where it was put.
  const quarantined = (relative: string) => relative.startsWith(`${QUARANTINE}/`);
  const isNew = (item: { path: string; relative: string }) =>
    baseline.get(item.relative) !== identity(item.path);
  let now = walkRoot(root, rules, hidden);
  if (now.unscanned.length > 0) {
    report.incomplete.push(
      `${now.unscanned.length} folders below ${textOf(root)} were past the survey's limit and were not looked through`,
    );
  }
  for (const folder of now.unreadable) {
    if (hidden(folder.path)) continue;
    // Still a real folder the walk could not list (a link swapped in is listed, and judged, as a link).
    let still: boolean | undefined;
    try {
      still = lstatSync(bytesOf(folder.path), { throwIfNoEntry: false })?.isDirectory();
    } catch (error) {
      // Too deep to name: no program reaches what is there by its path either (the survey hid it as well).
      if ((error as NodeJS.ErrnoException).code !== "ENAMETOOLONG") throw error;
      report.problems.push(
        `${textOf(folder.path.slice(0, 200))}… is too deep to name and was not looked through`,
      );
      continue;
    }
    if (still) report.incomplete.push(`${textOf(folder.path)} could not be looked through`);
  }
  now = withinSkippedBudget(layout, { root, rules, hidden }, now, { report, bulk: into.bulk });
  // A Mercurial folder the command made is judged whole (as a new git repository is), not file by file.
  const newHg = now.hgDirs.filter((dir) => !hidden(dir.path) && isNew(dir));
  const inNewHg = (item: { relative: string }) =>
    newHg.some((dir) => item.relative.startsWith(`${dir.relative}/`));
  for (const item of [...now.protected, ...now.gitFiles, ...now.skippedProtected]) {
    if (held.has(item.path) || hidden(item.path) || !isNew(item) || inNewHg(item)) continue;
    found.push({ root, relative: item.relative, why: "decides what runs next; commands may not create it" });
  }
  for (const dir of newHg) {
    const why = unsafeHgRepository(dir.path);
    if (why)
      found.push({ root, relative: dir.relative, why: `a Mercurial repository the command made ${why}` });
  }
  const roots = [...layout.baseline.keys()];
  for (const item of now.secrets) {
    // A placeholder (a missing .env or .npmrc blocked for the command) is toolgate's own, not a new secret.
    if (held.has(item.path) || layout.placeholders.includes(item.path) || hidden(item.path)) continue;
    if (!isNew(item)) continue;
    if (!insideEmptied(layout, item.path)) report.appeared.push(textOf(item.path));
    const why = quarantined(item.relative) ? undefined : sharedSecretWhy(item.path);
    if (why) found.push({ root, relative: item.relative, why });
  }
  for (const link of now.links) {
    if (hidden(link.path) || quarantined(link.relative) || !isNew(link)) continue;
    const why = linkWhy(link.path, roots, rules, (end) => keptByLayout(layout, end));
    if (why) found.push({ root, relative: link.relative, why });
  }
  // Compiled Python code outside __pycache__ the command wrote or moved (change times: a command cannot set them
  // back) is moved away: Python on the host imports it in place of the reviewed source.
  for (const code of now.pythonCode) {
    if (hidden(code.path) || quarantined(code.relative)) continue;
    if (changedSince(code.path, layout.surveyedAt ?? 0))
      found.push({
        root,
        relative: code.relative,
        why: "compiled Python code Python on the host would import instead of the source",
      });
  }
  const pycache = now.pycache.filter((p) => !hidden(p.path)).map((p) => p.path);
  const removed = removeNewBytecode(pycache, layout.surveyedAt ?? 0, report.incomplete);
  if (removed > 0) report.removedBytecode = (report.removedBytecode ?? 0) + removed;
  for (const dir of now.gitDirs) gitFolders.add(dir.path);
  // A repository new since the command started is judged by content, and only what would run is moved (the
  // person may have cloned it meanwhile: repo-parts.ts); a part outside the root takes the whole git folder.
  for (const dir of now.gitDirs) {
    if (hidden(dir.path) || !isNew(dir)) continue;
    for (const part of unsafeParts(dir.path, dirname(dir.path), layout.globalHooksPaths)) {
      const inRoot = part.path.startsWith(`${root}/`);
      found.push({
        root,
        relative: inRoot ? part.path.slice(root.length + 1) : dir.relative,
        why: `a repository new since the command started ${part.why}`,
      });
    }
  }
}

/**
 * A walk of `root` that gives the owner's permissions back where the command took them away (and walks
 * again), reading on past the survey's limit as the survey does: what the command made there is looked at too.
 */
function walkRoot(root: string, rules: ScanRules, hidden: (path: string) => boolean): ScanResult {
  const walk = () => {
    try {
      return scanRoot(root, rules);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EACCES" || !reopenFolder(root)) throw error;
      return scanRoot(root, rules);
    }
  };
  let now = walk();
  const unread = now.unreadable.filter((f) => !hidden(f.path));
  // Given back their owner's permissions, or swapped for a link or gone mid-walk: walked again (a link is then
  // judged as one).
  if (unread.length > 0) {
    for (const folder of unread) reopenFolder(folder.path);
    now = walk();
  }
  if (now.unscanned.length > 0) now = scanRoot(root, { ...rules, maxDirs: SCAN_WIDE_MAX_DIRS });
  return now;
}

/**
 * Past the budget of the walk of skipped folders (skipped-budget.ts): what it did not read is fine where the
 * survey kept it read-only; the folder trees the command made that hold the rest go to `bulk` (moved whole
 * after the rest of the check) and the root is walked again without them (a few rounds); what is left leaves
 * the check incomplete.
 */
function withinSkippedBudget(
  layout: Layout,
  walk: { root: string; rules: ScanRules; hidden: (path: string) => boolean },
  scanned: ScanResult,
  into: { report: SweepReport; bulk: Finding[] },
): ScanResult {
  const { root } = walk;
  const why =
    "folders the command made inside skipped folders, more than the check reads " +
    `(${walk.rules.skippedMaxDirs ?? SKIPPED_MAX_DIRS}), which it cannot look through for repositories, links ` +
    "and protected names";
  const unchecked = new Set(walk.rules.unchecked ?? []);
  let now = scanned;
  for (let round = 0; ; round++) {
    if (!now.skippedOver) return now;
    const open = (now.skippedLeft ?? []).filter((path) => !readOnlyForCommand(layout, path));
    if (open.length === 0) return { ...now, skippedOver: undefined };
    const trees = round < 3 ? newTreesHolding(root, open, layout.surveyedAt ?? 0) : [];
    if (trees.length === 0) {
      into.report.incomplete.push(now.skippedOver);
      return now;
    }
    for (const tree of trees) {
      unchecked.add(tree);
      into.bulk.push({ root, relative: tree.slice(root.length + 1), why });
    }
    now = walkRoot(root, { ...walk.rules, unchecked }, walk.hidden);
  }
}

/**
 * Moves the disjoint folder trees `trees` (raw, below `root`) to one quarantine folder, reported as one line
 * (there may be thousands, side by side). What cannot be moved is named once in `incomplete`.
 * @returns how many were moved
 */
function moveTrees(root: string, trees: readonly string[], why: string, report: SweepReport): number {
  if (trees.length === 0) return 0;
  const stamp = `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(3).toString("hex")}`;
  let moved = 0;
  let failed: string | undefined;
  const done = new Set<string>();
  const inDone = (path: string) => {
    for (let at = dirname(path); at.length > root.length; at = dirname(at)) if (done.has(at)) return true;
    return false;
  };
  for (const tree of [...trees].sort((a, b) => a.length - b.length)) {
    if (inDone(tree)) continue;
    done.add(tree);
    try {
      quarantine(root, tree.slice(root.length + 1), stamp);
      moved++;
    } catch (error) {
      failed ??= `could not move ${textOf(tree)} (${why}): ${(error as Error).message}; remove it`;
    }
  }
  if (failed) report.incomplete.push(failed);
  if (moved > 0) {
    const first = textOf(trees[0]!.slice(root.length + 1));
    report.moved.push({
      root: textOf(root),
      path: moved > 1 ? `${first} and ${moved - 1} more` : first,
      to: `${QUARANTINE}/${stamp}`,
      why,
    });
  }
  return moved;
}

/** Whether raw `path` lies at or below a folder the survey mounted read-only for the command. */
function readOnlyForCommand(layout: Layout, path: string): boolean {
  for (const [covered, kind] of layout.covers)
    if (kind === "self" && (path === covered || path.startsWith(`${covered}/`))) return true;
  return false;
}

/** Submodules' and linked worktrees' folders added to a known repository, and git state that appeared. */
function sweepGitFolders(layout: Layout, found: Finding[]): void {
  const roots = [...layout.baseline.keys()];
  for (const gitDir of layout.gitDirs) {
    const root = roots.find((r) => gitDir.startsWith(`${r}/`));
    // Submodules' git folders and linked worktrees' folders the command added to an existing repository.
    for (const [sub, judge] of [
      ["modules", (path: string) => unsafeRepository(path)],
      ["worktrees", unsafeWorktree],
    ] as const) {
      for (const name of childFolders(`${gitDir}/${sub}`)) {
        const path = `${gitDir}/${sub}/${name}`;
        // There before the command: covered by the survey (a submodule is a watched git folder itself).
        if (!root || layout.gitDirs.includes(path) || coveredBelow(layout, path)) continue;
        const why = judge(path);
        if (why)
          found.push({
            root,
            relative: path.slice(root.length + 1),
            why: `a ${sub === "modules" ? "submodule" : "worktree"} the command added ${why}`,
          });
      }
    }
    for (const name of WATCHED) {
      const path = `${gitDir}/${name}`;
      if (identity(path) === "missing") continue;
      // Covered for this command, and (when a placeholder file) still holding exactly what toolgate wrote.
      const placeholder = layout.placeholderFiles.get(path);
      if (layout.covers.has(path) && (placeholder === undefined || intactPlaceholder(path, placeholder)))
        continue;
      if (!root) continue;
      found.push({ root, relative: path.slice(root.length + 1), why: watchedWhy(name) });
    }
  }
}

/**
 * Moves what was found, outermost first and nothing inside something already moved. A move the command made
 * impossible (a folder without write permission) is tried again after giving the owner's permissions back;
 * one that still fails leaves the check incomplete.
 */
function moveAll(found: Finding[], started: Date, report: SweepReport): void {
  found.sort((a, b) => a.relative.length - b.relative.length);
  // Made only when something is moved (random bytes cost more than the rest of a quiet check).
  const stamp =
    found.length === 0
      ? ""
      : `${started.toISOString().replace(/[:.]/g, "-")}-${randomBytes(3).toString("hex")}`;
  const moved: Finding[] = [];
  for (const item of found) {
    if (moved.some((m) => m.root === item.root && item.relative.startsWith(`${m.relative}/`))) continue;
    const path = `${item.root}/${item.relative}`;
    let to: string;
    try {
      to = quarantine(item.root, item.relative, stamp);
    } catch (error) {
      // A folder moved to another parent needs write permission on itself too (its `..` changes).
      const reopened = reopenWay(item.root, path) || reopenFolder(path);
      try {
        if (!reopened) throw error;
        to = quarantine(item.root, item.relative, stamp);
      } catch (again) {
        report.incomplete.push(
          `could not move ${textOf(path)} (${item.why}): ${(again as Error).message}; remove it before anything ` +
            "reads it",
        );
        continue;
      }
    }
    report.moved.push({
      root: textOf(item.root),
      path: textOf(item.relative),
      to: textOf(to),
      why: item.why,
    });
    moved.push(item);
  }
}

/** The report as the lines a result shows (empty when the check found nothing). */
export function describeSweep(report: SweepReport): string | undefined {
  const lines: string[] = [];
  for (const m of report.moved) {
    lines.push(`[sandbox: moved ${m.path} to ${m.to}: ${m.why}]`);
  }
  if (report.removedBytecode)
    lines.push(
      `[sandbox: removed ${report.removedBytecode} compiled Python files (__pycache__/*.pyc) the command wrote: ` +
        "Python on the host would run them instead of the source; it compiles them again at the next import]",
    );
  for (const problem of report.problems) lines.push(`[sandbox: ${problem}]`);
  for (const problem of report.incomplete)
    lines.push(`[sandbox: the check after the command could not finish: ${problem}]`);
  if (report.appeared.length > 0) {
    const shown = report.appeared.slice(0, 5).join(", ");
    const more = report.appeared.length > 5 ? ` and ${report.appeared.length - 5} more` : "";
    lines.push(
      `[sandbox: ${shown}${more} appeared or changed while the command ran and was not hidden from it (the ` +
        "sandbox hides the secrets there when a command starts): if you or another program wrote a real " +
        "secret there meanwhile, count it as seen by the command]",
    );
  }
  return lines.length > 0 ? lines.join("\n") : undefined;
}

/** Whether a path lies strictly inside a folder the command saw emptied (it could read nothing there). */
function insideEmptied(layout: Layout, path: string): boolean {
  for (const [covered, kind] of layout.covers)
    if (kind === "empty" && path.startsWith(`${covered}/`) && identity(covered) !== "missing") return true;
  return false;
}

function watchedWhy(name: string): string {
  // Nothing of the state is read, not even head-name: the command may have made it a link to a file it cannot
  // read (a key, /proc/self/environ), and the result goes back to the command's caller.
  if (name === "rebase-merge" || name === "rebase-apply" || name === "sequencer") {
    return (
      "an unfinished rebase, cherry-pick or revert (git would run its todo list on --continue); the branch " +
      "is as it was, HEAD is detached (the branch it was on is named in head-name in the moved folder)"
    );
  }
  return name === "commondir"
    ? "git would take its config and hooks from the folder it names"
    : "git would read it as config";
}

function coveredBelow(layout: Layout, path: string): boolean {
  for (const covered of layout.covers.keys()) if (covered.startsWith(`${path}/`)) return true;
  return false;
}

/** Why a linked worktree's folder a command made must not stay: a `commondir` elsewhere, a `config.worktree`. */
function unsafeWorktree(admin: string): string | undefined {
  try {
    if (readInsideSync(`${admin}/commondir`, 4096).toString("latin1").trim() !== "../..")
      return "names another common folder";
  } catch (error) {
    // No commondir: git does not use the folder as a worktree's. Any other failure: not known safe.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      return `has a commondir toolgate does not read (${(error as Error).message})`;
  }
  return identity(`${admin}/config.worktree`) === "missing" ? undefined : "has a config.worktree";
}

/**
 * Moves `<root>/<relative>` (raw) to `<root>/.toolgate/quarantine/<stamp>/<relative>`, every folder reached
 * without following a link; where that cannot be made, renames it in place (`<name>.toolgate-quarantine-<stamp>`).
 * What was moved is defused (`defuse.ts`: a repository's `.git` gets another name, a git folder loses its HEAD).
 * @returns the new path, relative to the root (raw)
 */
function quarantine(root: string, relative: string, stamp: string): string {
  const name = basename(relative);
  // A folder the command made read-only cannot move to another parent (its `..` changes): its owner's
  // permissions are given back first, so it is not left armed in place (red team H6).
  reopenFolder(`${root}/${relative}`);
  const parent = openFolder(dirname(`${root}/${relative}`));
  if (parent === undefined) throw new Error("a folder on the way is gone or is a link");
  try {
    const destination = `${QUARANTINE}/${stamp}/${dirname(relative) === "." ? "" : dirname(relative)}`;
    const target = makeFolders(root, destination.replace(/\/$/, ""));
    ignoreQuarantine(root);
    if (target !== undefined) {
      const stored = quarantinedName(name);
      let renamed = false;
      try {
        renameSync(inside(parent, name), inside(target, stored));
        renamed = true;
        defuseMoved(target, stored, `${root}/${destination.replace(/\/$/, "")}/${stored}`);
        return `${destination.replace(/\/$/, "")}/${stored}`;
      } catch (error) {
        // Moved but not defused: the caller says so (the check is incomplete).
        if (renamed) throw error;
        // Another file system below the root, or the like: renamed in place instead.
      } finally {
        closeSync(target);
      }
    }
    const aside = `${name}.toolgate-quarantine-${stamp}`;
    renameSync(inside(parent, name), inside(parent, aside));
    defuseMoved(parent, aside, `${root}/${dirname(relative) === "." ? "" : `${dirname(relative)}/`}${aside}`);
    return dirname(relative) === "." ? aside : `${dirname(relative)}/${aside}`;
  } finally {
    closeSync(parent);
  }
}

/** A `.gitignore` of `*` in the quarantine folder: `git add -A` never stages what was moved there. */
function ignoreQuarantine(root: string): void {
  const folder = openFolder(`${root}/${QUARANTINE}`);
  if (folder === undefined) return;
  try {
    writeFileSync(inside(folder, ".gitignore"), "*\n", { flag: "wx" });
  } catch {
    // Already there.
  } finally {
    closeSync(folder);
  }
}

/** Opens (making what is missing) the folder `relative` below raw `root`, one name at a time; undefined if not. */
function makeFolders(root: string, relative: string): number | undefined {
  let fd = openFolder(root);
  if (fd === undefined) return undefined;
  for (const name of relative.split("/").filter(Boolean)) {
    let next = openInside(fd, name);
    if (!next) {
      try {
        mkdirSync(inside(fd, name), { mode: 0o755 });
      } catch {
        // Made meanwhile by someone else, or not possible: looked at again below.
      }
      next = openInside(fd, name);
    }
    closeSync(fd);
    if (!next?.stat.isDirectory()) {
      if (next) closeSync(next.fd);
      return undefined;
    }
    fd = next.fd;
  }
  return fd;
}
