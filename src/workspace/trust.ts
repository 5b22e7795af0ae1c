/**
 * @module workspace/trust
 * Which folders the user trusts: files that arrive with a repository (`.toolgate/policy.toml`,
 * `.toolgate/config.toml`, `.mcp.json`) count only in a trusted folder. The list lives in the user's
 * configuration (`$XDG_CONFIG_HOME/toolgate/trusted.json`, else `~/.config/toolgate/trusted.json`), never in
 * a workspace; a trusted folder covers the folders below it. Written atomically.
 */
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { writeFileAtomic } from "./atomic-write.js";
import { isInsideOrEqual } from "./paths.js";

/** One trusted folder. */
export interface TrustedFolder {
  /** Canonical absolute path. */
  path: string;
  /** When it was trusted (ISO 8601). */
  since: string;
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

/**
 * Reads the trusted folders. No file: none. A file that is not a valid list throws (the caller reports it):
 * a broken list trusts nothing rather than everything.
 */
export function readTrustedFolders(file: string = trustStorePath()): TrustedFolder[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
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
  const list = (data as { trusted?: unknown })?.trusted;
  if (
    !Array.isArray(list) ||
    !list.every(
      (e) =>
        typeof e === "object" &&
        e !== null &&
        typeof e.path === "string" &&
        isAbsolute(e.path) &&
        typeof e.since === "string",
    )
  ) {
    throw new Error(`${file}: expected {"version":1,"trusted":[{"path","since"}]}`);
  }
  return list as TrustedFolder[];
}

/** True when `dir` (canonical) is a trusted folder or inside one. */
export function isTrustedFolder(dir: string, folders: readonly TrustedFolder[]): boolean {
  return folders.some((f) => isInsideOrEqual(f.path, dir));
}

/**
 * True when the list at `file` trusts `dir`; a broken list trusts nothing.
 * @example isTrusted("/home/u/project") // false until `toolgate trust /home/u/project`
 */
export function isTrusted(dir: string, file: string = trustStorePath()): boolean {
  try {
    return isTrustedFolder(resolve(dir), readTrustedFolders(file));
  } catch {
    return false;
  }
}

async function write(file: string, folders: readonly TrustedFolder[]): Promise<void> {
  const sorted = [...folders].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const text = `${JSON.stringify({ version: 1, trusted: sorted }, null, 2)}\n`;
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, text, { mode: 0o600 });
}

/** Adds `dir` (canonical) to the list; returns the new list. Already trusted: unchanged. */
export async function trustFolder(dir: string, file: string = trustStorePath()): Promise<TrustedFolder[]> {
  const folders = readTrustedFolders(file);
  if (folders.some((f) => f.path === dir)) return folders;
  const next = [...folders, { path: dir, since: new Date().toISOString() }];
  await write(file, next);
  return readTrustedFolders(file);
}

/** Removes `dir` from the list; returns the new list and whether it was there. */
export async function untrustFolder(
  dir: string,
  file: string = trustStorePath(),
): Promise<{ folders: TrustedFolder[]; removed: boolean }> {
  const folders = readTrustedFolders(file);
  const next = folders.filter((f) => f.path !== dir);
  if (next.length === folders.length) return { folders, removed: false };
  await write(file, next);
  return { folders: readTrustedFolders(file), removed: true };
}
