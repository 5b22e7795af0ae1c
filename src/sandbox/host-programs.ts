/**
 * @module sandbox/host-programs
 * The one place toolgate finds the programs it runs itself on the host (bwrap — the sandbox —, git for the
 * config copies, socat and nsenter for network grants, bash for the check): never through a folder a command
 * can write. toolgate's PATH often holds workspace folders (`npx`/npm scripts put `node_modules/.bin` first, an
 * activated virtual environment `.venv/bin`, direnv `PATH_add`): a `bwrap` planted there by one command would be
 * run unsandboxed by the next (issue 26, red team I5). So a PATH folder counts only when it is absolute, lies
 * outside every place a sandboxed command may write (the roots, `[sandbox] writable`, toolgate's start folder),
 * and neither it, the program, nor any folder above them is writable by group or others (but for a sticky
 * folder such as /tmp, where only an entry's owner may replace it) or owned by anyone but root or this user —
 * sudo's `secure_path` way of thinking. PATH's other folders are passed over, never searched in their place.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { isInsideOrEqual } from "../workspace/index.js";

/** The PATH given to programs toolgate runs on the host (git), and where its check's bash is found. */
export const SYSTEM_FOLDERS = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

/** A PATH for programs toolgate runs on the host (git): system folders only. */
export const SYSTEM_PATH = SYSTEM_FOLDERS.join(delimiter);

/** Places no host program may come from (canonical): added by each sandbox set-up (its roots, writable paths). */
const distrusted = new Set<string>();
const found = new Map<string, string | undefined>();

/**
 * Adds places a sandboxed command may write: no host program is taken from inside them from now on.
 * @example distrustHostPlaces(["/home/u/project"])
 */
export function distrustHostPlaces(paths: readonly string[]): void {
  let added = false;
  for (const path of paths) {
    const real = canonical(path) ?? path;
    if (!distrusted.has(real)) {
      distrusted.add(real);
      added = true;
    }
  }
  if (added) found.clear();
}

/**
 * The absolute path of `name` from a trusted folder of `path` (default PATH), or undefined (the caller
 * says what is missing). Looked up once per process (again after {@link distrustHostPlaces} adds a place).
 * @example hostProgram("bwrap") // "/usr/bin/bwrap" — never "/ws/node_modules/.bin/bwrap"
 */
export function hostProgram(name: string, path = process.env.PATH ?? ""): string | undefined {
  const key = `${name}\0${path}`;
  if (found.has(key)) return found.get(key);
  let result: string | undefined;
  for (const dir of path.split(delimiter)) {
    const candidate = trustedProgram(dir, name);
    if (candidate) {
      result = candidate;
      break;
    }
  }
  found.set(key, result);
  return result;
}

/**
 * Why a PATH folder is not trusted for host programs, or undefined when it is (also `toolgate doctor`'s words).
 * @example untrustedWhy("node_modules/.bin") // "not an absolute path"
 */
export function untrustedWhy(dir: string): string | undefined {
  if (!isAbsolute(dir)) return "not an absolute path";
  const real = canonical(dir);
  if (real === undefined) return "does not exist";
  const start = canonical(process.cwd());
  const places = [...distrusted, ...(start && start !== "/" ? [start] : [])];
  for (const place of places)
    if (isInsideOrEqual(place, real)) return `inside ${place}, which sandboxed commands may write`;
  return writableChain(real);
}

function trustedProgram(dir: string, name: string): string | undefined {
  if (untrustedWhy(dir) !== undefined) return undefined;
  const real = canonical(join(dir, name));
  if (real === undefined) return undefined;
  // The program itself (a link may lead elsewhere: judged where it leads).
  if (untrustedWhy(dirname(real)) !== undefined) return undefined;
  try {
    const s = statSync(real);
    if (!s.isFile() || (s.mode & 0o111) === 0 || !ownedSafely(s)) return undefined;
  } catch {
    return undefined;
  }
  return real;
}

/** The first folder from `real` up to `/` that others could write, in words; undefined when none. */
function writableChain(real: string): string | undefined {
  for (let dir = real; ; dir = dirname(dir)) {
    try {
      const s = statSync(dir);
      if (!ownedSafely(s) && !(s.isDirectory() && s.mode & 0o1000 && dir !== real))
        return `${dir} is writable by others than root and this user`;
    } catch {
      return `${dir} cannot be read`;
    }
    if (dir === "/") return undefined;
  }
}

/**
 * Owned by root or this user — or, inside a user namespace, by an owner outside it (shown as the overflow uid:
 * the system's files when toolgate runs as a namespace's mapped root; nothing inside can make such a file) —
 * and not writable by group or others.
 */
function ownedSafely(s: { uid: number; mode: number }): boolean {
  const uid = process.getuid?.() ?? 0;
  const owner = s.uid === 0 || s.uid === uid || (s.uid === outsideOwner() && outsideOwner() !== undefined);
  return owner && (s.mode & 0o022) === 0;
}

let outside: number | undefined | null = null;
/** The overflow uid when this process runs in a user namespace other than the first; otherwise none. */
function outsideOwner(): number | undefined {
  if (outside !== null) return outside;
  try {
    const map = readFileSync("/proc/self/uid_map", "utf8").trim();
    outside = /^0\s+0\s+4294967295$/.test(map)
      ? undefined
      : Number(readFileSync("/proc/sys/kernel/overflowuid", "utf8").trim());
  } catch {
    outside = undefined;
  }
  return outside;
}

function canonical(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
