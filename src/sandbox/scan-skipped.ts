/**
 * @module sandbox/scan-skipped
 * The survey does not look for secrets inside the folders it skips (`node_modules`, virtual environments,
 * caches: survey.json), but what decides what runs next is looked for there too, by name only: repositories
 * (`.git` folders and files, `.hg` folders), links and protected names. A repository made in `.venv` becomes a
 * gitlink at the person's next `git add -A`; a link `node_modules/.package-lock.json -> ~/.bashrc` is written
 * through by the person's next `npm install`. The walk reads each folder's entries with their types (no `stat`
 * of a file), uses the listings kept between walks, and keeps what it made of each listing; past its budget it
 * stops and says so (the caller fails closed).
 */
import type { PathPatternSet } from "../workspace/index.js";
import { textOf } from "./descriptors.js";
import { isGitShaped } from "./git-shape.js";
import type { FolderEntry, Found, ScanResult, ScanRules } from "./scan.js";

/** At most this many folders inside skipped folders are read per root; past it the walk is incomplete. */
export const SKIPPED_MAX_DIRS = 200_000;

/** What one folder's entries hold for this walk (kept per listing: a listing is the same array while unchanged). */
interface FolderNames {
  links: string[];
  /** Entries matching a protected pattern, with their kind. */
  protected: FolderEntry[];
  gitDirs: string[];
  gitFiles: string[];
  hgDirs: string[];
  /** Folders to walk on (not `.git`, `.hg`, links). */
  folders: string[];
}

const namesOf = new WeakMap<PathPatternSet, WeakMap<readonly FolderEntry[], FolderNames>>();

/**
 * Walks the skipped folders `starts` (found by the main walk of `root`) by name, adding to `out`: links to
 * `links`; `.git` folders and files to `gitDirs`/`gitFiles` (protected like every other repository, judged
 * when new); `.hg` folders to `hgDirs`, with their protected files in `protected` (read-only); other protected
 * names to `skippedProtected` (not mounted over: judged after a command when new at their path); folders it
 * could not list to `unreadable`. Past `rules.skippedMaxDirs` folders it sets `out.skippedOver`.
 */
export function walkSkipped(
  root: string,
  starts: readonly Found[],
  rules: ScanRules,
  out: ScanResult,
  list: (path: string) => readonly FolderEntry[],
): void {
  const max = rules.skippedMaxDirs ?? SKIPPED_MAX_DIRS;
  let cache = namesOf.get(rules.protectedSet);
  if (!cache) {
    cache = new WeakMap();
    namesOf.set(rules.protectedSet, cache);
  }
  // Each folder: its path relative to the root, and whether a protected folder above holds it.
  const stack = starts.map((s) => ({ relative: s.relative, inProtected: false }));
  let dirs = 0;
  while (stack.length > 0) {
    const { relative, inProtected } = stack.pop()!;
    const path = `${root}/${relative}`;
    if (rules.unchecked?.has(path)) continue;
    if (++dirs > max) {
      out.skippedOver =
        `${textOf(path)} and ${stack.length} more folders inside folders the survey skips (more than ` +
        `${max}) were not looked through for repositories, links and protected names`;
      out.skippedLeft = [path, ...stack.map((left) => `${root}/${left.relative}`)];
      return;
    }
    let entries: readonly FolderEntry[];
    try {
      entries = list(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT")
        out.unreadable.push({ path, relative, kind: "dir" });
      continue;
    }
    // A folder git takes for a repository (HEAD, objects, refs), whatever its name (red team H5).
    if (relative !== "" && isGitShaped(entries)) {
      out.gitDirs.push({ path, relative, kind: "dir" });
      continue;
    }
    let names = cache.get(entries);
    if (!names) {
      names = sort(relative, entries, rules.protectedSet, root);
      cache.set(entries, names);
    }
    const at = (name: string, kind: Found["kind"]): Found => ({
      path: `${path}/${name}`,
      relative: `${relative}/${name}`,
      kind,
    });
    for (const name of names.links) out.links.push(at(name, "link"));
    for (const name of names.gitDirs) out.gitDirs.push(at(name, "dir"));
    for (const name of names.gitFiles) out.gitFiles.push(at(name, "file"));
    for (const name of names.hgDirs) {
      const hg = at(name, "dir");
      out.hgDirs.push(hg);
      hgProtected(hg, rules.protectedSet, out, list);
    }
    const protectedHere = new Set<string>();
    if (!inProtected) {
      for (const entry of names.protected) {
        out.skippedProtected.push(at(entry.name, entry.kind));
        protectedHere.add(entry.name);
      }
    }
    for (const name of names.folders)
      stack.push({ relative: `${relative}/${name}`, inProtected: inProtected || protectedHere.has(name) });
  }
}

function sort(
  relative: string,
  entries: readonly FolderEntry[],
  set: PathPatternSet,
  root: string,
): FolderNames {
  const names: FolderNames = { links: [], protected: [], gitDirs: [], gitFiles: [], hgDirs: [], folders: [] };
  for (const entry of entries) {
    const { name, kind } = entry;
    if (name === ".git") {
      if (kind === "dir") names.gitDirs.push(name);
      else if (kind === "file") names.gitFiles.push(name);
      else names.protected.push(entry);
      continue;
    }
    if (name === ".hg" && kind === "dir") {
      names.hgDirs.push(name);
      continue;
    }
    if (kind === "link") names.links.push(name);
    const rel = `${relative}/${name}`;
    if (set.matches(textOf(rel), textOf(`${root}/${rel}`))) names.protected.push(entry);
    if (kind === "dir") names.folders.push(name);
  }
  return names;
}

/** An existing `.hg` folder's protected files (hgrc, sharedpath, requires): read-only, like the root's. */
function hgProtected(
  hg: Found,
  set: PathPatternSet,
  out: ScanResult,
  list: (path: string) => readonly FolderEntry[],
): void {
  let entries: readonly FolderEntry[];
  try {
    entries = list(hg.path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") out.unreadable.push(hg);
    return;
  }
  for (const { name, kind } of entries) {
    const relative = `${hg.relative}/${name}`;
    if (set.matches(textOf(relative), textOf(`${hg.path}/${name}`)))
      out.protected.push({ path: `${hg.path}/${name}`, relative, kind });
  }
}
