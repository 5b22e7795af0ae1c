/**
 * @module sandbox/sweep-gitlinks
 * Repositories a root's index records as gitlinks, judged after every command wherever they sit: git on the
 * host reads each one's config on `git status` (an embedded repository needs no `.gitmodules`), and the
 * survey's walk skips folders such as `node_modules`, so a repository a command made there and added to the
 * index is found through the index instead. Only those made or changed since the command started are
 * judged: the person's own are left as they are.
 */
import { lstatSync } from "node:fs";
import { bytesOf, textOf } from "./descriptors.js";
import { gitDirOfFile } from "./git-dirs.js";
import { indexGitlinks } from "./git-index.js";
import { reopenWay } from "./reopen.js";

/** A repository to move away: its `.git` (raw, absolute) and why. */
export interface GitlinkFinding {
  path: string;
  why: string;
}

/**
 * The gitlinked repositories of the worktree whose git folder is `gitDir` that `judge` refuses, among those
 * made or changed since `since` (ms). When the index cannot be read, `incomplete` says so (fail closed).
 */
export function unsafeGitlinks(
  gitDir: string,
  since: number,
  judge: (gitDir: string) => string | undefined,
  incomplete: string[],
): GitlinkFinding[] {
  if (!gitDir.endsWith("/.git")) return [];
  const top = gitDir.slice(0, -"/.git".length);
  const links = indexGitlinks(gitDir);
  if (links === undefined) {
    incomplete.push(`the index of ${textOf(top)} could not be read: repositories it records were not judged`);
    return [];
  }
  const found: GitlinkFinding[] = [];
  for (const relative of links) {
    const dotGit = `${top}/${relative}/.git`;
    const stat = lstatReopened(top, dotGit);
    if (!stat) continue;
    const repository = stat.isDirectory() ? dotGit : stat.isFile() ? gitDirOfFile(dotGit) : undefined;
    if (!repository) continue;
    if (
      ![dotGit, repository, `${repository}/config`, `${repository}/hooks`].some((p) => changedSince(p, since))
    )
      continue;
    const why = judge(repository);
    if (why)
      found.push({ path: dotGit, why: `a repository the index records at ${textOf(relative)} ${why}` });
  }
  return found;
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

/** Whether the path's status changed (ctime, which no command can set back) since `since`, in ms. */
function changedSince(path: string, since: number): boolean {
  try {
    const stat = lstatSync(bytesOf(path), { throwIfNoEntry: false });
    return stat !== undefined && stat.ctimeMs >= since;
  } catch {
    return false;
  }
}
