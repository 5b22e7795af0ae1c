/**
 * @module tools/read-file
 * `read_file`: a file's text, whole or a 1-based inclusive line range (streamed, so a range of a huge file
 * reads only up to its last line). Detects and reports the encoding, describes binary files instead of
 * dumping them, and refuses whole-file reads over the size limit.
 */
import type { FileHandle } from "node:fs/promises";
import { resolve as resolvePath } from "node:path";
import type { Tool, ToolResult } from "../core/index.js";
import { defineTool, okResult, ToolFailure } from "../core/index.js";
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
import { withPathErrors } from "./files/errors.js";
import { describeBinary, formatSize, plural } from "./files/format.js";

/** Parameters of `read_file`. */
export interface ReadFileParams {
  path: string;
  startLine?: number;
  endLine?: number;
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
      "Reads a text file in the workspace. Optional startLine/endLine (1-based, inclusive) read a range; a " +
      "range of a large file is read without loading the whole file. Binary files are described, not shown. " +
      `Whole-file reads are limited to ${formatSize(workspace.maxFileBytes)}.`,
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "File path, relative to the workspace root or absolute." },
        startLine: { type: "integer", minimum: 1, description: "First line to read (1-based)." },
        endLine: { type: "integer", minimum: 1, description: "Last line to read (1-based, inclusive)." },
      },
      required: ["path"],
      additionalProperties: false,
    },
    kind: "read",
    risk: "low",
    argKinds: { path: "path" },
    check: ({ startLine, endLine }) =>
      startLine !== undefined && endLine !== undefined && startLine > endLine
        ? `startLine (${startLine}) must not be greater than endLine (${endLine})`
        : undefined,
    describe: ({ path, startLine, endLine }) =>
      startLine || endLine ? `Read ${path} lines ${startLine ?? 1}–${endLine ?? "end"}` : `Read ${path}`,
    locations: ({ path }) => [resolvePath(workspace.roots[0] as string, path)],
    // Secrets and keys are worth a confirmation; the policy decides what a higher risk means.
    riskFor: ({ path }) => (workspace.isReadSensitive(path) ? "medium" : "low"),
    run: ({ path, startLine, endLine }, { signal }) =>
      withPathErrors(path, "read", async () => {
        const resolved = await workspace.resolve(path, "read");
        if (resolved.isDirectory) {
          throw new ToolFailure("invalid_params", `path "${path}" is a directory; use ls to list it`, {
            path,
          });
        }
        const handle = await openForRead(resolved);
        try {
          return await readOpened(workspace, resolved, handle, startLine, endLine, signal);
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
  startLine: number | undefined,
  endLine: number | undefined,
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
  const range = await streamLines(handle, detection.encoding, first, endLine, workspace.maxFileBytes, signal);
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

/** Lines in a text: a final line without a newline counts; an empty text has none. */
function countLines(text: string): number {
  if (text === "") return 0;
  let count = 1;
  let index = text.indexOf("\n");
  while (index !== -1) {
    if (index < text.length - 1) count++;
    index = text.indexOf("\n", index + 1);
  }
  return count;
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
