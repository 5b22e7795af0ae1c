/**
 * @module sandbox/sweep-gitlinks
 * Repositories a worktree's index records as gitlinks, judged after every command wherever they sit: git on
 * the host reads each one's config on `git status` (an embedded repository needs no `.gitmodules`), and the
 * survey's walk skips folders such as `node_modules`, so a repository a command made there and added to the
 * index is found through the index instead. Judged by path, not by age: every gitlinked repository that the
 * survey before the command did not record at that path, with the same config and hooks, is judged — one a
 * command made earlier and only adds to the index now included. The person's own submodules are in that
 * baseline and left as they are.
 */
import { lstatSync, readdirSync } from "node:fs";
import { dirname, isAbsolute } from "node:path";
import { readPlainFileSync } from "../utils/index.js";
import { bytesOf, textOf } from "./descriptors.js";
import { gitDirOfFile } from "./git-dirs.js";
import { indexGitlinks } from "./git-index.js";
import { reopenWay } from "./reopen.js";

/** A repository to move away: its `.git` (raw, absolute) and why. */
export interface GitlinkFinding {
  path: string;
  why: string;
}

/** A gitlinked repository: its `.git` (raw, absolute), the path the index records, and its git folder. */
interface GitlinkRepository {
  dotGit: string;
  relative: string;
  repository: string;
}

/**
 * Whether an index path can name a folder below its worktree: no empty, `.` or `..` part and no `.git` part
 * (git refuses to add such paths; one written into an index by hand would point the check outside the roots).
 */
function plainIndexPath(relative: string): boolean {
  return relative
    .split("/")
    .every((part) => part !== "" && part !== "." && part !== ".." && part.toLowerCase() !== ".git");
}

function insideRoots(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(`${root}/`));
}

/**
 * The worktree whose index is `<gitDir>/index`, raw absolute: the folder holding a `.git` folder, what a
 * linked worktree's `gitdir` file names (`.git/worktrees/<n>`, `.bare/worktrees/<n>`), or what `tops` (a
 * separate git folder → the folder of the `.git` file naming it, from the survey) says; undefined when none.
 */
export function worktreeOf(gitDir: string, tops: ReadonlyMap<string, string>): string | undefined {
  if (gitDir.endsWith("/.git")) return gitDir.slice(0, -"/.git".length);
  const known = tops.get(gitDir);
  if (known) return known;
  try {
    const named = readPlainFileSync(bytesOf(`${gitDir}/gitdir`))
      .toString("latin1")
      .trim();
    if (isAbsolute(named) && named.endsWith("/.git")) return dirname(named);
  } catch {
    // Not a linked worktree's git folder.
  }
  return undefined;
}

/**
 * The repositories the index of `gitDir`'s worktree records as gitlinks, with a stamp of each (its `.git`,
 * git folder, config and hooks: device, inode and change time); undefined when the index cannot be read or
 * its worktree is unknown and it has an index (then which repositories git reaches is not known).
 */
export function gitlinkStamps(
  gitDir: string,
  tops: ReadonlyMap<string, string>,
): Map<string, string> | undefined {
  const repositories = gitlinkRepositories(gitDir, tops);
  if (!repositories) return undefined;
  return new Map(repositories.map((r) => [r.dotGit, stampOf(r.repository, r.dotGit)]));
}

function gitlinkRepositories(
  gitDir: string,
  tops: ReadonlyMap<string, string>,
): GitlinkRepository[] | undefined {
  const links = indexGitlinks(gitDir);
  if (links === undefined) return undefined;
  if (links.length === 0) return [];
  const top = worktreeOf(gitDir, tops);
  if (!top) return undefined;
  const out: GitlinkRepository[] = [];
  for (const relative of links) {
    if (!plainIndexPath(relative)) continue;
    const dotGit = `${top}/${relative}/.git`;
    const stat = lstatReopened(top, dotGit);
    if (!stat) continue;
    const repository = stat.isDirectory() ? dotGit : stat.isFile() ? gitDirOfFile(dotGit) : undefined;
    if (repository) out.push({ dotGit, relative, repository });
  }
  return out;
}

/**
 * The gitlinked repositories of the worktree whose git folder is `gitDir` that `judge` refuses, among those
 * not in `known` (the survey's stamps, {@link gitlinkStamps}) with the same stamp. When the index cannot be
 * read, `incomplete` says so (fail closed). One the survey found (`surveyed`) is the person's and stays; a new
 * or changed one whose git folder is outside `roots` is refused without being read.
 */
export function unsafeGitlinks(
  gitDir: string,
  tops: ReadonlyMap<string, string>,
  known: ReadonlyMap<string, string>,
  judge: (gitDir: string, worktree: string) => string | undefined,
  incomplete: string[],
  where: { roots: readonly string[]; surveyed: ReadonlySet<string> },
): GitlinkFinding[] {
  const repositories = gitlinkRepositories(gitDir, tops);
  if (repositories === undefined) {
    incomplete.push(
      `the index of ${textOf(gitDir)} could not be read (or its worktree is unknown): repositories it records were not judged`,
    );
    return [];
  }
  const found: GitlinkFinding[] = [];
  for (const { dotGit, relative, repository } of repositories) {
    if (known.get(dotGit) === stampOf(repository, dotGit)) continue;
    // A repository the survey found is the person's (its config and hooks were read-only to the command): only
    // the index entry is new, and moving their `.git` would lose their work.
    if (where.surveyed.has(repository)) continue;
    // A pointer the command wrote is not followed out of the workspace: what is there is the person's, and
    // the check (with the person's rights) would judge it and say what it found to the command.
    if (!insideRoots(repository, where.roots)) {
      found.push({
        path: dotGit,
        why: `a .git file the index records at ${textOf(relative)} names a git folder outside the workspace`,
      });
      continue;
    }
    const why = judge(repository, dirname(dotGit));
    if (why)
      found.push({ path: dotGit, why: `a repository the index records at ${textOf(relative)} ${why}` });
  }
  return found;
}

/**
 * Device and inode of a repository's `.git` and git folder (their change time moves with every commit), and
 * with the change time, of its config, hooks folder and each hook.
 */
function stampOf(repository: string, dotGit: string): string {
  const parts = [dotGit, repository].map((p) => stamp(p).replace(/:[^:]*$/, ""));
  parts.push(...[`${repository}/config`, `${repository}/hooks`].map(stamp));
  try {
    for (const name of readdirSync(bytesOf(`${repository}/hooks`), { encoding: "buffer" }).sort(
      Buffer.compare,
    ))
      parts.push(stamp(`${repository}/hooks/${name.toString("latin1")}`));
  } catch {
    // No hooks folder: its stamp above says so.
  }
  return parts.join("|");
}

function stamp(path: string): string {
  try {
    const stat = lstatSync(bytesOf(path), { bigint: true, throwIfNoEntry: false });
    return stat ? `${stat.dev}:${stat.ino}:${stat.ctimeNs}` : "missing";
  } catch {
    return "unreadable";
  }
}

/**
 * The status of `path`, after giving the owner's permissions back on the folders from `top` down when one
 * refused the lookup; undefined when nothing is there, or the path is too long to name (git on the host cannot
 * reach it either).
 */
function lstatReopened(top: string, path: string) {
  const look = () => lstatSync(bytesOf(path), { throwIfNoEntry: false });
  try {
    return look();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENAMETOOLONG") return undefined;
    if (code !== "EACCES" || !reopenWay(top, path)) throw error;
    return look();
  }
}
