/**
 * @module approvals/private-folder
 * The approvals folder is trusted only when no one but its user (and root) can change it: whoever can write
 * it can answer every ask. So, before a store uses it, each folder on its path is checked, outermost first:
 * - owned by the user or by root (a folder another user owns is theirs to swap);
 * - not writable by group or others, unless it has the sticky bit (like /tmp: others may add entries but not
 *   replace ours, and the next folder down must still be ours);
 * - a symlink on the path is followed only when the user or root owns it (and its target passes the same
 *   checks); the approvals folder itself must not be a symlink at all;
 * - the approvals folder is a folder the user owns, with no permission for group or others (0700);
 * - missing folders are created 0700 one by one, and each is checked after creation (nothing raced in).
 * A refusal names the path and says how to fix it. Record files are opened with O_NOFOLLOW (file-store.ts).
 */
import { lstatSync, mkdirSync, readlinkSync, type Stats } from "node:fs";
import { dirname, relative, resolve } from "node:path";

/** Options of {@link ensurePrivateFolder}. */
export interface PrivateFolderOptions {
  /** Whose folder it must be (default the process's uid); tests of another user's folder pass another. */
  uid?: number;
}

const GROUP_OTHER_WRITE = 0o022;
const STICKY = 0o1000;

/** Why a folder could not be trusted. */
export class UnsafeFolderError extends Error {
  override readonly name = "UnsafeFolderError";
}

function refuse(dir: string, path: string, why: string, fix: string): never {
  throw new UnsafeFolderError(
    `approvals folder ${dir}: refused, ${path} ${why} (anyone who can change it could answer every ask); ${fix}`,
  );
}

function lstatOrMissing(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The folders from the root down to `path`: `/`, `/a`, `/a/b`. */
function chain(path: string): string[] {
  const out: string[] = [];
  for (let p = path; ; p = dirname(p)) {
    out.unshift(p);
    if (dirname(p) === p) return out;
  }
}

/**
 * Makes `dir` (creating what is missing, 0700) and checks that only the user and root can change it or any
 * folder on its path; throws {@link UnsafeFolderError} naming the first that fails.
 * @example ensurePrivateFolder("/home/me/.config/toolgate/state/approvals")
 */
export function ensurePrivateFolder(dir: string, options: PrivateFolderOptions = {}): void {
  const uid = options.uid ?? process.getuid?.() ?? 0;
  checkPath(resolve(dir), resolve(dir), uid, 0);
}

/**
 * Checks (and makes) every folder of `target`, outermost first; `dir` is the approvals folder as given,
 * which the messages name. After a symlink the walk starts again over the path through its target.
 */
function checkPath(dir: string, target: string, uid: number, depth: number): void {
  if (depth > 40) refuse(dir, dir, "has too many levels of symlinks", "use a path without symlink loops");
  for (const p of chain(target)) {
    const last = p === target;
    let stat = lstatOrMissing(p);
    if (!stat) {
      try {
        mkdirSync(p, { mode: 0o700 });
      } catch (error) {
        // Someone made it between our look and our mkdir: check what is there now, as for any folder found.
        if ((error as { code?: string }).code !== "EEXIST") throw error;
      }
      stat = lstatSync(p);
    }
    const owner = stat.uid === uid ? "you" : stat.uid === 0 ? "root" : `user ${stat.uid}`;
    if (owner !== "you" && owner !== "root")
      refuse(dir, p, `is owned by ${owner}, not by you`, `use a folder of your own (or: chown ${uid} ${p})`);
    if (stat.isSymbolicLink()) {
      if (last) refuse(dir, p, "is a symlink", "remove it: the folder is made again, yours");
      const through = resolve(resolve(dirname(p), readlinkSync(p)), relative(p, target));
      checkPath(dir, through, uid, depth + 1);
      return;
    }
    if (!stat.isDirectory()) refuse(dir, p, "is not a folder", "move it away");
    if (last) {
      if (owner !== "you")
        refuse(dir, p, "is not owned by you", "remove it: the folder is made again, yours");
      if ((stat.mode & 0o077) !== 0)
        refuse(dir, p, `has mode ${(stat.mode & 0o777).toString(8)}, not 700`, `chmod 700 ${p}`);
    } else if ((stat.mode & GROUP_OTHER_WRITE) !== 0 && (stat.mode & STICKY) === 0) {
      const who = ["its group", "others"].filter((_, i) => stat.mode & (i === 0 ? 0o020 : 0o002));
      const mode = (stat.mode & 0o7777).toString(8);
      refuse(dir, p, `is writable by ${who.join(" and ")} (mode ${mode})`, `chmod go-w ${p}`);
    }
  }
}
