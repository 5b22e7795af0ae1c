/**
 * @module workspace/trusted-files
 * The files of a workspace that trust covers (`trusted-files.json`: toolgate's own `.toolgate/` files, every
 * host's MCP file, agents; hooks once they exist), finding them in a root, and whether all of them are trusted
 * with their present content (`gate.workspaceTrusted`).
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { readPlainFile } from "../utils/index.js";
import type { TrustLookup } from "./trust.js";
import LIST from "./trusted-files.json" with { type: "json" };

/** One kind of file trust covers (`trusted-files.json`). */
export interface TrustedFileSpec {
  /** Relative to the workspace root; `*` is any name in that one folder. */
  readonly path: string;
  /** How `toolgate trust` describes it: `policy`, `config`, `agent`, `mcp`. */
  readonly kinds: readonly string[];
}

/** Every file trust covers, in the order `toolgate trust` shows them. */
export const TRUSTED_FILES: readonly TrustedFileSpec[] = Object.freeze(
  LIST.files.map((f) => Object.freeze({ path: f.path, kinds: Object.freeze([...f.kinds]) })),
);

/**
 * The files of `root` that trust covers and that exist, relative (`/`-separated), in the list's order.
 * @example await trustedFilesOf("/p") // [".toolgate/policy.toml", ".mcp.json"]
 */
export async function trustedFilesOf(root: string): Promise<{ path: string; kinds: readonly string[] }[]> {
  const found = await Promise.all(
    TRUSTED_FILES.map(async (spec) => {
      const slash = spec.path.lastIndexOf("/");
      const dir = slash < 0 ? "" : spec.path.slice(0, slash);
      const name = spec.path.slice(slash + 1);
      // A literal name is one stat (a project root can hold thousands of entries); a pattern lists its folder.
      if (!name.includes("*")) {
        const info = await stat(join(root, spec.path)).catch(() => undefined);
        // Anything but a folder is listed: a FIFO or device by that name is shown by the review (never trusted).
        return info && !info.isDirectory() ? [{ path: spec.path, kinds: spec.kinds }] : [];
      }
      const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(() => []);
      return entries
        .filter((e) => (e.isFile() || e.isSymbolicLink()) && nameMatches(name, e.name))
        .map((e) => e.name)
        .sort()
        .map((n) => ({ path: dir === "" ? n : `${dir}/${n}`, kinds: spec.kinds }));
    }),
  );
  return found.flat();
}

/**
 * Whether `trust` holds every file of `root` (canonical) that trust covers, each with its present content:
 * what `gate.workspaceTrusted` says. False at once when no trusted folder holds `root`.
 * @example await everyFileTrusted("/p", trustLookup()) // false after a `git pull` changed .mcp.json
 */
export async function everyFileTrusted(root: string, trust: TrustLookup): Promise<boolean> {
  if (!trust.covers(root)) return false;
  const answers = await Promise.all(
    (await trustedFilesOf(root)).map(async ({ path }) => {
      const file = join(root, path);
      let bytes: Buffer;
      try {
        bytes = await readPlainFile(file);
      } catch (error) {
        // Not there: nothing to trust. There but not read (a FIFO, a device): not trusted.
        return (error as NodeJS.ErrnoException).code !== "ENOTPLAIN";
      }
      return trust.file(file, bytes).state === "trusted";
    }),
  );
  return answers.every(Boolean);
}

/**
 * The kinds of the file at `path` (relative to a workspace root, `/`-separated) when trust covers it.
 * @example trustedFileKinds(".toolgate/agents/helper.md") // ["agent"]
 */
export function trustedFileKinds(path: string): readonly string[] | undefined {
  const slash = path.lastIndexOf("/");
  for (const spec of TRUSTED_FILES) {
    const at = spec.path.lastIndexOf("/");
    if (spec.path.slice(0, at + 1) !== path.slice(0, slash + 1)) continue;
    if (nameMatches(spec.path.slice(at + 1), path.slice(slash + 1))) return spec.kinds;
  }
  return undefined;
}

/** `name` against a list entry's last component: literal, or one `*` standing for any run of characters. */
function nameMatches(pattern: string, name: string): boolean {
  const star = pattern.indexOf("*");
  if (star < 0) return pattern === name;
  const head = pattern.slice(0, star);
  const tail = pattern.slice(star + 1);
  return name.length >= head.length + tail.length && name.startsWith(head) && name.endsWith(tail);
}
