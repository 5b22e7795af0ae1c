/**
 * @module tools/files/text-io
 * Shared by write_file and edit_file: reading a file's text together with how it was stored (encoding, BOM,
 * line endings), writing new text back the same way, and the unified diff shown when a person confirms.
 */
import { createTwoFilesPatch } from "diff";
import { ToolFailure } from "../../core/index.js";
import {
  type DecodedText,
  decodeText,
  detectEncoding,
  encodeText,
  type ResolvedPath,
  readChecked,
  type Workspace,
  withLineEnding,
  writeChecked,
} from "../../workspace/index.js";

/** The largest file write_file/edit_file will rewrite (they hold old and new text in memory). */
const MAX_EDIT_BYTES = 64 * 1024 * 1024;

/**
 * A file's current text and how it is stored; undefined when the file does not exist (or is binary, with
 * `binary: "ignore"`; by default a binary file is an `edit_failed` error).
 */
export async function loadText(
  workspace: Workspace,
  resolved: ResolvedPath,
  options: { binary?: "fail" | "ignore" } = {},
): Promise<DecodedText | undefined> {
  if (!resolved.exists) return undefined;
  const bytes = await readChecked(resolved, Math.max(workspace.maxFileBytes, MAX_EDIT_BYTES));
  const detection = detectEncoding(bytes);
  if (detection.binary) {
    if (options.binary === "ignore") return undefined;
    throw new ToolFailure(
      "edit_failed",
      `file "${resolved.input}" is binary; file tools only edit text files`,
      { path: resolved.input },
    );
  }
  return decodeText(bytes, detection);
}

/** What {@link saveText} did. */
export interface SaveOutcome {
  created: boolean;
  bytes: number;
  encoding: string;
  bom: boolean;
  eol: "lf" | "crlf";
  /** Set when the text could not be stored in the file's encoding and was written as UTF-8. */
  encodingChanged?: string;
}

/**
 * Writes `text` (LF or the file's own line endings) to a checked path, in the previous file's encoding, BOM
 * and line endings when there was one, else as UTF-8 with the text's own line endings.
 */
export async function saveText(
  resolved: ResolvedPath,
  text: string,
  previous: DecodedText | undefined,
  overwrite: boolean,
): Promise<SaveOutcome> {
  const eol = previous?.eol ?? "lf";
  const body = previous ? withLineEnding(text, eol) : text;
  const wanted = previous ?? { encoding: "utf-8", bom: false };
  const encoded = encodeText(body, wanted);
  const { created } = await writeChecked(resolved, encoded.bytes, { overwrite });
  const outcome: SaveOutcome = {
    created,
    bytes: encoded.bytes.length,
    encoding: encoded.encoding,
    bom: encoded.bom,
    eol,
  };
  if (encoded.encoding !== wanted.encoding) outcome.encodingChanged = wanted.encoding;
  return outcome;
}

/** A unified diff between two versions of a file, for confirmation. */
export function unifiedDiff(displayPath: string, before: string, after: string): string {
  return createTwoFilesPatch(`a/${displayPath}`, `b/${displayPath}`, before, after, undefined, undefined, {
    context: 3,
  });
}

/** A short description of how a file was stored, for results. */
export function storageLabel(outcome: Pick<SaveOutcome, "encoding" | "bom" | "eol">): string {
  return `${outcome.encoding}${outcome.bom ? " with BOM" : ""}, ${outcome.eol.toUpperCase()}`;
}
