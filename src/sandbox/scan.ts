/**
 * @module sandbox/scan
 * One walk of a workspace root that finds what the sandbox must cover: existing protected paths at any depth,
 * secrets (by name), repositories (`.git` folders and files, and folders shaped like a git folder), and what it
 * could not look at. It fails closed: a folder it cannot read, or cannot reach before its folder limit, is
 * reported so that the sandbox hides it whole. The same walk runs after a command to find what it created.
 */
import type { Dirent } from "node:fs";
import { closeSync, lstatSync, readdirSync, type Stats, statfsSync } from "node:fs";
import type { PathPatternSet } from "../workspace/index.js";
import { bytesOf, inside, openChecked, textOf } from "./descriptors.js";
import { isGitShaped } from "./git-shape.js";
import { walkSkipped } from "./scan-skipped.js";
import survey from "./survey.json" with { type: "json" };

/** At most this many folders are read per root; the folders left are hidden whole (fail closed). */
export const SCAN_MAX_DIRS = 10_000;
/**
 * Folders never descended into (survey.json): installed packages, virtual environments, build output and
 * caches — code that runs as code anyway, and large. A folder holding a hidden secret cannot be renamed to one
 * of these names (every folder above a covered path is pinned in place), so the list opens no way to a secret.
 */
/** Folder names the walk does not look into (survey.json). */
export const SKIPPED: ReadonlySet<string> = new Set(survey.skip.map((e) => e.name));

/** Something the walk found: raw absolute path, raw path relative to the root, and its kind. */
export interface Found {
  path: string;
  relative: string;
  kind: "file" | "dir" | "link" | "other";
}

/** What one walk of a root found. */
export interface ScanResult {
  root: string;
  /** Existing protected paths, outermost only (a protected folder's insides are covered by it). */
  protected: Found[];
  /** Paths with a secret's name (files, folders, links and others). */
  secrets: Found[];
  /** Git folders: `.git` folders and folders shaped like one (`HEAD`, `objects/`, `refs/`). */
  gitDirs: Found[];
  /** `.git` files (a pointer to the git folder elsewhere: worktrees, submodules, the `.bare` layout). */
  gitFiles: Found[];
  /** Folders that could not be read (permissions, or gone mid-walk as something else). */
  unreadable: Found[];
  /** Folders not read because the walk reached {@link SCAN_MAX_DIRS}. */
  unscanned: Found[];
  /** Symbolic links (outside git folders; inside skipped folders too), for the check after a command. */
  links: Found[];
  /** Mercurial folders (`.hg`), anywhere: a new one is judged like a new git repository. */
  hgDirs: Found[];
  /**
   * Protected names inside skipped folders (scan-skipped.ts): not mounted over (packages ship CI files by the
   * hundred); one new at its path after a command is moved like any protected name.
   */
  skippedProtected: Found[];
  /** The project's own `__pycache__` folders (not inside another skipped folder): see sweep-pyc.ts. */
  pycache: Found[];
  /**
   * Compiled Python code outside `__pycache__` that Python imports in place of a source: sourceless `.pyc`/`.pyo`
   * files and extension modules (`*.cpython-*.so`, `*.abi3.so`, `*.pyd`, `__init__.so`, and any `*.so` in a
   * folder holding `*.py` files).
   */
  pythonCode: Found[];
  /** Set when the walk of skipped folders stopped at its budget: what it did not look through. */
  skippedOver?: string;
  /** With `skippedOver`: the folders (raw, absolute) the walk of skipped folders did not read. */
  skippedLeft?: string[];
  /** Folders read. */
  dirs: number;
}

/** What a walk matches names with, and which folders it does not look into. */
export interface ScanRules {
  protectedSet: PathPatternSet;
  secretSet: PathPatternSet;
  /** Raw absolute folders the walk leaves alone (`[sandbox] unchecked`). */
  unchecked?: ReadonlySet<string>;
  maxDirs?: number;
  /** At most this many folders inside skipped folders (default: scan-skipped.ts's SKIPPED_MAX_DIRS). */
  skippedMaxDirs?: number;
}

/**
 * Walks `root` (raw, canonical) breadth-first. Links are never followed; `node_modules`, git folders' insides
 * and protected folders' protected names are not descended into (protected folders are still walked for
 * secrets, which must be hidden even inside a read-only folder).
 */
export function scanRoot(root: string, rules: ScanRules): ScanResult {
  const out: ScanResult = {
    root,
    protected: [],
    secrets: [],
    gitDirs: [],
    gitFiles: [],
    unreadable: [],
    unscanned: [],
    links: [],
    hgDirs: [],
    skippedProtected: [],
    pycache: [],
    pythonCode: [],
    dirs: 0,
  };
  const skipped: Found[] = [];
  walkMain(root, rules, out, skipped);
  walkSkipped(root, skipped, rules, out, listFolder);
  return out;
}

/** The walk of everything but skipped folders (those met are added to `skipped`). */
function walkMain(root: string, rules: ScanRules, out: ScanResult, skipped: Found[]): void {
  const max = rules.maxDirs ?? SCAN_MAX_DIRS;
  // Each queued folder: its relative path and whether it lies inside a protected folder (secrets only).
  let queue: { relative: string; inProtected: boolean }[] = [{ relative: "", inProtected: false }];
  while (queue.length > 0) {
    const next: typeof queue = [];
    for (let i = 0; i < queue.length; i++) {
      const { relative, inProtected } = queue[i]!;
      const path = relative ? `${root}/${relative}` : root;
      if (out.dirs >= max) {
        for (const left of queue.slice(i)) {
          out.unscanned.push({ path: `${root}/${left.relative}`, relative: left.relative, kind: "dir" });
        }
        for (const left of next) {
          out.unscanned.push({ path: `${root}/${left.relative}`, relative: left.relative, kind: "dir" });
        }
        return;
      }
      out.dirs++;
      let entries: readonly FolderEntry[];
      try {
        entries = listFolder(path);
      } catch (error) {
        // Gone meanwhile: nothing there to hide. Anything else (no permission, a link swapped in): hide whole.
        if ((error as NodeJS.ErrnoException).code !== "ENOENT" && relative !== "") {
          out.unreadable.push({ path, relative, kind: "dir" });
        } else if (relative === "") throw error;
        continue;
      }
      if (relative !== "" && !inProtected && isGitShaped(entries)) {
        out.gitDirs.push({ path, relative, kind: "dir" });
        continue;
      }
      // Python imports any `NAME.so` (its plainest extension suffix) before `NAME.py` from the same folder.
      const besidePython = entries.some((e) => e.kind !== "dir" && e.name.endsWith(".py"));
      for (const { name, kind } of entries) {
        const rel = relative ? `${relative}/${name}` : name;
        const found: Found = { path: `${root}/${rel}`, relative: rel, kind };
        const text = textOf(rel);
        if (rules.unchecked?.has(found.path)) continue;
        if (rules.secretSet.matches(text)) {
          // Hidden, not descended into; a secret that also decides what runs (.npmrc, .envrc) is both.
          out.secrets.push(found);
          if (!inProtected && rules.protectedSet.matches(text, textOf(found.path))) out.protected.push(found);
          continue;
        }
        if (name === ".git" && !inProtected) {
          if (found.kind === "dir") out.gitDirs.push(found);
          else if (found.kind === "file") out.gitFiles.push(found);
          else if (!inProtected) out.protected.push(found);
          continue;
        }
        if (found.kind === "link") out.links.push(found);
        if (found.kind !== "dir" && (PYTHON_CODE.test(name) || (besidePython && name.endsWith(".so"))))
          out.pythonCode.push(found);
        if (name === ".hg" && found.kind === "dir" && !inProtected) out.hgDirs.push(found);
        const isProtected = !inProtected && rules.protectedSet.matches(text, textOf(found.path));
        if (isProtected) out.protected.push(found);
        if (found.kind === "dir" && SKIPPED.has(name)) {
          if (!inProtected) skipped.push(found);
          if (name === "__pycache__") out.pycache.push(found);
        } else if (found.kind === "dir") {
          next.push({ relative: rel, inProtected: inProtected || isProtected });
        }
      }
    }
    queue = next;
  }
}

/**
 * Compiled Python code Python imports instead of a source (red team 2026-11-27f, H1): bytecode, and extension
 * modules by all three of Python's suffixes where the name says so — `.cpython-*.so`, `.abi3.so`, and a package's
 * `__init__.so` (a plain `.so` beside Python source is judged in the walk; I1).
 */
const PYTHON_CODE = /\.(pyc|pyo|pyd)$|\.(cpython-[^./]+|abi3)\.so$|^__init__\.so$/;

/** One entry of a folder: its raw name and kind. */
export interface FolderEntry {
  name: string;
  kind: Found["kind"];
}

/**
 * Listings of folders that had not changed for {@link SETTLED_MS} when read, keyed by raw path, with the
 * folder's device, inode and change times at that moment. Every change to a folder's entries (a name made,
 * removed, renamed, or a link swapped in) and every change of its mode sets its ctime to the kernel's clock,
 * and no command can set a ctime back: a folder whose device, inode, mtime and ctime are all as they were holds
 * the entries it held. "Settled" closes the window of the clock's granularity (a change made in the same tick
 * right after the read would keep the stamp); only file systems known to keep these times are cached.
 */
const listings = new Map<string, { stat: Stats; entries: readonly FolderEntry[] }>();
let listedEntries = 0;
/** At most this many entries kept in all (then the listings are dropped and read again). */
const MAX_LISTED_ENTRIES = 200_000;
/** How long a folder must have been unchanged before its listing is kept (coarse clocks, 2 s file systems). */
export const SETTLED_MS = 2000;
/** File systems whose folders get mtime and ctime on every change (statfs magic numbers). */
const TIMES_KEPT = new Set([
  0xef53, // ext2/3/4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x794c7630, // overlayfs
  0x2fc12fc1, // zfs
  0xf2f52010, // f2fs
]);
const timesKeptOn = new Map<number, boolean>();

/**
 * The entries of the folder at raw `path`, listed through a descriptor opened without following a link and
 * checked to be at `path` itself: a folder swapped for a link mid-walk is refused (ELOOP), never listed. A
 * folder unchanged since an earlier listing (same device, inode, mtime and ctime: one `lstat`) gives that
 * listing again. Do not change the array.
 */
export function listFolder(path: string): readonly FolderEntry[] {
  const known = listings.get(path);
  if (known) {
    const now = statOf(path);
    if (now?.isDirectory() && sameStamp(now, known.stat)) return known.entries;
    listings.delete(path);
    listedEntries -= known.entries.length;
  }
  const before = Date.now();
  const opened = openChecked(path);
  if (opened === undefined) throw Object.assign(new Error(`${textOf(path)} is gone`), { code: "ENOENT" });
  let entries: FolderEntry[];
  try {
    if (opened === "moved" || !opened.stat.isDirectory())
      throw Object.assign(new Error(`${textOf(path)} is a link or moved`), { code: "ELOOP" });
    const read: Dirent<Buffer>[] = readdirSync(inside(opened.fd, ""), {
      withFileTypes: true,
      encoding: "buffer",
    });
    entries = read.map((e) => ({ name: e.name.toString("latin1"), kind: direntKind(e) }));
  } finally {
    if (opened !== "moved") closeSync(opened.fd);
  }
  // The stamp is the one taken before the entries were read: a change meanwhile makes it stale, never right.
  const stat = opened.stat;
  if (Math.max(stat.mtimeMs, stat.ctimeMs) < before - SETTLED_MS && timesKept(stat.dev, path)) {
    if (listedEntries + entries.length > MAX_LISTED_ENTRIES) {
      listings.clear();
      listedEntries = 0;
    }
    listings.set(path, { stat, entries });
    listedEntries += entries.length;
  }
  return entries;
}

function sameStamp(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}

function statOf(path: string): Stats | undefined {
  try {
    return lstatSync(bytesOf(path), { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function timesKept(dev: number, path: string): boolean {
  let kept = timesKeptOn.get(dev);
  if (kept === undefined) {
    try {
      kept = TIMES_KEPT.has(statfsSync(bytesOf(path)).type);
    } catch {
      kept = false;
    }
    timesKeptOn.set(dev, kept);
  }
  return kept;
}

function direntKind(entry: Dirent<Buffer>): Found["kind"] {
  if (entry.isSymbolicLink()) return "link";
  if (entry.isDirectory()) return "dir";
  return entry.isFile() ? "file" : "other";
}
