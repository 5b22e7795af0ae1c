/**
 * @module tools/files/grep-backends
 * The two engines behind `grep`: ripgrep (`@vscode/ripgrep`, pattern passed with `--regexp`, output read a
 * file at a time: `--heading --null`) and a pure-JS walker with the same file selection (gitignore, hidden,
 * symlinks, binary skip) and the same case rules, used when ripgrep is unavailable. Both return each file's
 * matching lines together, as bytes (ripgrep's are never decoded here), files unsorted.
 */
import { spawn } from "node:child_process";
import { readPlainFile } from "../../utils/index.js";
import type { IgnoreRules } from "../../workspace/index.js";
import { walkFiles } from "./walk.js";

/**
 * One file's matching lines, in line order: `body` holds a `N: text` line per match in UTF-8, each ending
 * with a line feed (a CR before it is the file's own line break: the formatter drops it).
 */
export interface FileMatches {
  /** Canonical and absolute. */
  file: string;
  count: number;
  body: Buffer;
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
  fileFilter?: (relative: string, absolute?: string) => boolean;
  /** Stop after this many matches (the result is then incomplete). */
  limit: number;
  signal: AbortSignal;
}

/** Matches found, a file at a time, and whether the search ran to the end. */
export interface GrepOutcome {
  files: FileMatches[];
  /** The matches of all files. */
  matches: number;
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
    // A file's matches under one `path NUL` heading, each line `N: text`, files apart by an empty line.
    "--heading",
    "--field-match-separator=: ",
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

/** The empty line after a file's lines in ripgrep's `--heading` output. */
const EMPTY_LINE = Buffer.from("\n\n");

/** Line feeds among the chunk's bytes `start..end`. */
function lineFeeds(chunk: Buffer, start: number, end: number): number {
  let n = 0;
  for (let i = chunk.indexOf(10, start); i !== -1 && i < end; i = chunk.indexOf(10, i + 1)) n++;
  return n;
}

/**
 * Parses ripgrep's `--heading --null` output (`path NUL`, then `N: text LF` per match, then an empty line)
 * from raw chunks a file at a time: the path is decoded and filtered once per file, and a kept file's lines
 * are decoded as one text, never split into strings line by line. A path holds any byte but NUL (a line feed
 * too), so the heading is read up to its NUL; a file's lines end at the first empty line after it. Lines are
 * counted as they arrive: at `limit` lines in all, the file so far is given and the parse stops, so a file
 * with millions of matching lines is never held whole.
 */
export class RipgrepOutputParser {
  /** The heading's bytes so far, while reading one; undefined while reading a file's lines. */
  private heading: Buffer[] | undefined = [];
  private file = "";
  private keep = false;
  /** The current file's lines so far (views of the chunks; ripgrep's chunks are never reused). */
  private pieces: Buffer[] = [];
  /** Whether the last byte read was a line feed (a file's lines end at LF LF, which chunks may split). */
  private afterNewline = false;
  /** The current file's complete lines, and whether a line is still unfinished (the last chunk cut it). */
  private count = 0;
  private unfinished = false;
  /** Lines given to `onFile` so far. */
  private given = 0;

  constructor(
    private readonly accept: (file: string) => boolean,
    /** Gets each kept file's lines (`N: text LF` each) and their count; false stops. */
    private readonly onFile: (file: string, body: Buffer, count: number) => boolean,
    /** The most lines given in all. */
    private readonly limit = Number.POSITIVE_INFINITY,
  ) {}

  /** Feeds a chunk; returns false once the parse stopped (`onFile` asked to, or the limit was reached). */
  write(chunk: Buffer): boolean {
    let pos = 0;
    while (pos < chunk.length) {
      if (this.heading !== undefined) {
        const nul = chunk.indexOf(0, pos);
        if (nul === -1) {
          this.heading.push(chunk.subarray(pos));
          return true;
        }
        this.heading.push(chunk.subarray(pos, nul));
        this.startFile(this.heading.length === 1 ? this.heading[0]! : Buffer.concat(this.heading));
        pos = nul + 1;
        continue;
      }
      // The empty line ending the file: LF LF, or an LF starting this chunk after one ending the last.
      if (this.afterNewline && chunk[pos] === 10) {
        pos += 1;
        if (!this.endFile()) return false;
        continue;
      }
      const end = chunk.indexOf(EMPTY_LINE, pos);
      if (end === -1) {
        this.afterNewline = chunk[chunk.length - 1] === 10;
        return this.take(chunk, pos, chunk.length);
      }
      if (!this.take(chunk, pos, end + 1)) return false;
      pos = end + 2;
      if (!this.endFile()) return false;
    }
    return true;
  }

  /** Ends the stream: the last file's lines need no empty line after them. */
  end(): void {
    if (this.heading === undefined) this.endFile();
  }

  private startFile(path: Buffer): void {
    this.file = path.toString("utf8");
    this.keep = this.accept(this.file);
    this.heading = undefined;
    this.pieces = [];
    this.afterNewline = false;
    this.count = 0;
    this.unfinished = false;
  }

  /** Takes bytes `start..end` of the current file's lines; false when the limit was reached (file given). */
  private take(chunk: Buffer, start: number, end: number): boolean {
    if (!this.keep) return true;
    const lines = lineFeeds(chunk, start, end);
    const room = this.limit - this.given - this.count;
    if (lines >= room) {
      // The limit falls in these bytes: the file so far ends with the line that reaches it.
      let at = start - 1;
      for (let i = 0; i < room; i++) at = chunk.indexOf(10, at + 1);
      this.pieces.push(chunk.subarray(start, at + 1));
      this.count += room;
      this.unfinished = false;
      this.endFile();
      return false;
    }
    this.count += lines;
    if (end > start) this.unfinished = chunk[end - 1] !== 10;
    this.pieces.push(chunk.subarray(start, end));
    return true;
  }

  private endFile(): boolean {
    const pieces = this.pieces;
    this.pieces = [];
    this.heading = [];
    this.afterNewline = false;
    if (!this.keep) return true;
    // The stream may end without the last line's line feed.
    if (this.unfinished) {
      this.count++;
      this.unfinished = false;
    }
    if (this.count === 0) return true;
    this.given += this.count;
    const body = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
    return this.onFile(this.file, body, this.count) && this.given < this.limit;
  }
}

/** Searches with ripgrep. Rejects with the message ripgrep printed when it fails (exit code 2, no matches). */
export function searchWithRipgrep(rgPath: string, query: GrepQuery): Promise<GrepOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, ripgrepArgs(query), {
      stdio: ["ignore", "pipe", "pipe"],
      signal: query.signal,
    });
    const files: FileMatches[] = [];
    let matches = 0;
    const prefix = query.targetIsDirectory ? query.target.length + 1 : undefined;
    const filter = query.fileFilter;
    let stderr = "";
    let stopped = false;
    // The filter runs once per file, never per match; the parser stops at the limit, within a file too.
    const parser = new RipgrepOutputParser(
      (file) =>
        !filter ||
        filter(prefix === undefined ? file.slice(file.lastIndexOf("/") + 1) : file.slice(prefix), file),
      (file, body, count) => {
        files.push({ file, count, body });
        matches += count;
        return true;
      },
      query.limit,
    );
    child.stdout.on("data", (chunk: Buffer) => {
      if (stopped || parser.write(chunk)) return;
      stopped = true;
      child.kill();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (!stopped) parser.end();
      if (code === 2 && matches === 0 && !stopped) {
        reject(new Error(stderr.trim() || "ripgrep failed"));
        return;
      }
      resolve({ files, matches, complete: !stopped, backend: "ripgrep" });
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
  const found: FileMatches[] = [];
  let matches = 0;
  let next = 0;
  let stopped = false;
  const worker = async () => {
    while (!stopped && next < files.length) {
      const file = files[next++] as string;
      query.signal.throwIfAborted();
      let bytes: Buffer;
      try {
        bytes = await readPlainFile(file, { maxBytes: Number.MAX_SAFE_INTEGER });
      } catch {
        continue; // unreadable files are skipped, as ripgrep does (a FIFO too: it would never end)
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
      // The lines as ripgrep prints them (`N: text`, a CR kept), so one formatter serves both engines.
      let body = "";
      let count = 0;
      for (let i = 0; i < lines.length && matches + count < query.limit; i++) {
        const line = lines[i] as string;
        if (!lineRe.test(line)) continue;
        body += `${i + 1}: ${line}\n`;
        count++;
      }
      if (count === 0) continue;
      found.push({ file, count, body: Buffer.from(body) });
      matches += count;
      if (matches >= query.limit) stopped = true;
    }
  };
  await Promise.all(Array.from({ length: READ_CONCURRENCY }, worker));
  return { files: found, matches, complete: !stopped, backend: "js" };
}
