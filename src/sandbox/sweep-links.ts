/**
 * @module sandbox/sweep-links
 * Links a command leaves for programs on the host to write or read through. The person's own git, npm or
 * editor runs outside the sandbox and follows a link the command planted: `.git/logs/HEAD` linked to
 * `~/.bashrc` gets a reflog line (the commit subject) appended on the next commit; `package-lock.json` linked
 * to a file outside is overwritten by the next `npm install`. A hard link under a secret's name to an innocent
 * name lets the command read, next time, the secret the person later writes in place.
 * What a command left at a path (new there since the survey) and is one of these is named here for the check
 * after it.
 */
import { accessSync, constants, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { bytesOf, textOf } from "./descriptors.js";
import { listFolderReopened } from "./reopen.js";
import { type FolderEntry, type ScanRules, SKIPPED } from "./scan.js";

/** How many folders of one git folder are looked through for links; past it the check cannot finish. */
const MAX_GIT_FOLDERS = 100_000;

/**
 * Why a link a command made must not stay. Programs on the host (git, npm, pytest, an editor) write and read
 * through a link as if its path were the target, so a link may lead neither outside every root (absolute, or
 * by its text or where it really ends) — unless what it reaches is nothing the person could write, such as a
 * virtual environment's `python -> /usr/bin/python3` — nor, inside the roots, into what the sandbox keeps
 * from commands: a git folder, a protected or secret path (the person's `npm install` writing
 * `package-lock.json -> .git/hooks/post-checkout`), or a folder the survey does not look into (a person's key
 * saved through `certs -> node_modules/.cache/c` would never be hidden). `kept` names what the survey itself
 * keeps from commands (its git folders, hooks folders and read-only or hidden paths, whatever their names:
 * the `.bare` layout, a `core.hooksPath` folder); the name patterns come after it.
 */
export function linkWhy(
  path: string,
  roots: readonly string[],
  rules: ScanRules,
  kept: (path: string) => string | undefined = () => undefined,
): string | undefined {
  let target: string;
  try {
    target = readlinkSync(bytesOf(path), { encoding: "buffer" }).toString("latin1");
  } catch {
    return undefined;
  }
  const why = "programs on the host (git, npm, an editor) would write or read through it";
  const rootOf = (p: string) => roots.find((r) => p === r || p.startsWith(`${r}/`));
  let real: string | undefined;
  try {
    real = realpathSync(bytesOf(path), { encoding: "buffer" }).toString("latin1");
  } catch {
    // Dangling or a loop: judged by its text alone.
  }
  const textual = resolve(dirname(path), target);
  const outside = isAbsolute(target) || !rootOf(textual) || (real !== undefined && !rootOf(real));
  if (outside) {
    if (real !== undefined && !rootOf(real) && !writable(real) && !writable(dirname(real))) return undefined;
    return isAbsolute(target)
      ? `a link with an absolute target: ${why}`
      : `a link leading outside the workspace: ${why}`;
  }
  // A link inside a skipped folder into one (pnpm's `node_modules/x -> .pnpm/…`) adds no unsurveyed place.
  const fromSkipped = path
    .slice(rootOf(path)?.length ?? 0)
    .split("/")
    .slice(0, -1)
    .some((name) => SKIPPED.has(name));
  for (const end of new Set([textual, ...(real === undefined ? [] : [real])])) {
    const place = kept(end) ?? keptPlace(end, rootOf(end)!, rules, real === end, fromSkipped);
    if (place) return `a link into ${place}: ${why}`;
  }
  return undefined;
}

/** What the sandbox keeps from commands at `path` (inside `root`), in words; undefined for an ordinary place. */
function keptPlace(
  path: string,
  root: string,
  rules: ScanRules,
  exists: boolean,
  fromSkipped: boolean,
): string | undefined {
  if (path === root) return undefined;
  const relative = path.slice(root.length + 1);
  const names = relative.split("/");
  if (names.includes(".git")) return "a git folder";
  const text = textOf(relative);
  if (rules.protectedSet.matches(text, textOf(path))) return "a protected path";
  if (rules.secretSet.matches(text)) return "a secret's path";
  // Into a skipped folder: a folder linked there is where files then land unsurveyed (a file link, such as
  // `python -> .venv/bin/python`, is not).
  if (fromSkipped) return undefined;
  const isFolder = exists && lstatSync(bytesOf(path), { throwIfNoEntry: false })?.isDirectory();
  const unchecked = [...(rules.unchecked ?? [])].some((u) => path === u || path.startsWith(`${u}/`));
  if (isFolder && (unchecked || names.some((name) => SKIPPED.has(name))))
    return "a folder the survey does not look into";
  return undefined;
}

function writable(path: string): boolean {
  try {
    accessSync(bytesOf(path), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why a secret-named file new at its path must not stay: a regular file with more than one name (hard links).
 * Judged by path, not by age: a hard link made earlier where the check does not look and moved here since
 * keeps its old change time.
 */
export function sharedSecretWhy(path: string): string | undefined {
  const stat = lstatSync(bytesOf(path), { throwIfNoEntry: false });
  if (!stat?.isFile() || stat.nlink < 2) return undefined;
  return (
    `a secret-named file with ${stat.nlink} hard links: a secret written there later would be readable ` +
    "through its other name"
  );
}

/**
 * The links (raw absolute paths) anywhere inside git folder `gitDir`, whatever their age: git makes none
 * there, and git on the host writes through them (reflogs, COMMIT_EDITMSG, FETCH_HEAD); a link made earlier in
 * a folder the check does not walk and moved since keeps its old change time. git-annex's object store is
 * left alone, and so is the object store (git writes an object by making a new file and renaming it into
 * place, never through an existing name; a link planted there and moved into `logs/` later is caught there).
 * `incomplete` gets a line for each folder that could not be looked through (the check then fails closed).
 */
export function gitFolderLinks(gitDir: string, incomplete: string[]): string[] {
  const links: string[] = [];
  const queue = [gitDir];
  for (let done = 0; queue.length > 0; done++) {
    const folder = queue.shift()!;
    if (done >= MAX_GIT_FOLDERS) {
      incomplete.push(
        `${textOf(folder)} and ${queue.length} more folders of a git folder were not looked through for links`,
      );
      break;
    }
    let entries: readonly FolderEntry[];
    try {
      entries = listFolderReopened(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      incomplete.push(`${textOf(folder)} could not be looked through for links: ${(error as Error).message}`);
      continue;
    }
    const isGitShaped = entries.some((e) => e.name === "HEAD");
    for (const { name, kind } of entries) {
      const path = `${folder}/${name}`;
      if (kind === "link") links.push(path);
      else if (kind === "dir" && !(isGitShaped && (name === "objects" || name === "annex"))) queue.push(path);
    }
  }
  return links;
}
