/**
 * @module tools/glob
 * `glob`: files whose path (relative to the search folder) matches a glob, sorted, skipping what git ignores
 * (`.gitignore` at every level, `.git/info/exclude`) and, unless asked, hidden files. fdir walks, picomatch
 * matches, the workspace's ignore rules prune.
 */
import { realpath } from "node:fs/promises";
import { join, resolve as resolvePath } from "node:path";
import type { Tool } from "../core/index.js";
import { defineTool, okResult, ToolFailure } from "../core/index.js";
import { compileGlob, globBase } from "../utils/index.js";
import type { Workspace } from "../workspace/index.js";
import { containPaths, withPathErrors } from "./files/errors.js";
import { plural } from "./files/format.js";
import { comparePaths, walkFiles } from "./files/walk.js";

/** Parameters of `glob`. */
export interface GlobParams {
  pattern: string;
  path?: string;
  maxResults?: number;
  includeHidden?: boolean;
}

/** What `glob` needs. */
export interface GlobDeps {
  workspace: Workspace;
}

/** Default cap on listed paths. */
export const DEFAULT_GLOB_RESULTS = 1000;

/** Refuses patterns that could name paths outside the search folder. */
export function globPatternProblem(pattern: string): string | undefined {
  if (pattern.includes("\0")) return "pattern contains a NUL byte";
  if (pattern.startsWith("/")) return "pattern must be relative to the search folder (use path to choose it)";
  if (pattern.split("/").includes("..")) return 'pattern must not contain ".." segments';
  return undefined;
}

/**
 * Finds files matching `pattern` under a folder; returns canonical absolute paths, sorted, and the total
 * count before the cap.
 */
export async function globFiles(
  workspace: Workspace,
  dir: { canonical: string; root: string },
  pattern: string,
  options: { includeHidden: boolean; signal?: AbortSignal },
): Promise<string[]> {
  let matcher: (value: string) => boolean;
  try {
    matcher = compileGlob(pattern, { dot: options.includeHidden });
  } catch (error) {
    throw new ToolFailure("invalid_params", `pattern: ${(error as Error).message}`, { pattern });
  }
  // Walk only below the pattern's fixed leading folders (`src/lib/**/*.ts` starts in src/lib).
  const scan = globBase(pattern);
  // Start there only when it is a real folder with no symlink on the way: fdir enters a symlinked start
  // folder, which may lead out of the roots (every other symlink is left out by the walk).
  let baseDir = "";
  if (scan.isGlob && scan.base) {
    const candidate = join(dir.canonical, scan.base);
    if ((await realpath(candidate).catch(() => undefined)) === candidate) baseDir = scan.base;
  }
  const start = baseDir ? join(dir.canonical, baseDir) : dir.canonical;
  const prefix = baseDir ? `${baseDir}/` : "";
  // Without `**` the pattern's segment count bounds how deep a match can be.
  const depth = pattern.includes("**")
    ? undefined
    : pattern.split("/").length - (baseDir ? baseDir.split("/").length : 0);
  const files = await walkFiles(start, {
    rules: workspace.ignoreRules(dir.root),
    includeHidden: options.includeHidden,
    accept: (relative) => matcher(prefix + relative),
    ...(depth !== undefined ? { maxDepth: depth } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return files.sort(comparePaths);
}

/** Creates the `glob` tool. */
export function createGlobTool(deps: GlobDeps): Tool<GlobParams> {
  const { workspace } = deps;
  return defineTool<GlobParams>({
    name: "glob",
    displayName: "Find Files",
    description:
      "Finds files by glob pattern (e.g. `**/*.ts`, `src/**/test_*.py`), relative to path (default: the " +
      "workspace root). Results are sorted by path; files ignored by .gitignore and hidden files are skipped " +
      "unless includeHidden is true.",
    parameters: {
      type: "object",
      properties: {
        pattern: { type: "string", minLength: 1, description: "Glob pattern, relative to path." },
        path: { type: "string", description: "Folder to search in (default: workspace root)." },
        maxResults: {
          type: "integer",
          minimum: 1,
          description: `Most paths to return (default ${DEFAULT_GLOB_RESULTS}).`,
        },
        includeHidden: {
          type: "boolean",
          description: "Include files and folders starting with a dot (default false).",
        },
      },
      required: ["pattern"],
      additionalProperties: false,
    },
    kind: "search",
    risk: "low",
    argKinds: { path: "path" },
    validate: ({ pattern }) => globPatternProblem(pattern),
    describe: ({ pattern, path }) => `Find ${pattern}${path ? ` in ${path}` : ""}`,
    locations: ({ path }) => [resolvePath(workspace.roots[0] as string, path ?? ".")],
    precheck: ({ path }) => containPaths(workspace, "list", [path ?? "."]),
    run: ({ pattern, path, maxResults, includeHidden }, { signal }) =>
      withPathErrors(path ?? ".", "search", async () => {
        const dir = await workspace.resolve(path ?? ".", "list");
        if (!dir.isDirectory) {
          throw new ToolFailure("invalid_params", `path "${path}" is not a directory`, { path: path ?? "." });
        }
        const files = await globFiles(workspace, dir, pattern, {
          includeHidden: includeHidden === true,
          signal,
        });
        const where = workspace.displayPath(dir.canonical);
        if (files.length === 0) {
          const text = `No files match "${pattern}" in ${where}`;
          return okResult(text, text, { files: [], total: 0 });
        }
        const cap = maxResults ?? DEFAULT_GLOB_RESULTS;
        const shown = files.slice(0, cap).map((f) => workspace.displayPath(f));
        const note =
          files.length > cap
            ? `\n(${files.length - cap} more not shown; limit ${cap}, set maxResults or narrow the pattern)`
            : "";
        const summary = `Found ${plural(files.length, "file")} matching "${pattern}" in ${where}`;
        return okResult(`${shown.join("\n")}${note}`, summary, { files: shown, total: files.length });
      }),
  });
}
