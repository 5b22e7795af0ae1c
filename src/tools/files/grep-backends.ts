/**
 * @module tools/files/grep-backends
 * The two engines behind `grep`: ripgrep (`@vscode/ripgrep`, pattern passed with `--regexp`, output parsed
 * from `--null` lines) and a pure-JS walker with the same file selection (gitignore, hidden, symlinks, binary
 * skip) and the same case rules, used when ripgrep is unavailable. Both return unsorted matches.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import type { IgnoreRules } from "../../workspace/index.js";
import { walkFiles } from "./walk.js";

/** One matching line. `file` is canonical and absolute; `text` is the line without its line break. */
export interface GrepMatch {
  file: string;
  line: number;
  text: string;
}

/** What a backend searches. */
export interface GrepQuery {
  /** The pattern as the caller wrote it (given to ripgrep). */
  pattern: string;
  /** The same pattern compiled by JS (the fallback's engine; also how patterns are validated). */
  regex: RegExp;
  caseSensitive: boolean;
  includeHidden: boolean;
  /** Canonical file or folder to search. */
  target: string;
  targetIsDirectory: boolean;
  rules: IgnoreRules;
  /** Keeps a file (path relative to the target folder, or its name for a file target); applied by both. */
  fileFilter?: (relative: string) => boolean;
  /** Stop after this many matches (the result is then incomplete). */
  limit: number;
  signal: AbortSignal;
}

/** Matches found, and whether the search ran to the end. */
export interface GrepOutcome {
  matches: GrepMatch[];
  complete: boolean;
  backend: "ripgrep" | "js";
}

/** Arguments given to ripgrep for a query (exported so tests and benchmarks can inspect them). */
export function ripgrepArgs(
  query: Pick<GrepQuery, "pattern" | "caseSensitive" | "includeHidden" | "target">,
): string[] {
  const args = [
    "--no-config",
    "--null",
    "--line-number",
    "--with-filename",
    "--no-heading",
    "--color=never",
    // Same ignore sources as the JS walker: .gitignore files and .git/info/exclude, even outside a git repo.
    "--no-require-git",
    "--no-ignore-global",
    "--no-ignore-dot",
    "--engine=auto",
    query.caseSensitive ? "--case-sensitive" : "--ignore-case",
  ];
  if (query.includeHidden) args.push("--hidden", "--glob=!.git");
  args.push("--regexp", query.pattern, "--", query.target);
  return args;
}

/** Searches with ripgrep. Rejects with the message ripgrep printed when it fails (exit code 2, no matches). */
export function searchWithRipgrep(rgPath: string, query: GrepQuery): Promise<GrepOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, ripgrepArgs(query), {
      stdio: ["ignore", "pipe", "pipe"],
      signal: query.signal,
    });
    const matches: GrepMatch[] = [];
    const decoder = new StringDecoder("utf8");
    const prefix = query.targetIsDirectory ? query.target.length + 1 : undefined;
    let pending = "";
    let stderr = "";
    let stopped = false;
    const take = (line: string) => {
      const nul = line.indexOf("\0");
      if (nul === -1) return;
      const file = line.slice(0, nul);
      const colon = line.indexOf(":", nul + 1);
      if (colon === -1) return;
      if (query.fileFilter) {
        const relative = prefix === undefined ? file.slice(file.lastIndexOf("/") + 1) : file.slice(prefix);
        if (!query.fileFilter(relative)) return;
      }
      const text = line.endsWith("\r") ? line.slice(colon + 1, -1) : line.slice(colon + 1);
      matches.push({ file, line: Number(line.slice(nul + 1, colon)), text });
      if (matches.length >= query.limit && !stopped) {
        stopped = true;
        child.kill();
      }
    };
    child.stdout.on("data", (chunk: Buffer) => {
      if (stopped) return;
      const text = pending + decoder.write(chunk);
      let start = 0;
      let newline = text.indexOf("\n");
      while (newline !== -1 && !stopped) {
        take(text.slice(start, newline));
        start = newline + 1;
        newline = text.indexOf("\n", start);
      }
      pending = text.slice(start);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (!stopped && pending) take(pending);
      if (code === 2 && matches.length === 0 && !stopped) {
        reject(new Error(stderr.trim() || "ripgrep failed"));
        return;
      }
      resolve({ matches, complete: !stopped, backend: "ripgrep" });
    });
  });
}

/** Decodes a file the way ripgrep does by default: UTF-8/UTF-16 BOMs honoured and removed, else UTF-8. */
function decodeForSearch(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes);
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.toString("utf8", 3);
  return bytes.toString("utf8");
}

const READ_CONCURRENCY = 16;

/** Searches with JS RegExp over the same files ripgrep would search. */
export async function searchWithJs(query: GrepQuery): Promise<GrepOutcome> {
  const files = query.targetIsDirectory
    ? await walkFiles(query.target, {
        rules: query.rules,
        includeHidden: query.includeHidden,
        ...(query.fileFilter ? { accept: query.fileFilter } : {}),
        signal: query.signal,
      })
    : query.fileFilter && !query.fileFilter(query.target.slice(query.target.lastIndexOf("/") + 1))
      ? []
      : [query.target];
  const lineRe = new RegExp(query.regex.source, query.regex.flags.replace(/[gmy]/g, ""));
  // A whole-file test first skips files without a match; it can only over-approximate the per-line test,
  // except with lookbehind, where a previous line could change the answer.
  const fileRe = query.regex.source.includes("(?<")
    ? undefined
    : new RegExp(lineRe.source, `${lineRe.flags}m`);
  // A case-sensitive plain literal can skip files on their bytes, before any decoding.
  const literal =
    query.caseSensitive && !/[\\^$.|?*+()[\]{}]/.test(query.pattern)
      ? Buffer.from(query.pattern, "utf8")
      : undefined;
  const matches: GrepMatch[] = [];
  let next = 0;
  let stopped = false;
  const worker = async () => {
    while (!stopped && next < files.length) {
      const file = files[next++] as string;
      query.signal.throwIfAborted();
      let bytes: Buffer;
      try {
        bytes = await readFile(file);
      } catch {
        continue; // unreadable files are skipped, as ripgrep does
      }
      if (
        bytes.length >= 2 &&
        ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
      ) {
        // BOM-marked UTF-16 is text even though it holds NUL bytes.
      } else if (bytes.indexOf(0) !== -1) {
        continue; // binary
      } else if (literal && bytes.indexOf(literal) === -1) {
        continue;
      }
      const text = decodeForSearch(bytes);
      if (fileRe && !fileRe.test(text)) continue;
      const lines = text.split("\n");
      if (lines[lines.length - 1] === "") lines.pop();
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i] as string;
        if (!lineRe.test(line)) continue;
        matches.push({ file, line: i + 1, text: line.endsWith("\r") ? line.slice(0, -1) : line });
        if (matches.length >= query.limit) {
          stopped = true;
          break;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: READ_CONCURRENCY }, worker));
  return { matches, complete: !stopped, backend: "js" };
}
