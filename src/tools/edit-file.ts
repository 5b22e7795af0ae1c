/**
 * @module tools/edit-file
 * `edit_file`: exact-text replacements applied all together or not at all. An edit whose text is missing or
 * ambiguous fails the whole call, naming the edit. Keeps the file's encoding, BOM and line endings (a CRLF
 * file is matched in LF form and written back as CRLF).
 */
import { resolve as resolvePath } from "node:path";
import type { Tool } from "../core/index.js";
import { defineTool, okResult, ToolFailure } from "../core/index.js";
import { type DecodedText, toLf, type Workspace } from "../workspace/index.js";
import { containPaths, withPathErrors } from "./files/errors.js";
import { plural, snippet } from "./files/format.js";
import { loadText, saveText, storageLabel, unifiedDiff } from "./files/text-io.js";

/** One replacement. */
export interface TextEdit {
  oldText: string;
  newText: string;
  /** How many occurrences to replace (default 1: the text must be unique). */
  expectedReplacements?: number;
}

/** Parameters of `edit_file`. */
export interface EditFileParams {
  path: string;
  edits: TextEdit[];
}

/** What `edit_file` needs. */
export interface EditFileDeps {
  workspace: Workspace;
}

function occurrences(text: string, needle: string): number {
  let count = 0;
  let index = text.indexOf(needle);
  while (index !== -1) {
    count++;
    index = text.indexOf(needle, index + needle.length);
  }
  return count;
}

/**
 * Applies the edits in order, each to the result of the previous ones. Throws `edit_failed` naming the
 * first edit that does not apply; nothing is written in that case.
 */
export function applyEdits(
  text: string,
  edits: readonly TextEdit[],
  path: string,
): { text: string; replacements: number } {
  let current = text;
  let replacements = 0;
  edits.forEach((edit, index) => {
    const label = `edit ${index + 1} of ${edits.length}`;
    const expected = edit.expectedReplacements ?? 1;
    const found = occurrences(current, edit.oldText);
    if (found === 0) {
      throw new ToolFailure(
        "edit_failed",
        `${label} failed: oldText not found in ${path}: "${snippet(edit.oldText)}"` +
          (index > 0 ? " (edits apply in order, each to the result of the previous ones)" : ""),
        { path, edit: index + 1 },
      );
    }
    if (found !== expected) {
      const hint =
        edit.expectedReplacements === undefined
          ? `; include more surrounding text to make it unique, or set expectedReplacements to ${found}`
          : "";
      throw new ToolFailure(
        "edit_failed",
        `${label} failed: oldText matches ${plural(found, "time")} in ${path} but ${expected} ` +
          `${expected === 1 ? "replacement was" : "replacements were"} expected: "${snippet(edit.oldText)}"${hint}`,
        { path, edit: index + 1, matches: found },
      );
    }
    current = current.split(edit.oldText).join(edit.newText);
    replacements += found;
  });
  return { text: current, replacements };
}

/** The text edits are matched against: LF form for CRLF files, the text itself otherwise. */
function workingText(decoded: DecodedText): string {
  return decoded.eol === "crlf" ? toLf(decoded.text) : decoded.text;
}

function workingEdits(decoded: DecodedText, edits: readonly TextEdit[]): TextEdit[] {
  if (decoded.eol !== "crlf") return [...edits];
  return edits.map((e) => ({ ...e, oldText: toLf(e.oldText), newText: toLf(e.newText) }));
}

/** Creates the `edit_file` tool. */
export function createEditFileTool(deps: EditFileDeps): Tool<EditFileParams> {
  const { workspace } = deps;
  const prepare = async (path: string, edits: readonly TextEdit[]) => {
    const resolved = await workspace.resolve(path, "write");
    const decoded = await loadText(workspace, resolved);
    if (!decoded) throw new ToolFailure("file_not_found", `file not found: ${path}`, { path });
    const display = workspace.displayPath(resolved.canonical);
    const before = workingText(decoded);
    const after = applyEdits(before, workingEdits(decoded, edits), display);
    return { resolved, decoded, display, before, after };
  };
  return defineTool<EditFileParams>({
    name: "edit_file",
    displayName: "Edit File",
    description:
      "Edits a text file by exact replacements: each edit replaces oldText with newText. All edits apply or " +
      "none does. oldText must occur exactly once unless expectedReplacements says how many times. Keeps the " +
      "file's encoding and line endings. Protected paths cannot be edited.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "File path, relative to the workspace root or absolute." },
        edits: {
          type: "array",
          minItems: 1,
          description: "Replacements, applied in order.",
          items: {
            type: "object",
            properties: {
              oldText: { type: "string", minLength: 1, description: "Exact text to find." },
              newText: { type: "string", description: "Text to put in its place." },
              expectedReplacements: {
                type: "integer",
                minimum: 1,
                description: "How many occurrences to replace (default 1).",
              },
            },
            required: ["oldText", "newText"],
            additionalProperties: false,
          },
        },
      },
      required: ["path", "edits"],
      additionalProperties: false,
    },
    kind: "edit",
    risk: "medium",
    argKinds: { path: "path" },
    describe: ({ path, edits }) => `Edit ${path} (${plural(edits.length, "edit")})`,
    locations: ({ path }) => [resolvePath(workspace.roots[0] as string, path)],
    precheck: ({ path }) => containPaths(workspace, "write", [path]),
    async confirmation({ path, edits }) {
      try {
        const { display, before, after } = await prepare(path, edits);
        return { diff: unifiedDiff(display, before, after.text) };
      } catch {
        return {};
      }
    },
    run: ({ path, edits }) =>
      withPathErrors(path, "edit", async () => {
        const { resolved, decoded, display, after } = await prepare(path, edits);
        const outcome = await saveText(resolved, after.text, decoded, true);
        const note = outcome.encodingChanged
          ? `; the new text cannot be stored as ${outcome.encodingChanged}, so the file was written as UTF-8`
          : "";
        const text =
          `Edited ${display}: ${plural(edits.length, "edit")}, ${plural(after.replacements, "replacement")} ` +
          `(${storageLabel(outcome)})${note}`;
        return okResult(text, text, { path: display, replacements: after.replacements, ...outcome });
      }),
  });
}
