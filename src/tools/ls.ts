/**
 * @module tools/ls
 * `ls`: a folder's entries as an indented listing (folders marked `/`, symlinks `@ -> target`, file sizes),
 * optionally recursive to a depth, skipping `.git` and what `.gitignore` ignores, capped with a note.
 */
import type { Dirent } from "node:fs";
import { lstat, readdir, readlink } from "node:fs/promises";
import { join, resolve as resolvePath } from "node:path";
import type { Tool } from "../core/index.js";
import { defineTool, okResult, ToolFailure } from "../core/index.js";
import type { IgnoreRules, Workspace } from "../workspace/index.js";
import { containPaths, withPathErrors } from "./files/errors.js";
import { formatSize, plural } from "./files/format.js";
import { comparePaths } from "./files/walk.js";

/** Parameters of `ls`. */
export interface LsParams {
  path?: string;
  recursive?: boolean;
  maxDepth?: number;
}

/** What `ls` needs. */
export interface LsDeps {
  workspace: Workspace;
  /** Most entries listed (default 500). */
  maxEntries?: number;
}

/** Default cap on listed entries. */
export const DEFAULT_LS_ENTRIES = 500;

interface Listing {
  lines: string[];
  entries: number;
  truncated: boolean;
}

async function describeEntry(dir: string, entry: Dirent): Promise<string> {
  const full = join(dir, entry.name);
  if (entry.isDirectory()) return `${entry.name}/`;
  if (entry.isSymbolicLink()) {
    const target = await readlink(full).catch(() => "?");
    return `${entry.name}@ -> ${target}`;
  }
  const info = await lstat(full).catch(() => undefined);
  return info ? `${entry.name}  ${formatSize(info.size)}` : entry.name;
}

async function list(
  dir: string,
  depth: number,
  maxDepth: number,
  rules: IgnoreRules,
  listing: Listing,
  cap: number,
  signal: AbortSignal,
): Promise<void> {
  signal.throwIfAborted();
  const entries = (await readdir(dir, { withFileTypes: true }))
    .filter((e) => e.name !== ".git" && !rules.isIgnored(join(dir, e.name), e.isDirectory()))
    .sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || comparePaths(a.name, b.name));
  const indent = "  ".repeat(depth - 1);
  for (const entry of entries) {
    if (listing.entries >= cap) {
      listing.truncated = true;
      return;
    }
    listing.lines.push(indent + (await describeEntry(dir, entry)));
    listing.entries++;
    // Symlinked folders are shown, never entered: their contents may be outside the workspace.
    if (entry.isDirectory() && depth < maxDepth) {
      await list(join(dir, entry.name), depth + 1, maxDepth, rules, listing, cap, signal);
    }
  }
}

/** Creates the `ls` tool. */
export function createLsTool(deps: LsDeps): Tool<LsParams> {
  const { workspace } = deps;
  const cap = deps.maxEntries ?? DEFAULT_LS_ENTRIES;
  return defineTool<LsParams>({
    name: "ls",
    displayName: "List Directory",
    description:
      "Lists a folder (default: the workspace root): folders end with /, symlinks with @, files show their " +
      "size. recursive lists subfolders, maxDepth limits how deep (1 = only this folder). Skips .git and " +
      `files ignored by .gitignore; at most ${cap} entries.`,
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "Folder to list (default: workspace root)." },
        recursive: { type: "boolean", description: "Include subfolder contents (default false)." },
        maxDepth: {
          type: "integer",
          minimum: 1,
          description: "Deepest level listed (1 = only this folder).",
        },
      },
      additionalProperties: false,
    },
    kind: "search",
    risk: "low",
    argKinds: { path: "path" },
    describe: ({ path, recursive }) => `List ${path ?? "."}${recursive ? " (recursive)" : ""}`,
    locations: ({ path }) => [resolvePath(workspace.roots[0] as string, path ?? ".")],
    precheck: ({ path }) => containPaths(workspace, "list", [path ?? "."]),
    run: ({ path, recursive, maxDepth }, { signal }) =>
      withPathErrors(path ?? ".", "list", async () => {
        const dir = await workspace.resolve(path ?? ".", "list");
        if (!dir.isDirectory) {
          throw new ToolFailure("invalid_params", `path "${path}" is not a directory`, { path: path ?? "." });
        }
        // maxDepth alone implies recursion to that depth; recursive alone means no limit.
        const depth = maxDepth ?? (recursive ? Number.POSITIVE_INFINITY : 1);
        const listing: Listing = { lines: [], entries: 0, truncated: false };
        await list(dir.canonical, 1, depth, workspace.ignoreRules(dir.root), listing, cap, signal);
        const where = workspace.displayPath(dir.canonical);
        const header = `${where === "." ? "./" : `${where}/`}`;
        const note = listing.truncated
          ? `\n(listing stopped at ${cap} entries; list a subfolder or lower maxDepth)`
          : "";
        const body = listing.lines.length === 0 ? "(empty)" : listing.lines.join("\n");
        const summary = `Listed ${plural(listing.entries, "entry", "entries")} in ${header}${listing.truncated ? " (truncated)" : ""}`;
        return okResult(`${header}\n${body}${note}`, summary, {
          entries: listing.entries,
          truncated: listing.truncated,
        });
      }),
  });
}
