/**
 * @module workspace/trust
 * The trust list: which files of which folders the user trusts, bound to their content. Files that arrive with
 * a repository (`trusted-files.ts`: `.toolgate/` files, every host's MCP file, agents) count in full only
 * while their bytes are the ones `toolgate trust` recorded: a changed file, or one that appeared after, is
 * untrusted until trusted again. The list lives in the user's configuration
 * (`$XDG_CONFIG_HOME/toolgate/trusted.json`, else `~/.config/toolgate/trusted.json`), never in a workspace.
 */
import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, posix, relative, sep } from "node:path";
import { isPlainObject, readPlainFileSync } from "../utils/index.js";
import { writeFileAtomic } from "./atomic-write.js";
import { isInsideOrEqual } from "./paths.js";

/** One file as it was trusted. */
export interface TrustedFile {
  /** sha256 of the bytes trusted (hex). */
  sha256: string;
  /**
   * What the file said when it was trusted, by kind (`policy`, `mcp`, …): `toolgate trust` compares the file
   * now with it to show what changed. Opaque to the list.
   */
  facts?: Record<string, unknown>;
}

/** One trusted folder. */
export interface TrustedFolder {
  /** Canonical absolute path. */
  path: string;
  /** When it was first trusted (ISO 8601). */
  since: string;
  /**
   * The files trusted, by path relative to `path` (`/`-separated). Absent in a record of the first trust
   * list (version 1, no digests): it trusts no file until the folder is trusted again.
   */
  files?: Record<string, TrustedFile>;
  /**
   * `"any"`: every file in the folder and below counts, whatever its content, now and later — what trust meant
   * before it was bound to content. toolgate never writes it; a person (or a test harness) may.
   */
  content?: "any";
}

/** Where the list is kept. */
export interface TrustStoreLocation {
  env?: Readonly<Record<string, string | undefined>>;
  homeDir?: string;
}

/**
 * The trust list's file: `$XDG_CONFIG_HOME/toolgate/trusted.json` when that variable holds an absolute path,
 * else `~/.config/toolgate/trusted.json`.
 * @example trustStorePath({ env: { XDG_CONFIG_HOME: "/x" } }) // "/x/toolgate/trusted.json"
 */
export function trustStorePath(where: TrustStoreLocation = {}): string {
  const env = where.env ?? process.env;
  const xdg = env["XDG_CONFIG_HOME"];
  const base = xdg && isAbsolute(xdg) ? xdg : join(where.homeDir ?? homedir(), ".config");
  return join(base, "toolgate", "trusted.json");
}

const SHA256 = /^[0-9a-f]{64}$/;

/** A relative `/`-separated path that stays inside its folder. */
function isFileKey(key: string): boolean {
  return (
    key !== "" && !key.startsWith("/") && !key.split("/").some((p) => p === "" || p === "." || p === "..")
  );
}

function validFiles(files: unknown): boolean {
  if (!isPlainObject(files)) return false;
  return Object.entries(files).every(
    ([key, f]) =>
      isFileKey(key) &&
      isPlainObject(f) &&
      typeof f.sha256 === "string" &&
      SHA256.test(f.sha256) &&
      (f.facts === undefined || isPlainObject(f.facts)),
  );
}

function validFolder(e: unknown): e is TrustedFolder {
  return (
    isPlainObject(e) &&
    typeof e.path === "string" &&
    isAbsolute(e.path) &&
    typeof e.since === "string" &&
    (e.files === undefined || validFiles(e.files)) &&
    (e.content === undefined || e.content === "any")
  );
}

/**
 * Reads the trusted folders (version 1 records have no `files`). No file: none. A file that is not a valid
 * list throws (the caller reports it): a broken list trusts nothing rather than everything.
 */
export function readTrustedFolders(file: string = trustStorePath()): TrustedFolder[] {
  let text: string;
  try {
    text = readPlainFileSync(file).toString("utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new Error(`${file}: cannot read the trusted folders (${(error as Error).message})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not valid JSON (${(error as Error).message})`);
  }
  const version = (data as { version?: unknown })?.version;
  const list = (data as { trusted?: unknown })?.trusted;
  if ((version !== 1 && version !== 2) || !Array.isArray(list) || !list.every(validFolder)) {
    throw new Error(
      `${file}: expected {"version":2,"trusted":[{"path","since","files":{"<file>":{"sha256"}}}]}`,
    );
  }
  return list as TrustedFolder[];
}

/** Writes the list (version 2, sorted by path) atomically, readable by the user only. */
export async function writeTrustedFolders(
  folders: readonly TrustedFolder[],
  file: string = trustStorePath(),
): Promise<void> {
  const sorted = [...folders].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const text = `${JSON.stringify({ version: 2, trusted: sorted }, null, 2)}\n`;
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, text, { mode: 0o600 });
}

/** The digest trust records: sha256 of the bytes, hex. */
export function contentDigest(bytes: string | Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * How one file counts: `trusted` (its bytes are the ones trusted, or its folder trusts any content),
 * `changed` (trusted with other bytes), `new` (its folder was trusted without it), `no-digest` (its folder was
 * trusted by a version of toolgate that recorded no digests), `not-trusted` (no trusted folder holds it).
 */
export type FileTrustState = "trusted" | "changed" | "new" | "no-digest" | "not-trusted";

/** The answer for one file. */
export interface FileTrust {
  state: FileTrustState;
  /** The trusted folder that answered. */
  folder?: string;
  /** Why nothing is trusted at all (a broken list). */
  detail?: string;
  /** For `changed`: what was trusted. */
  recorded?: TrustedFile;
}

// When several folders hold a file and none trusts it, the answer that says most wins.
const INFORMATIVE: Readonly<Record<FileTrustState, number>> = {
  trusted: 4,
  changed: 3,
  new: 2,
  "no-digest": 1,
  "not-trusted": 0,
};

/** The key of `file` in the record of `folder`. */
export function fileKey(folder: string, file: string): string {
  return relative(folder, file).split(sep).join(posix.sep);
}

/**
 * How `file` (absolute, under a canonical root) counts, given the bytes that were read from it.
 * @example fileTrust(readTrustedFolders(), "/p/.mcp.json", bytes).state // "trusted" | "changed" | ...
 */
export function fileTrust(folders: readonly TrustedFolder[], file: string, content: FileContent): FileTrust {
  let best: FileTrust = { state: "not-trusted" };
  let digest: string | undefined;
  for (const folder of folders) {
    if (!isInsideOrEqual(folder.path, file)) continue;
    let answer: FileTrust;
    if (folder.content === "any") return { state: "trusted", folder: folder.path };
    if (folder.files === undefined) answer = { state: "no-digest", folder: folder.path };
    else {
      const recorded = folder.files[fileKey(folder.path, file)];
      digest ??= typeof content === "object" && "sha256" in content ? content.sha256 : contentDigest(content);
      if (recorded?.sha256 === digest) return { state: "trusted", folder: folder.path };
      answer = recorded
        ? { state: "changed", folder: folder.path, recorded }
        : { state: "new", folder: folder.path };
    }
    if (INFORMATIVE[answer.state] > INFORMATIVE[best.state]) best = answer;
  }
  return best;
}

/** Why a file does not count in full, to follow its name in a warning (`.mcp.json changed since …`). */
export function untrustedBecause(trust: FileTrust): string {
  switch (trust.state) {
    case "changed":
      return `changed since ${trust.folder} was trusted`;
    case "new":
      return `appeared after ${trust.folder} was trusted`;
    case "no-digest":
      return `is in ${trust.folder}, trusted by an older toolgate that recorded no digest of its files`;
    default:
      return trust.detail ? `is not trusted (${trust.detail})` : "is not trusted";
  }
}

/**
 * Why a file does not count in full, or undefined when it does: for an answer that is the list's, or a
 * host's plain yes or no.
 * @example untrustedReason(false) // "is not trusted"
 */
export function untrustedReason(answer: boolean | FileTrust): string | undefined {
  if (typeof answer === "boolean") return answer ? undefined : "is not trusted";
  return answer.state === "trusted" ? undefined : untrustedBecause(answer);
}

/** What a file's content is given as: its bytes, or their digest when only that is at hand. */
export type FileContent = string | Uint8Array | { sha256: string };

/** Answers for files from the list as it was read. */
export interface TrustLookup {
  /** How `file` (absolute, under a canonical root) counts with this content. */
  file(file: string, content: FileContent): FileTrust;
  /** Whether a folder of the list trusts content at `dir` (see {@link folderTrusted}). */
  covers(dir: string): boolean;
}

/**
 * Reads the list once and answers for files; a list that cannot be read trusts nothing (and says why).
 * @example const trust = trustLookup(); trust.file("/p/.toolgate/policy.toml", text).state
 */
export function trustLookup(file: string = trustStorePath()): TrustLookup {
  let folders: TrustedFolder[];
  try {
    folders = readTrustedFolders(file);
  } catch (error) {
    const detail = (error as Error).message;
    return { file: () => ({ state: "not-trusted", detail }), covers: () => false };
  }
  return {
    file: (path, content) => fileTrust(folders, path, content),
    covers: (dir) => folderTrusted(folders, dir),
  };
}

/** A lookup that gives one answer for every file: a host's explicit `trustWorkspace: true | false`. */
export function fixedTrust(trusted: boolean): TrustLookup {
  return {
    file: () => ({ state: trusted ? "trusted" : "not-trusted" }),
    covers: () => trusted,
  };
}

/** True when some folder of the list trusts content at `dir` (a record with digests, or `content: "any"`). */
export function folderTrusted(folders: readonly TrustedFolder[], dir: string): boolean {
  return folders.some((f) => (f.files !== undefined || f.content === "any") && isInsideOrEqual(f.path, dir));
}
