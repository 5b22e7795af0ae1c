/**
 * @module sandbox/placeholders
 * bwrap needs a mount point to keep a missing protected path from being created: toolgate makes an empty
 * folder there (and any missing parent folders) before the command, and bwrap covers it with a read-only empty
 * folder. Folders, not files: git, npm and editors ignore an empty folder (`git add -A`, `git status` stay
 * clean), while nothing can be written into it.
 *
 * A few git files are blocked with a placeholder file instead, holding what git reads as "nothing there"
 * (git-dirs.ts: a `commondir` of `.`); they are removed only while they still hold exactly that.
 *
 * This module counts who relies on each placeholder in this process and removes it — only while still empty —
 * when the last sandbox using it ends. Deleting a folder unmounts whatever another sandbox mounted on it, so a
 * placeholder another process still lists in its journal is left for that process. Every process keeps a
 * journal of its placeholders in the user's state folder; one killed before it could clean up is cleaned up by
 * the next one (see {@link cleanLeftPlaceholders}). Every step opens folders one name at a time without
 * following links (descriptors.ts), so a folder swapped for a link cannot lead it elsewhere.
 */

import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { bytesOf, inside, openFolder, openInside, rawOf, readInsideSync } from "./descriptors.js";
import { processStartTime } from "./process-start.js";

const holders = new Map<string, number>();
/** The placeholder files among {@link holders}: raw path → what it holds. */
const fileContents = new Map<string, string>();
/** The journal file of this process, once a state folder is known. */
let journal: string | undefined;

/** Where this process keeps its journal (the user's state folder); set before the first placeholder. */
export function useJournal(stateDir: string | undefined): void {
  if (!stateDir || journal) return;
  journal = join(stateDir, "sandbox", `placeholders-${process.pid}.json`);
}

/** The placeholders (raw paths) of this process (held or lingering) and those other live processes hold. */
export function heldPlaceholders(): Set<string> {
  return new Set([...holders.keys(), ...heldElsewhere()]);
}

/**
 * Whether `path` (absolute, as text) is a placeholder folder — this process's or another live one's — holding
 * nothing but placeholders. Glob expansion skips these: a name the user never made must not become a word.
 */
export function isPlaceholder(path: string): boolean {
  const held = holders.size > 0 || journal !== undefined ? heldPlaceholders() : new Set<string>();
  return onlyPlaceholders(rawOf(path), held);
}

function onlyPlaceholders(raw: string, held: ReadonlySet<string>): boolean {
  if (!held.has(raw)) return false;
  try {
    return readdirSync(bytesOf(raw), { encoding: "latin1" }).every((name) =>
      onlyPlaceholders(`${raw}/${name}`, held),
    );
  } catch {
    return false;
  }
}

/** The workspace changed between the survey and the placeholders: survey again. */
export class PlaceholderRace extends Error {
  override readonly name = "PlaceholderRace";
}

/**
 * A placeholder could not be made because its folder refuses writing (a command made `.git` read-only with
 * `chmod 555`, or the person did): no way to block the path, so the command must not run. The message names
 * the folder and the fix (red team 2026-11-27f, H7: a bare `EACCES … commondir` before).
 */
export class PlaceholderDenied extends Error {
  override readonly name = "PlaceholderDenied";
  constructor(path: string, error: NodeJS.ErrnoException) {
    const folder = bytesOf(dirname(path)).toString("utf8");
    super(
      `toolgate could not make its placeholder ${bytesOf(path).toString("utf8")} (${error.code ?? error.message}): ` +
        `the folder ${folder} does not let its owner write, so the path cannot be kept from the command; ` +
        `give the write permission back (chmod u+w '${folder}') or remove the folder, then run the command again`,
    );
  }
}

/** Whether a failed write means the folder refuses it (permissions, a read-only mount), not a race. */
function refused(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "EACCES" || code === "EPERM" || code === "EROFS";
}

/**
 * Makes the placeholders `paths` (raw, missing, each inside the raw writable place `places` holds) and their
 * missing parents, and the placeholder `files` (raw path → content; their folders exist), counts them, and
 * returns the function that releases them.
 * @throws PlaceholderRace when a folder on the way is not a real folder, or a placeholder's place is taken
 * (the workspace changed since the survey): survey again.
 */
export function holdPlaceholders(
  paths: readonly string[],
  places: readonly string[],
  files: ReadonlyMap<string, string> = new Map(),
): () => void {
  const made: string[] = [];
  const placeFds = new Map<string, number>();
  // Journaled before anything is made: a process killed midway leaves nothing the next one does not know of.
  const elsewhere = heldElsewhere();
  // Another live process's placeholder is shared (journaled here first, so that process leaves it in place).
  const toMake = paths.filter((p) => !holders.has(p)).flatMap((p) => foldersToHold(p, places, elsewhere));
  const filesToMake = [...files].filter(([path]) => !holders.has(path));
  for (const [path, content] of filesToMake) fileContents.set(path, content);
  if (toMake.length > 0 || filesToMake.length > 0) writeJournal(toMake);
  try {
    for (const [path, content] of files) {
      holdFile(path, content);
      made.push(path);
      count([path], 1);
    }
    for (const path of paths) {
      // Already there (held, or lingering after a command that ended): one more hold.
      if (holders.has(path)) {
        made.push(path);
        count([path], 1);
        continue;
      }
      const place = places.find((p) => path.startsWith(`${p}/`));
      if (!place) throw new Error(`placeholder ${path} is outside the writable places`);
      const names = path.slice(place.length + 1).split("/");
      let placeFd = placeFds.get(place);
      if (placeFd === undefined) {
        placeFd = openFolder(place) ?? fail(place);
        placeFds.set(place, placeFd);
      }
      let fd = placeFd;
      try {
        for (let i = 0; i < names.length; i++) {
          const at = `${place}/${names.slice(0, i + 1).join("/")}`;
          let next = openInside(fd, names[i]!);
          if (!next) {
            try {
              mkdirSync(inside(fd, names[i]!));
            } catch (error) {
              throw refused(error) ? new PlaceholderDenied(at, error) : error;
            }
            made.push(at);
            count([at], 1);
            next = openInside(fd, names[i]!);
          } else if (holders.has(at) || (elsewhere.has(at) && next.stat.isDirectory())) {
            made.push(at);
            count([at], 1);
          } else if (i === names.length - 1) {
            closeSync(next.fd);
            throw new PlaceholderRace(`${bytesOf(at).toString("utf8")} appeared meanwhile`);
          }
          if (fd !== placeFd) closeSync(fd);
          if (!next?.stat.isDirectory()) {
            if (next) closeSync(next.fd);
            fd = placeFd;
            fail(at);
          }
          fd = next.fd;
        }
      } finally {
        if (fd !== placeFd) closeSync(fd);
      }
    }
  } catch (error) {
    release(made);
    for (const [path] of filesToMake) if (!holders.has(path)) fileContents.delete(path);
    throw error;
  } finally {
    for (const fd of placeFds.values()) closeSync(fd);
  }
  writeJournal();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    release(made);
  };
}

/**
 * Makes the placeholder file at raw `path` holding `content`, through its folder opened without following
 * links; one already there holding exactly `content` (another command's) is shared.
 * @throws PlaceholderRace when something else is there, or a folder on the way is not a real folder.
 */
function holdFile(path: string, content: string): void {
  if (holders.has(path)) return;
  const folder = openFolder(dirname(path));
  if (folder === undefined) fail(dirname(path));
  try {
    const name = inside(folder, path.slice(dirname(path).length + 1));
    let fd: number;
    try {
      fd = openSync(
        name,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o644,
      );
    } catch (error) {
      if (refused(error)) throw new PlaceholderDenied(path, error);
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (holdsExactly(path, content)) return;
      throw new PlaceholderRace(`${bytesOf(path).toString("utf8")} appeared meanwhile`);
    }
    try {
      writeSync(fd, content);
    } finally {
      closeSync(fd);
    }
  } finally {
    closeSync(folder);
  }
}

/**
 * Whether raw `path` is a placeholder file that still holds exactly what toolgate wrote (`content`, from
 * {@link heldPlaceholderFiles} or a layout's own). A placeholder is a real file on the host: a sandbox that
 * started before it was made sees it as a plain workspace file and can fill it, so "ours" is decided by
 * content, never by path alone; one that no longer holds it is judged like any file a command wrote.
 */
export function intactPlaceholder(path: string, content: string | undefined): boolean {
  return content !== undefined && holdsExactly(path, content);
}

/** Whether raw `path` is a regular file (reached without following links) holding exactly `content`. */
function holdsExactly(path: string, content: string): boolean {
  try {
    return readInsideSync(path, content.length + 1).equals(Buffer.from(content, "latin1"));
  } catch {
    return false;
  }
}

function fail(path: string): never {
  throw new PlaceholderRace(
    `${bytesOf(path).toString("utf8")} is not a real folder (a link appeared meanwhile?)`,
  );
}

function count(paths: readonly string[], by: number): void {
  for (const path of paths) holders.set(path, (holders.get(path) ?? 0) + by);
}

/** The placeholders this process made and has not removed yet (held or lingering), raw. */
export function madePlaceholders(): string[] {
  return [...holders.keys()];
}

/**
 * Drops one hold of each path. A placeholder nobody holds lingers a few seconds (the next command of a session
 * usually needs the same ones: making and removing a few dozen folders per command costs more than the
 * sandbox), then {@link flushPlaceholders} removes it; at exit at the latest.
 */
function release(paths: readonly string[]): void {
  for (const path of paths) holders.set(path, Math.max(0, (holders.get(path) ?? 1) - 1));
  if ([...holders.values()].some((n) => n === 0)) {
    flushTimer ??= setTimeout(() => {
      flushTimer = undefined;
      flushPlaceholders();
    }, LINGER_MS);
    flushTimer.unref();
  }
}

/** How long an unused placeholder stays for the next command. */
const LINGER_MS = 5000;
let flushTimer: NodeJS.Timeout | undefined;
process.once("exit", () => flushPlaceholders());

/**
 * Removes every placeholder no running command holds (deepest first, only while empty, and not one another
 * live process lists). Called a few seconds after the last command, when the gate closes, and at exit.
 */
export function flushPlaceholders(): void {
  if (flushTimer) clearTimeout(flushTimer);
  flushTimer = undefined;
  const free = [...holders].filter(([, n]) => n === 0).map(([path]) => path);
  if (free.length === 0) return;
  const elsewhere = heldElsewhere();
  for (const path of free.sort((a, b) => b.length - a.length)) {
    // Kept on the list when it cannot go yet (another process holds it, or something is inside): tried again.
    if (!elsewhere.has(path) && removePlaceholder(path, fileContents.get(path))) {
      holders.delete(path);
      fileContents.delete(path);
    }
  }
  writeJournal();
}

/** Removes a placeholder: a file only while it holds exactly `content`, a folder only while empty. */
function removePlaceholder(path: string, content: string | undefined): boolean {
  if (content === undefined) return removeEmptyFolder(path);
  if (!holdsExactly(path, content)) return true; // Gone, or someone else's now: left.
  const parent = openFolder(dirname(path));
  if (parent === undefined) return true;
  try {
    unlinkSync(inside(parent, path.slice(dirname(path).length + 1)));
  } catch {
    // Already gone.
  } finally {
    closeSync(parent);
  }
  return true;
}

/**
 * Removes an empty folder at raw `path`, reached without following links; anything else is left. True when
 * nothing is there any more.
 */
function removeEmptyFolder(path: string): boolean {
  const parent = openFolder(dirname(path));
  if (parent === undefined) return true;
  try {
    rmdirSync(inside(parent, path.slice(dirname(path).length + 1)));
    return true;
  } catch (error) {
    // Already gone; or not empty (someone put something there: theirs now, or a placeholder inside is held).
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR";
  } finally {
    closeSync(parent);
  }
}

interface JournalFile {
  pid: number;
  /** The process's start time (from /proc), so a reused pid does not pass for it. */
  started: string;
  /** Raw paths, base64 (any bytes). */
  paths: string[];
  /** The placeholder files among `paths`: base64 path → what it holds. */
  files?: Record<string, string>;
}

/**
 * The folders from a writable place down to `path` that this command will hold (raw), shallowest first: those
 * that do not exist, and those another live process holds (`elsewhere`).
 */
function foldersToHold(path: string, places: readonly string[], elsewhere: ReadonlySet<string>): string[] {
  const place = places.find((p) => path.startsWith(`${p}/`));
  if (!place) return [];
  const names = path.slice(place.length + 1).split("/");
  const out: string[] = [];
  let missing = false;
  for (let i = 1; i <= names.length; i++) {
    const at = `${place}/${names.slice(0, i).join("/")}`;
    missing ||= lstatSync(bytesOf(at), { throwIfNoEntry: false }) === undefined;
    if (missing || elsewhere.has(at)) out.push(at);
  }
  return out;
}

function writeJournal(pending: readonly string[] = []): void {
  if (!journal) return;
  try {
    if (holders.size === 0 && pending.length === 0) {
      unlinkSync(journal);
      return;
    }
    mkdirSync(dirname(journal), { recursive: true, mode: 0o700 });
    const data: JournalFile = {
      pid: process.pid,
      started: processStartTime(process.pid) ?? "",
      paths: [...new Set([...holders.keys(), ...pending, ...fileContents.keys()])].map((p) =>
        bytesOf(p).toString("base64"),
      ),
      files: Object.fromEntries(
        [...fileContents].map(([path, content]) => [bytesOf(path).toString("base64"), content]),
      ),
    };
    const temp = `${journal}.tmp`;
    writeFileSync(temp, JSON.stringify(data));
    renameSync(temp, journal);
  } catch {
    // No journal (a read-only state folder): placeholders are still removed when commands end.
  }
}

/** Journals of other processes: `live` ones (still running) and the files of those that are gone. */
function journals(): { live: JournalFile[]; gone: string[] } {
  const out = { live: [] as JournalFile[], gone: [] as string[] };
  if (!journal) return out;
  const dir = dirname(journal);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^placeholders-\d+\.json$/.test(n));
  } catch {
    return out;
  }
  for (const name of names) {
    const file = join(dir, name);
    if (file === journal) continue;
    try {
      const data = JSON.parse(readFileSync(file, "utf8")) as JournalFile;
      if (processStartTime(data.pid) === data.started) out.live.push(data);
      else out.gone.push(file);
    } catch {
      // Being written by its process, or not ours: left alone.
    }
  }
  return out;
}

function heldElsewhere(): Set<string> {
  const held = new Set<string>();
  for (const data of journals().live) {
    for (const path of data.paths) held.add(Buffer.from(path, "base64").toString("latin1"));
  }
  return held;
}

/**
 * The placeholder files this process or another live one holds (or keeps lingering): raw path → content. A
 * survey treats one as a placeholder to hold, never as the person's file; the check after a command does not
 * count one as state a command left.
 */
export function heldPlaceholderFiles(): Map<string, string> {
  const files = new Map(fileContents);
  for (const data of journals().live) {
    for (const [path, content] of Object.entries(data.files ?? {})) {
      files.set(Buffer.from(path, "base64").toString("latin1"), content);
    }
  }
  return files;
}

/**
 * Removes the placeholders that processes killed before they could clean up left behind (from their journals
 * in `stateDir`), while still empty and not held by a live process. Returns how many were removed.
 */
export function cleanLeftPlaceholders(stateDir: string | undefined): number {
  useJournal(stateDir);
  const { gone } = journals();
  if (gone.length === 0) return 0;
  const held = new Set([...holders.keys(), ...heldElsewhere()]);
  let removed = 0;
  for (const file of gone) {
    try {
      const data = JSON.parse(readFileSync(file, "utf8")) as JournalFile;
      const paths = data.paths.map((p) => Buffer.from(p, "base64").toString("latin1"));
      for (const path of paths.sort((a, b) => b.length - a.length)) {
        if (held.has(path)) continue;
        removePlaceholder(path, data.files?.[bytesOf(path).toString("base64")]);
        if (lstatSync(bytesOf(path), { throwIfNoEntry: false }) === undefined) removed++;
      }
      unlinkSync(file);
      // A process killed while rewriting its journal leaves the half-written copy beside it.
      rmSync(`${file}.tmp`, { force: true });
    } catch {
      // Unreadable journal: left for a person to look at.
    }
  }
  return removed;
}
