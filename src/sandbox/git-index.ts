/**
 * @module sandbox/git-index
 * Which secret-looking files git tracks unchanged. Such a file's content is in the repository's history, which
 * a command reads anyway (`git show HEAD:.env.example`), so hiding it protects nothing — and breaks git inside
 * the sandbox (a tracked file that turned into a device makes `git add -A` and `commit -a` fail). Read from the
 * index file itself (format 2–4), never by running git on the host (a repository's config runs code).
 */
import { type BigIntStats, lstatSync } from "node:fs";
import { bytesOf, readInsideSync } from "./descriptors.js";

/** The stat data git recorded for a path. */
interface IndexStat {
  mtimeS: number;
  mtimeNs: number;
  ino: number;
  size: number;
}

/**
 * An index larger than this is not read (its secrets stay hidden): a repository of a million files has one of
 * about 100 MiB. A command can make `.git/index` any size (a sparse file costs nothing), and every later
 * survey would read it whole.
 */
const MAX_INDEX_BYTES = 256 * 1024 * 1024;
/** The smallest index entry (SHA-1, a one-byte name and its NUL), to check an index's size against its count. */
const MIN_ENTRY_BYTES = 64;
/** The longest entry name kept: a longer path cannot be checked out (PATH_MAX), so no git reaches it either. */
const MAX_NAME_BYTES = 4096;
/**
 * What the names of one index may add up to, per byte of the file (at least 1 MiB). Format 4 cuts each name
 * from the one before, so a small hand-written index can spell names that add up to gigabytes (and kill the
 * check that reads it: red team 2026-11-27e, G7); real indexes stay far below this.
 */
const NAME_BYTES_PER_FILE_BYTE = 16;
/** The mode git records for a gitlink: a submodule or an embedded repository. */
const GITLINK = 0o160000;

/**
 * What an index says: its unchanged-looking entries with their stat data, its gitlinks (mode 160000), and for
 * a split index (`git update-index --split-index`) the hash naming the shared index that holds the other entries.
 */
interface IndexRead {
  entries: Map<string, IndexStat>;
  /** Every path the index records (any stage; not gitlinks), whatever its time. */
  names: Set<string>;
  gitlinks: string[];
  shared?: string;
}

const cache = new Map<string, { key: string; read: IndexRead }>();

/**
 * Why an index is not read, from its stat and its first 12 bytes (undefined: read it): not `DIRC` version 2–4,
 * larger than the limit, mostly holes (a sparse file), or smaller than its entry count needs.
 */
export function indexRefusal(size: number, blocks: number, head: Buffer): string | undefined {
  if (size > MAX_INDEX_BYTES) return `larger than ${MAX_INDEX_BYTES} bytes`;
  if (head.length < 12 || head.toString("latin1", 0, 4) !== "DIRC") return "not a git index";
  const version = head.readUInt32BE(4);
  if (version < 2 || version > 4) return `index version ${version} unknown`;
  if (blocks * 512 < size / 2) return "mostly holes (a sparse file)";
  if (head.readUInt32BE(8) * MIN_ENTRY_BYTES > size) return "holds fewer bytes than its entry count";
  return undefined;
}

/**
 * Raw paths (relative to the worktree) of an index, with their recorded stat data; undefined when the index
 * is missing, unreadable, refused by {@link indexRefusal} or in a format this reader does not know (then
 * nothing counts as tracked: every secret-named file stays hidden). Read through folder descriptors, never
 * following a link; only the header is read before the size and kind are judged.
 * Entries git would re-read anyway (their time not before the index's own) are left out.
 */
function readIndex(indexPath: string, hashBytes: number): IndexRead | undefined {
  let stat: BigIntStats;
  let head: Buffer;
  try {
    stat = lstatSync(bytesOf(indexPath), { bigint: true });
    if (!stat.isFile()) return undefined;
    head = readInsideSync(indexPath, 12, { head: true });
  } catch {
    return undefined;
  }
  // The change time too: a command can rewrite the index in place and set its mtime back (`touch -d`).
  const key = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${hashBytes}`;
  const indexTime = Number(stat.mtimeNs / 1_000_000_000n);
  const known = cache.get(indexPath);
  if (known?.key === key) return known.read;
  if (indexRefusal(Number(stat.size), Number(stat.blocks), head) !== undefined) return undefined;
  let data: Buffer;
  try {
    data = readInsideSync(indexPath, MAX_INDEX_BYTES);
  } catch {
    return undefined;
  }
  const read = parse(data, hashBytes, indexTime);
  if (read) cache.set(indexPath, { key, read });
  return read;
}

function parse(data: Buffer, hashBytes: number, indexTime: number): IndexRead | undefined {
  if (data.length < 12 || data.toString("latin1", 0, 4) !== "DIRC") return undefined;
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = data.readUInt32BE(8);
  const entries = new Map<string, IndexStat>();
  const names = new Set<string>();
  const gitlinks: string[] = [];
  let at = 12;
  let previous = "";
  let nameBytes = 0;
  const nameBudget = Math.max(1 << 20, NAME_BYTES_PER_FILE_BYTE * data.length);
  for (let i = 0; i < count; i++) {
    const start = at;
    if (at + 42 + hashBytes > data.length) return undefined;
    const stat: IndexStat = {
      mtimeS: data.readUInt32BE(at + 8),
      mtimeNs: data.readUInt32BE(at + 12),
      ino: data.readUInt32BE(at + 20),
      size: data.readUInt32BE(at + 36),
    };
    const mode = data.readUInt32BE(at + 24);
    at += 40 + hashBytes;
    const flags = data.readUInt16BE(at);
    at += 2;
    if (flags & 0x4000) at += 2; // Extended flags (version 3 and later).
    let name: string;
    if (version === 4) {
      // The name is the previous one cut by a varint and a suffix ending in NUL; no padding.
      let strip = 0;
      let byte: number;
      do {
        byte = data[at++] ?? 0;
        strip = (strip << 7) | (byte & 0x7f);
        if (byte & 0x80) strip++;
      } while (byte & 0x80);
      const end = data.indexOf(0, at);
      if (end < 0 || strip > previous.length) return undefined;
      // Counted before the name is built: past the budget the index is not read (fail closed).
      nameBytes += previous.length - strip + (end - at);
      if (nameBytes > nameBudget) return undefined;
      name = previous.slice(0, previous.length - strip) + data.toString("latin1", at, end);
      at = end + 1;
    } else {
      const end = data.indexOf(0, at);
      if (end < 0) return undefined;
      nameBytes += end - at;
      if (nameBytes > nameBudget) return undefined;
      name = data.toString("latin1", at, end);
      // Entries are padded with NULs to a multiple of 8 bytes (at least one).
      at = start + ((end - start + 8) & ~7);
    }
    previous = name;
    // Longer than any path git can check out or reach: not kept (the next name may still build on it).
    if (name.length > MAX_NAME_BYTES) continue;
    const stage = (flags >> 12) & 3;
    if ((mode & 0o170000) === GITLINK) gitlinks.push(name);
    else {
      names.add(name);
      if (stage === 0 && stat.mtimeS < indexTime) entries.set(name, stat);
    }
  }
  const shared = extensions(data, at, hashBytes);
  if (shared === false) return undefined;
  return { entries, names, gitlinks, ...(shared ? { shared } : {}) };
}

/**
 * The extensions after the entries: the shared index a `link` extension names (hex; undefined when none), or
 * false when an extension git requires a reader to understand (a lowercase name: `sdir`, a sparse index's
 * folder entries, or one this reader does not know) is there — entries may hide in it (fail closed).
 */
function extensions(data: Buffer, from: number, hashBytes: number): string | undefined | false {
  let at = from;
  let shared: string | undefined;
  while (at + 8 <= data.length - hashBytes) {
    const name = data.toString("latin1", at, at + 4);
    const size = data.readUInt32BE(at + 4);
    if (name === "link") {
      if (size < hashBytes) return false;
      const hex = data.toString("hex", at + 8, at + 8 + hashBytes);
      if (!/^0+$/.test(hex)) shared = hex;
    } else if (name[0]! >= "a" && name[0]! <= "z") return false;
    at += 8 + size;
  }
  return shared;
}

/**
 * The files among `paths` (raw, relative to `worktree`) that git tracks and that still have the size, time
 * and inode git recorded — unchanged since they were last staged.
 * @param gitDir the worktree's git folder (its `index`, and its config's object format)
 */
export function trackedUnchanged(worktree: string, gitDir: string, paths: readonly string[]): Set<string> {
  const out = new Set<string>();
  if (paths.length === 0) return out;
  const entries = readIndex(`${gitDir}/index`, hashBytesOf(gitDir))?.entries;
  if (!entries) return out;
  for (const path of paths) {
    const recorded = entries.get(path);
    if (!recorded) continue;
    try {
      const stat = lstatSync(bytesOf(`${worktree}/${path}`), { bigint: true });
      const sameTime =
        Number(stat.mtimeNs / 1_000_000_000n) === recorded.mtimeS &&
        Number(stat.mtimeNs % 1_000_000_000n) === recorded.mtimeNs;
      const sameSize = Number(stat.size & 0xffffffffn) === recorded.size;
      const sameInode = Number(stat.ino & 0xffffffffn) === recorded.ino;
      if (stat.isFile() && sameTime && sameSize && sameInode) out.add(path);
    } catch {
      // Gone: nothing to show or hide.
    }
  }
  return out;
}

/**
 * The raw paths (relative to the worktree) the index records as gitlinks — submodules and embedded
 * repositories, whose own config git on the host reads on `status` — or undefined when the index exists and
 * is not read ({@link indexRefusal}, an unknown format, a link): the caller cannot tell which there are.
 */
export function indexGitlinks(gitDir: string): string[] | undefined {
  const path = `${gitDir}/index`;
  if (lstatSync(bytesOf(path), { throwIfNoEntry: false }) === undefined) return [];
  const hashBytes = hashBytesOf(gitDir);
  const read = readIndex(path, hashBytes);
  if (!read?.shared) return read?.gitlinks;
  // A split index: the shared one holds the entries not changed since it was written. Its gitlinks count
  // even where the split index deletes them (judging one more repository is safe).
  const shared = readIndex(`${gitDir}/sharedindex.${read.shared}`, hashBytes);
  return shared && [...read.gitlinks, ...shared.gitlinks];
}

/**
 * Every path (raw, relative to the worktree) the index of `gitDir` records, a split index's shared part
 * included; undefined when the index exists and is not read (then which paths git tracks is unknown).
 */
export function indexedPaths(gitDir: string): Set<string> | undefined {
  const path = `${gitDir}/index`;
  if (lstatSync(bytesOf(path), { throwIfNoEntry: false }) === undefined) return new Set();
  const hashBytes = hashBytesOf(gitDir);
  const read = readIndex(path, hashBytes);
  if (!read?.shared) return read?.names;
  const shared = readIndex(`${gitDir}/sharedindex.${read.shared}`, hashBytes);
  return shared && new Set([...read.names, ...shared.names]);
}

/** 32 for a SHA-256 repository (its config says so), else 20. */
function hashBytesOf(gitDir: string): number {
  try {
    const config = readInsideSync(`${gitDir}/config`, 1024 * 1024).toString("latin1");
    return /objectformat\s*=\s*sha256/i.test(config) ? 32 : 20;
  } catch {
    return 20; // No config: SHA-1.
  }
}
