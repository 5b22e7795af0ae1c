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
import { closeSync, mkdirSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, resolve } from "node:path";
import { bytesOf, inside, openFolder, openInside, readInsideSync, textOf } from "./descriptors.js";
import { readWorkspaceGitConfig } from "./git-config.js";
import { childFolders, gitDirOfFile, WATCHED } from "./git-dirs.js";
import safe from "./git-new-repo.json" with { type: "json" };
import { heldPlaceholders } from "./placeholders.js";
import { type ScanRules, scanRoot } from "./scan.js";
import { identity, type Layout, SCAN_WIDE_MAX_DIRS } from "./survey.js";
import { unsafeGitlinks } from "./sweep-gitlinks.js";
import { gitFolderLinks, outsideLinkWhy, sharedSecretWhy } from "./sweep-links.js";

/** Where quarantined paths go, below each root. */
export const QUARANTINE = ".toolgate/quarantine";

const SAFE_KEYS = safe.keys.map((key) => {
  const [section, ...rest] = key.split(".");
  return { section: section!, sub: rest.length === 2 ? rest[0] : undefined, key: rest.at(-1)! };
});

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
  problems: string[];
  /**
   * Secret-named paths (text, absolute) new or replaced since the command started: the mounts were decided at
   * the start, so the command could read them (written by it, by the person, or by another program meanwhile).
   */
  appeared: string[];
}

/**
 * Walks the layout's roots again and quarantines what the command left. Call once the command (and everything
 * it started) has ended. `since` (ms, before the command started): links and hard links changed since are
 * the command's; older ones are the person's own and stay.
 */
export function sweep(layout: Layout, rules: ScanRules, since = 0): SweepReport {
  const report: SweepReport = { moved: [], problems: [], appeared: [] };
  if (layout.mode !== "workspace-write") return report;
  const held = heldPlaceholders();
  const started = new Date();
  const found: { root: string; relative: string; why: string }[] = [];
  // What the survey hid because it could not look there was hidden from the command too: it made nothing there.
  const hidden = (path: string) => layout.unsurveyed.some((u) => path === u || path.startsWith(`${u}/`));
  // What an earlier check moved away stays where it was put.
  const quarantined = (relative: string) => relative.startsWith(`${QUARANTINE}/`);
  const gitFolders = new Set(layout.gitDirs);
  for (const [root, baseline] of layout.baseline) {
    let now = scanRoot(root, rules);
    // Past the limit, read on as the survey does: what the command made there is looked at too.
    if (now.unscanned.length > 0) now = scanRoot(root, { ...rules, maxDirs: SCAN_WIDE_MAX_DIRS });
    if (now.unscanned.length > 0) {
      report.problems.push(
        `${now.unscanned.length} folders below ${textOf(root)} were past the survey's limit and were not looked through`,
      );
    }
    for (const item of [...now.protected, ...now.gitFiles]) {
      if (held.has(item.path) || hidden(item.path) || baseline.get(item.relative) === identity(item.path))
        continue;
      found.push({
        root,
        relative: item.relative,
        why: "decides what runs next; commands may not create it",
      });
    }
    for (const item of now.secrets) {
      // A placeholder (a missing .env or .npmrc blocked for the command) is toolgate's own, not a new secret.
      if (held.has(item.path) || layout.placeholders.includes(item.path)) continue;
      if (hidden(item.path) || insideEmptied(layout, item.path)) continue;
      if (baseline.get(item.relative) !== identity(item.path)) report.appeared.push(textOf(item.path));
    }
    const roots = [...layout.baseline.keys()];
    for (const link of now.links) {
      if (hidden(link.path) || quarantined(link.relative)) continue;
      const why = outsideLinkWhy(link.path, roots, since);
      if (why) found.push({ root, relative: link.relative, why });
    }
    for (const item of now.secrets) {
      if (hidden(item.path) || held.has(item.path) || quarantined(item.relative)) continue;
      const why = sharedSecretWhy(item.path, since);
      if (why) found.push({ root, relative: item.relative, why });
    }
    for (const dir of now.gitDirs) gitFolders.add(dir.path);
    for (const dir of now.gitDirs) {
      if (hidden(dir.path) || baseline.get(dir.relative) === identity(dir.path)) continue;
      const why = unsafeRepository(dir.path);
      if (why) found.push({ root, relative: dir.relative, why: `a repository the command made ${why}` });
    }
  }
  for (const gitDir of layout.gitDirs) {
    const root = [...layout.baseline.keys()].find((r) => gitDir.startsWith(`${r}/`));
    // Submodules' git folders and linked worktrees' folders the command added to an existing repository.
    for (const [sub, judge] of [
      ["modules", unsafeRepository],
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
      if (layout.covers.has(path) || identity(path) === "missing") continue;
      const root = [...layout.baseline.keys()].find((r) => path.startsWith(`${r}/`));
      if (!root) continue;
      found.push({ root, relative: path.slice(root.length + 1), why: watchedWhy(name) });
    }
  }
  for (const gitDir of gitFolders) {
    const root = [...layout.baseline.keys()].find((r) => gitDir.startsWith(`${r}/`));
    if (!root || hidden(gitDir)) continue;
    for (const path of gitFolderLinks(gitDir, since, report.problems)) {
      found.push({
        root,
        relative: path.slice(root.length + 1),
        why: "a link inside a git folder (git makes none there; git on the host would write through it)",
      });
    }
  }
  for (const gitDir of gitFolders) {
    const root = [...layout.baseline.keys()].find((r) => gitDir.startsWith(`${r}/`));
    if (!root || hidden(gitDir)) continue;
    for (const item of unsafeGitlinks(gitDir, since, unsafeRepository, report.problems)) {
      const relative = item.path.slice(root.length + 1);
      if (hidden(item.path) || found.some((f) => f.root === root && f.relative === relative)) continue;
      found.push({ root, relative, why: item.why });
    }
  }
  // Outermost first, and nothing inside something already moved.
  found.sort((a, b) => a.relative.length - b.relative.length);
  // Made only when something is moved (random bytes cost more than the rest of a quiet check).
  const stamp =
    found.length === 0
      ? ""
      : `${started.toISOString().replace(/[:.]/g, "-")}-${randomBytes(3).toString("hex")}`;
  const moved: typeof found = [];
  for (const item of found) {
    if (moved.some((m) => m.root === item.root && item.relative.startsWith(`${m.relative}/`))) continue;
    try {
      const to = quarantine(item.root, item.relative, stamp);
      report.moved.push({
        root: textOf(item.root),
        path: textOf(item.relative),
        to: textOf(to),
        why: item.why,
      });
      moved.push(item);
    } catch (error) {
      report.problems.push(
        `could not move ${textOf(`${item.root}/${item.relative}`)} (${item.why}): ${(error as Error).message}; ` +
          "remove it before anything reads it",
      );
    }
  }
  return report;
}

/** The report as the lines a result shows (empty when the check found nothing). */
export function describeSweep(report: SweepReport): string | undefined {
  const lines: string[] = [];
  for (const m of report.moved) {
    lines.push(`[sandbox: moved ${m.path} to ${m.to}: ${m.why}]`);
  }
  for (const problem of report.problems) lines.push(`[sandbox: ${problem}]`);
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

/**
 * Why a repository a command made must not stay (undefined when it holds only what git writes itself): a
 * config key outside git-new-repo.json, a hook that is not a sample, or state a placeholder could not block.
 */
export function unsafeRepository(gitDir: string): string | undefined {
  const config = readWorkspaceGitConfig(`${gitDir}/config`);
  if (config === undefined && identity(`${gitDir}/config`) !== "missing") return "has an unreadable config";
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
      const sub = entry.subsection === undefined ? "" : `.${entry.subsection}`;
      return `sets ${entry.section}${sub}.${entry.key} in its config`;
    }
  }
  try {
    for (const hook of readdirSync(bytesOf(`${gitDir}/hooks`), { withFileTypes: true, encoding: "buffer" })) {
      if (!hook.isFile() || !hook.name.toString("latin1").endsWith(".sample")) return "has hooks";
    }
  } catch {
    // No hooks folder.
  }
  for (const name of WATCHED) {
    if (identity(`${gitDir}/${name}`) !== "missing") return `has ${name}`;
  }
  for (const name of childFolders(`${gitDir}/modules`)) {
    const why = unsafeRepository(`${gitDir}/modules/${name}`);
    if (why) return `holds a submodule that ${why}`;
  }
  return undefined;
}

function coveredBelow(layout: Layout, path: string): boolean {
  for (const covered of layout.covers.keys()) if (covered.startsWith(`${path}/`)) return true;
  return false;
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
 * @returns the new path, relative to the root (raw)
 */
function quarantine(root: string, relative: string, stamp: string): string {
  const name = basename(relative);
  const parent = openFolder(dirname(`${root}/${relative}`));
  if (parent === undefined) throw new Error("a folder on the way is gone or is a link");
  try {
    const destination = `${QUARANTINE}/${stamp}/${dirname(relative) === "." ? "" : dirname(relative)}`;
    const target = makeFolders(root, destination.replace(/\/$/, ""));
    ignoreQuarantine(root);
    if (target !== undefined) {
      try {
        renameSync(inside(parent, name), inside(target, name));
        return `${destination.replace(/\/$/, "")}/${name}`;
      } catch {
        // Another file system below the root, or the like: renamed in place instead.
      } finally {
        closeSync(target);
      }
    }
    const aside = `${name}.toolgate-quarantine-${stamp}`;
    renameSync(inside(parent, name), inside(parent, aside));
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
