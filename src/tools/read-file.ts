/**
 * @module tools/read-file
 * `read_file`: a file's text, whole, a 1-based inclusive line range, or its last lines (`tail`). Ranges are
 * found on the bytes (files/line-scan.ts): a range reads the file only up to its last line, a tail only
 * from the end, and only the kept lines are decoded. Detects and reports the encoding, describes binary
 * files instead of dumping them, and refuses whole-file reads over the size limit.
 */
import type { FileHandle } from "node:fs/promises";
import { resolve as resolvePath } from "node:path";
import type { Tool, ToolResult } from "../core/index.js";
import { defineTool, okResult, ToolFailure } from "../core/index.js";
import { countLines } from "../utils/index.js";
import {
  createDecoder,
  decodeText,
  detectEncoding,
  openForRead,
  type ResolvedPath,
  SNIFF_BYTES,
  tooLarge,
  type Workspace,
} from "../workspace/index.js";
import { containPaths, withPathErrors } from "./files/errors.js";
import { describeBinary, formatSize, plural } from "./files/format.js";
import { canScanBytes, decodeBytes, decodeRange, findLineRange, findTailStart } from "./files/line-scan.js";

/** Parameters of `read_file`. */
export interface ReadFileParams {
  path: string;
  startLine?: number;
  endLine?: number;
  /** Read the last N lines instead (not with startLine/endLine). */
  tail?: number;
}

/** What `read_file` needs. */
export interface ReadFileDeps {
  workspace: Workspace;
}

const CHUNK_BYTES = 64 * 1024;

/** Creates the `read_file` tool. */
export function createReadFileTool(deps: ReadFileDeps): Tool<ReadFileParams> {
  const { workspace } = deps;
  return defineTool<ReadFileParams>({
    name: "read_file",
    displayName: "Read File",
    description:
      "Reads a text file in the workspace. Optional startLine/endLine (1-based, inclusive) read a range; " +
      "tail reads the last N lines instead. A range or tail of a large file is read without loading the " +
      "whole file. Binary files are described, not shown. " +
      `Whole-file reads are limited to ${formatSize(workspace.maxFileBytes)}.`,
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "File path, relative to the workspace root or absolute." },
        startLine: { type: "integer", minimum: 1, description: "First line to read (1-based)." },
        endLine: { type: "integer", minimum: 1, description: "Last line to read (1-based, inclusive)." },
        tail: {
          type: "integer",
          minimum: 1,
          description:
            "Read the last N lines (a final line break does not start another line). Not with startLine/endLine.",
        },
      },
      required: ["path"],
      additionalProperties: false,
    },
    kind: "read",
    risk: "low",
    argKinds: { path: "path" },
    validate: ({ startLine, endLine, tail }) => {
      if (tail !== undefined && (startLine !== undefined || endLine !== undefined))
        return "tail reads the last lines; it cannot be combined with startLine or endLine";
      return startLine !== undefined && endLine !== undefined && startLine > endLine
        ? `startLine (${startLine}) must not be greater than endLine (${endLine})`
        : undefined;
    },
    describe: ({ path, startLine, endLine, tail }) =>
      tail !== undefined
        ? `Read the last ${plural(tail, "line")} of ${path}`
        : startLine || endLine
          ? `Read ${path} lines ${startLine ?? 1}–${endLine ?? "end"}`
          : `Read ${path}`,
    locations: ({ path }) => [resolvePath(workspace.roots[0] as string, path)],
    precheck: ({ path }) => containPaths(workspace, "read", [path]),
    // Secrets and keys are worth a confirmation; the policy decides what a higher risk means.
    riskFor: ({ path }) => (workspace.isReadSensitive(path) ? "medium" : "low"),
    run: ({ path, startLine, endLine, tail }, { signal }) =>
      withPathErrors(path, "read", async () => {
        const resolved = await workspace.resolve(path, "read");
        if (resolved.isDirectory) {
          throw new ToolFailure("invalid_params", `path "${path}" is a directory; use ls to list it`, {
            path,
          });
        }
        const handle = await openForRead(resolved);
        try {
          return await readOpened(workspace, resolved, handle, { startLine, endLine, tail }, signal);
        } finally {
          await handle.close();
        }
      }),
  });
}

async function readOpened(
  workspace: Workspace,
  resolved: ResolvedPath,
  handle: FileHandle,
  { startLine, endLine, tail }: Omit<ReadFileParams, "path">,
  signal: AbortSignal,
): Promise<ToolResult> {
  const display = workspace.displayPath(resolved.canonical);
  const { size } = await handle.stat();
  const head = Buffer.alloc(Math.min(size, SNIFF_BYTES));
  await handle.read(head, 0, head.length, 0);
  const detection = detectEncoding(head, size <= SNIFF_BYTES);
  if (detection.binary) {
    const what = describeBinary(head);
    const text = `${display} is a binary file (${what}, ${formatSize(size)}); its content is not shown.`;
    return okResult(text, text, { path: display, binary: true, type: what, size });
  }
  if (tail !== undefined) return readTail(workspace, resolved, handle, size, detection, tail, signal);
  const ranged = startLine !== undefined || endLine !== undefined;
  if (!ranged) {
    if (size > workspace.maxFileBytes) {
      throw tooLargeWithHint(resolved, size, workspace.maxFileBytes);
    }
    const decoded = decodeText(await handle.readFile(), detection);
    const lines = countLines(decoded.text);
    const summary = `Read ${display} (${plural(lines, "line")}, ${encodingLabel(decoded)}, ${decoded.eol.toUpperCase()})`;
    return okResult(decoded.text, summary, {
      path: display,
      encoding: decoded.encoding,
      bom: decoded.bom,
      lineEnding: decoded.eol,
      totalLines: lines,
      size,
    });
  }
  const first = startLine ?? 1;
  const range = canScanBytes(detection.encoding)
    ? await scanLines(handle, size, detection.encoding, first, endLine, workspace.maxFileBytes, signal)
    : await streamLines(handle, detection.encoding, first, endLine, workspace.maxFileBytes, signal);
  if (range.tooLarge) throw tooLargeWithHint(resolved, size, workspace.maxFileBytes);
  if (range.lastLine < first) {
    throw new ToolFailure(
      "invalid_params",
      `startLine ${first} is beyond the end of ${display} (${plural(range.totalLines ?? 0, "line")})`,
      { path: display },
    );
  }
  const summary = `Read ${display} lines ${first}–${range.lastLine} (${encodingLabel(detection)})`;
  return okResult(range.text, summary, {
    path: display,
    encoding: detection.encoding,
    bom: detection.bom,
    startLine: first,
    endLine: range.lastLine,
    ...(range.totalLines !== undefined ? { totalLines: range.totalLines } : {}),
    size,
  });
}

/** The last `count` lines, found by scanning backwards from the end. */
async function readTail(
  workspace: Workspace,
  resolved: ResolvedPath,
  handle: FileHandle,
  size: number,
  detection: { encoding: string; bom: boolean },
  count: number,
  signal: AbortSignal,
): Promise<ToolResult> {
  const display = workspace.displayPath(resolved.canonical);
  let text: string | undefined;
  if (canScanBytes(detection.encoding)) {
    const { start, bytes } = await findTailStart(handle, size, detection.encoding, count, signal);
    text = bytes
      ? decodeBytes(detection.encoding, bytes, workspace.maxFileBytes)
      : await decodeRange(handle, detection.encoding, start, size, workspace.maxFileBytes, signal);
  } else {
    // A stateful encoding decodes only from the start: read it all (within the limit), keep the end.
    const all = await streamLines(handle, detection.encoding, 1, undefined, workspace.maxFileBytes, signal);
    text = all.tooLarge ? undefined : lastLines(all.text, count);
  }
  if (text === undefined) throw tooLargeWithHint(resolved, size, workspace.maxFileBytes);
  const lines = countLines(text);
  const summary = `Read the last ${plural(lines, "line")} of ${display} (${encodingLabel(detection)})`;
  return okResult(text, summary, {
    path: display,
    encoding: detection.encoding,
    bom: detection.bom,
    tail: count,
    lines,
    size,
  });
}

/** The last `count` lines of a text (a final line break closes the last line). */
function lastLines(text: string, count: number): string {
  let end = text.endsWith("\n") ? text.length - 1 : text.length;
  for (let seen = 0; end > 0; seen++) {
    const newline = text.lastIndexOf("\n", end - 1);
    if (newline === -1) return text;
    if (seen + 1 === count) return text.slice(newline + 1);
    end = newline;
  }
  return text;
}

/** Lines `first..last` found on the bytes; only they are decoded. */
async function scanLines(
  handle: FileHandle,
  size: number,
  encoding: string,
  first: number,
  last: number | undefined,
  maxChars: number,
  signal: AbortSignal,
): Promise<RangeResult> {
  const range = await findLineRange(handle, size, encoding, first, last, signal);
  const text =
    range.lastLine < first
      ? ""
      : await decodeRange(handle, encoding, range.start, range.end, maxChars, signal);
  return {
    text: text ?? "",
    lastLine: range.lastLine,
    ...(range.totalLines !== undefined ? { totalLines: range.totalLines } : {}),
    tooLarge: text === undefined,
  };
}

function tooLargeWithHint(resolved: ResolvedPath, size: number, limit: number): ToolFailure {
  const base = tooLarge(resolved, size, limit);
  return new ToolFailure("file_too_large", `${base.message}; read a range with startLine and endLine`, {
    path: resolved.input,
    size,
    limit,
  });
}

function encodingLabel(info: { encoding: string; bom: boolean }): string {
  return info.bom ? `${info.encoding} with BOM` : info.encoding;
}

interface RangeResult {
  text: string;
  /** The last line returned (first - 1 when the range starts past the end). */
  lastLine: number;
  /** Known when the end of the file was reached. */
  totalLines?: number;
  tooLarge: boolean;
}

/**
 * Streams lines `first`..`last` (inclusive; `last` undefined = to the end) in 64 KB chunks, decoding as it
 * goes and stopping right after the last wanted line. Returned text keeps the file's own line endings.
 * Used for encodings whose lines cannot be found on the bytes (stateful ones); others use `scanLines`.
 */
async function streamLines(
  handle: FileHandle,
  encoding: string,
  first: number,
  last: number | undefined,
  maxChars: number,
  signal: AbortSignal,
): Promise<RangeResult> {
  const decoder = createDecoder(encoding);
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  const parts: string[] = [];
  let collected = 0;
  let line = 1;
  let position = 0;
  let lineHasText = false;
  const take = (text: string): boolean => {
    parts.push(text);
    collected += text.length;
    return collected > maxChars;
  };
  for (;;) {
    signal.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
    const text = bytesRead === 0 ? decoder.end() : decoder.write(buffer.subarray(0, bytesRead));
    position += bytesRead;
    let i = 0;
    while (i < text.length) {
      const newline = text.indexOf("\n", i);
      const end = newline === -1 ? text.length : newline + 1;
      if (line >= first && take(text.slice(i, end))) return { text: "", lastLine: line, tooLarge: true };
      lineHasText = newline === -1;
      i = end;
      if (newline !== -1) {
        if (last !== undefined && line >= last)
          return { text: parts.join(""), lastLine: line, tooLarge: false };
        line++;
      }
    }
    if (bytesRead === 0) break;
  }
  // End of file: `line` is the line after the last newline; it exists only if it holds text.
  const totalLines = lineHasText ? line : line - 1;
  return {
    text: parts.join(""),
    lastLine: Math.min(totalLines, last ?? totalLines),
    totalLines,
    tooLarge: false,
  };
}
