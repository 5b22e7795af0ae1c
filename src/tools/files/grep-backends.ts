/**
 * @module tools/files/grep-backends
 * The two engines behind `grep`: ripgrep (`@vscode/ripgrep`, pattern passed with `--regexp`, output parsed
 * from `--null` lines) and a pure-JS walker with the same file selection (gitignore, hidden, symlinks, binary
 * skip) and the same case rules, used when ripgrep is unavailable. Both return unsorted matches.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
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

/**
 * Parses ripgrep's `--null` output (`path NUL line:text LF`) from raw chunks without splitting it into
 * strings line by line: ripgrep prints a file's matches together, so the path is decoded, filtered and
 * interned once per file, and only kept match texts are decoded. A line split across chunks is carried over.
 */
export class RipgrepOutputParser {
  private carry: Buffer | undefined;
  private filePath: Buffer | undefined;
  private file = "";
  private keep = false;

  constructor(
    private readonly accept: (file: string) => boolean,
    private readonly onMatch: (file: string, line: number, text: string) => boolean,
  ) {}

  /** Feeds a chunk; returns false once `onMatch` asked to stop. */
  write(chunk: Buffer): boolean {
    let start = 0;
    if (this.carry) {
      // Only the carried-over line is joined with the new chunk's first line, never the whole chunk.
      const first = chunk.indexOf(10);
      if (first === -1) {
        this.carry = Buffer.concat([this.carry, chunk]);
        return true;
      }
      const joined = Buffer.concat([this.carry, chunk.subarray(0, first)]);
      this.carry = undefined;
      if (!this.line(joined, 0, joined.length)) return false;
      start = first + 1;
    }
    for (let end = chunk.indexOf(10, start); end !== -1; end = chunk.indexOf(10, start)) {
      if (!this.line(chunk, start, end)) return false;
      start = end + 1;
    }
    if (start < chunk.length) this.carry = Buffer.from(chunk.subarray(start));
    return true;
  }

  /** Ends the stream: a last line without a line break still counts. */
  end(): void {
    const rest = this.carry;
    this.carry = undefined;
    if (rest) this.line(rest, 0, rest.length);
  }

  private line(buf: Buffer, start: number, end: number): boolean {
    const nul = buf.indexOf(0, start);
    if (nul === -1 || nul >= end) return true;
    // Same file as the line before: compared in place (no slice, nothing allocated per line).
    const known = this.filePath;
    if (
      known === undefined ||
      known.length !== nul - start ||
      buf.compare(known, 0, known.length, start, nul) !== 0
    ) {
      this.filePath = Buffer.from(buf.subarray(start, nul));
      this.file = buf.toString("utf8", start, nul);
      this.keep = this.accept(this.file);
    }
    if (!this.keep) return true;
    let line = 0;
    let i = nul + 1;
    for (; i < end; i++) {
      const c = buf[i] as number;
      if (c < 48 || c > 57) break;
      line = line * 10 + (c - 48);
    }
    if (i === nul + 1 || i >= end || buf[i] !== 58) return true; // not `digits:`
    const textEnd = buf[end - 1] === 13 ? end - 1 : end;
    return this.onMatch(this.file, line, buf.toString("utf8", i + 1, Math.max(i + 1, textEnd)));
  }
}

/** Searches with ripgrep. Rejects with the message ripgrep printed when it fails (exit code 2, no matches). */
export function searchWithRipgrep(rgPath: string, query: GrepQuery): Promise<GrepOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, ripgrepArgs(query), {
      stdio: ["ignore", "pipe", "pipe"],
      signal: query.signal,
    });
    const matches: GrepMatch[] = [];
    const prefix = query.targetIsDirectory ? query.target.length + 1 : undefined;
    const filter = query.fileFilter;
    let stderr = "";
    let stopped = false;
    // The filter runs once per file (ripgrep prints a file's matches together), never per match.
    const parser = new RipgrepOutputParser(
      (file) =>
        !filter || filter(prefix === undefined ? file.slice(file.lastIndexOf("/") + 1) : file.slice(prefix)),
      (file, line, text) => {
        matches.push({ file, line, text });
        if (matches.length < query.limit) return true;
        stopped = true;
        child.kill();
        return false;
      },
    );
    child.stdout.on("data", (chunk: Buffer) => {
      if (!stopped) parser.write(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (!stopped) parser.end();
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
