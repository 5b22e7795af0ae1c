/**
 * @module tools/grep
 * `grep`: lines matching a regular expression, as `path:line: text`, sorted by path and line. Runs ripgrep
 * when available and a pure-JS search otherwise; both search the same files (gitignore respected, hidden
 * files and binaries skipped, symlinks not followed) with the same case rules.
 */
import { stat } from "node:fs/promises";
import { basename, resolve as resolvePath } from "node:path";
import type { Tool } from "../core/index.js";
import { defineTool, okResult, ToolFailure } from "../core/index.js";
import { compileGlob } from "../utils/index.js";
import type { Workspace } from "../workspace/index.js";
import { containPaths, withPathErrors } from "./files/errors.js";
import { plural } from "./files/format.js";
import {
  type FileMatches,
  type GrepOutcome,
  type GrepQuery,
  searchWithJs,
  searchWithRipgrep,
} from "./files/grep-backends.js";
import { joinShownParts, type ShownPart } from "./files/prefix-lines.js";
import { comparePaths } from "./files/walk.js";

/** Parameters of `grep`. */
export interface GrepParams {
  pattern: string;
  path?: string;
  caseSensitive?: boolean;
  filePattern?: string;
  maxMatches?: number;
  includeHidden?: boolean;
}

/** What `grep` needs. */
export interface GrepDeps {
  workspace: Workspace;
  /** Path of the ripgrep binary; `null` forces the JS search; undefined finds `@vscode/ripgrep`'s. */
  ripgrepPath?: string | null;
  /** How long one search may take (default 60 s). */
  timeoutMs?: number;
}

/** Default cap on listed matches. */
export const DEFAULT_GREP_MATCHES = 500;
/** Matches collected (then sorted) before a search is stopped; above it the result set is incomplete. */
const COLLECT_LIMIT = 20_000;
/** Longest line text shown per match. */
const MAX_LINE_CHARS = 500;

let bundledRipgrep: Promise<string | null> | undefined;

/** The path of `@vscode/ripgrep`'s binary, or null when the package or its platform binary is missing. */
export function findBundledRipgrep(): Promise<string | null> {
  bundledRipgrep ??= import("@vscode/ripgrep").then(
    (m: { rgPath: string }) => m.rgPath,
    () => null,
  );
  return bundledRipgrep;
}

/**
 * Compiles the pattern with JS RegExp (Unicode mode when it accepts the pattern). Patterns JS cannot compile
 * are refused for both engines, so the fallback never meets a pattern ripgrep alone accepted.
 */
export function compileGrepPattern(pattern: string, caseSensitive: boolean): RegExp {
  const flags = caseSensitive ? "" : "i";
  try {
    return new RegExp(pattern, `${flags}u`);
  } catch {
    try {
      return new RegExp(pattern, flags);
    } catch (error) {
      throw new ToolFailure(
        "invalid_params",
        `invalid regular expression "${pattern}": ${(error as Error).message}`,
      );
    }
  }
}

/** filePattern semantics: without `/` it matches file names; with `/`, paths relative to the search folder. */
export function fileFilterFor(filePattern: string): (relative: string) => boolean {
  let matcher: (value: string) => boolean;
  try {
    matcher = compileGlob(filePattern.replace(/^\/+/, ""));
  } catch (error) {
    throw new ToolFailure("invalid_params", `filePattern: ${(error as Error).message}`, { filePattern });
  }
  return filePattern.includes("/")
    ? (relative) => matcher(relative)
    : (relative) => matcher(basename(relative));
}

/** Creates the `grep` tool. */
export function createGrepTool(deps: GrepDeps): Tool<GrepParams> {
  const { workspace } = deps;
  const timeoutMs = deps.timeoutMs ?? 60_000;
  const search = async (query: GrepQuery): Promise<GrepOutcome> => {
    const rg = deps.ripgrepPath === undefined ? await findBundledRipgrep() : deps.ripgrepPath;
    if (rg) {
      try {
        return await searchWithRipgrep(rg, query);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        // The binary vanished or cannot run here: fall back to the JS search.
      }
    }
    return searchWithJs(query);
  };
  return defineTool<GrepParams>({
    name: "grep",
    displayName: "Search Text",
    description:
      "Searches file contents for a regular expression and returns matching lines as `path:line: text`, " +
      "sorted. Case-insensitive unless caseSensitive is true. filePattern limits the files (`*.ts` matches " +
      "names, `src/**/*.ts` paths). Skips files ignored by .gitignore, hidden files (unless includeHidden) " +
      "and binary files.",
    parameters: {
      type: "object",
      properties: {
        pattern: { type: "string", minLength: 1, description: "Regular expression to search for." },
        path: { type: "string", description: "File or folder to search (default: workspace root)." },
        caseSensitive: { type: "boolean", description: "Match case exactly (default false)." },
        filePattern: { type: "string", description: "Glob limiting which files are searched." },
        maxMatches: {
          type: "integer",
          minimum: 1,
          description: `Most lines returned (default ${DEFAULT_GREP_MATCHES}).`,
        },
        includeHidden: {
          type: "boolean",
          description: "Search hidden files and folders too (default false).",
        },
      },
      required: ["pattern"],
      additionalProperties: false,
    },
    kind: "search",
    risk: "low",
    argKinds: { path: "path" },
    validate: ({ pattern, caseSensitive }) => {
      try {
        compileGrepPattern(pattern, caseSensitive === true);
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    },
    describe: ({ pattern, path }) => `Search /${pattern}/${path ? ` in ${path}` : ""}`,
    locations: ({ path }) => [resolvePath(workspace.roots[0] as string, path ?? ".")],
    precheck: ({ path }) => containPaths(workspace, "read", [path ?? "."]),
    run: (params, { signal }) =>
      withPathErrors(params.path ?? ".", "search", async () => {
        const target = await workspace.resolve(params.path ?? ".", "read");
        // A FIFO or device named as the file to search would block the search forever.
        if (!target.isDirectory && !(await stat(target.canonical)).isFile()) {
          throw new ToolFailure("invalid_params", `path "${params.path}" is not a regular file`, {
            path: params.path,
          });
        }
        const caseSensitive = params.caseSensitive === true;
        const maxMatches = params.maxMatches ?? DEFAULT_GREP_MATCHES;
        const query: GrepQuery = {
          pattern: params.pattern,
          regex: compileGrepPattern(params.pattern, caseSensitive),
          caseSensitive,
          includeHidden: params.includeHidden === true,
          target: target.canonical,
          targetIsDirectory: target.isDirectory,
          rules: workspace.ignoreRules(target.root),
          limit: Math.max(maxMatches, COLLECT_LIMIT),
          // A search that never ends (a huge tree, or a hostile repo's .gitignore that is a FIFO, which
          // ripgrep would read) is stopped after a time limit.
          signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
          fileFilter: searchableFiles(workspace, target, params.filePattern),
        };
        const started = performance.now();
        let outcome: GrepOutcome;
        try {
          outcome = await search(query);
        } catch (error) {
          if (signal.aborted) throw error;
          if (query.signal.aborted) {
            const elapsedMs = Math.round(performance.now() - started);
            throw new ToolFailure(
              "timeout",
              `grep timed out after ${elapsedMs} ms; narrow the path or filePattern`,
              {
                elapsedMs,
              },
            );
          }
          throw new ToolFailure(
            "invalid_params",
            `grep could not run pattern "${params.pattern}": ${(error as Error).message}`,
          );
        }
        return formatOutcome(workspace, params, outcome, maxMatches, target.canonical);
      }),
  });
}

/**
 * Which files a search reads: those `filePattern` keeps, and — when searching a folder — never a file that may
 * hold secrets (.env, keys): naming such a file as `path` is a read the policy sees (and asks about).
 */
function searchableFiles(
  workspace: Workspace,
  target: { canonical: string; isDirectory: boolean },
  filePattern: string | undefined,
): (relative: string, absolute?: string) => boolean {
  const byPattern = filePattern ? fileFilterFor(filePattern) : () => true;
  if (!target.isDirectory) return byPattern;
  // ripgrep gives the absolute path it printed (the folder joined with the relative one): not joined again.
  return (relative, absolute = resolvePath(target.canonical, relative)) =>
    byPattern(relative) && !workspace.isReadSensitive(absolute);
}

/**
 * Files by path. Both engines give each file once with its lines in order; a file met twice is still
 * placed right, its lines merged in line order.
 */
export function sortFiles(files: readonly FileMatches[]): FileMatches[] {
  const sorted = [...files].sort((a, b) => comparePaths(a.file, b.file));
  const merged: FileMatches[] = [];
  for (const f of sorted) {
    const last = merged.at(-1);
    if (last?.file === f.file) merged[merged.length - 1] = mergeLines(last, f);
    else merged.push(f);
  }
  return merged;
}

function mergeLines(a: FileMatches, b: FileMatches): FileMatches {
  const lines = `${a.body.toString("utf8")}${b.body.toString("utf8")}`.split("\n").filter((l) => l !== "");
  lines.sort((x, y) => Number.parseInt(x, 10) - Number.parseInt(y, 10));
  return {
    file: a.file,
    count: a.count + b.count,
    body: Buffer.from(`${lines.join("\n")}\n`),
  };
}

/** The first `count` lines of `body` (each ending with a line feed). */
function firstLines(body: Buffer, count: number): Buffer {
  let at = -1;
  for (let i = 0; i < count; i++) {
    at = body.indexOf(10, at + 1);
    if (at === -1) return body;
  }
  return body.subarray(0, at + 1);
}

function formatOutcome(
  workspace: Workspace,
  params: GrepParams,
  outcome: GrepOutcome,
  cap: number,
  target: string,
) {
  const files = sortFiles(outcome.files);
  const where = workspace.displayPath(target);
  const total = outcome.matches;
  if (total === 0) {
    const text = `No matches for /${params.pattern}/ in ${where}`;
    return okResult(text, text, { matches: 0, backend: outcome.backend });
  }
  const shown: ShownPart[] = [];
  let left = cap;
  for (const f of files) {
    if (left === 0) break;
    const count = Math.min(f.count, left);
    const body = count === f.count ? f.body : firstLines(f.body, count);
    shown.push({ prefix: `${workspace.displayPath(f.file)}:`, lines: body, count });
    left -= count;
  }
  const notes: string[] = [];
  if (!outcome.complete) {
    notes.push(`(search stopped after ${total} matches; narrow the pattern, path or filePattern)`);
  }
  if (total > cap) {
    notes.push(`(${total - cap} more matches not shown; limit ${cap}, set maxMatches to see more)`);
  }
  const summary = `Found ${plural(total, "match", "matches")}${outcome.complete ? "" : "+"} in ${plural(files.length, "file")} for /${params.pattern}/ in ${where}`;
  const lines = joinShownParts(shown, MAX_LINE_CHARS).slice(0, -1);
  return okResult(notes.length === 0 ? lines : `${lines}\n${notes.join("\n")}`, summary, {
    matches: total,
    files: files.length,
    complete: outcome.complete,
    backend: outcome.backend,
  });
}
