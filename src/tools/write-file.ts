/**
 * @module tools/write-file
 * `write_file`: creates a file (and its missing parent folders, inside the root only) or, with `overwrite`,
 * replaces one — keeping the old file's encoding, BOM, line endings and mode. Protected paths are refused.
 */
import { resolve as resolvePath } from "node:path";
import type { Tool } from "../core/index.js";
import { defineTool, okResult, ToolFailure } from "../core/index.js";
import { toLf, type Workspace } from "../workspace/index.js";
import { containPaths, withPathErrors } from "./files/errors.js";
import { formatSize } from "./files/format.js";
import { loadText, saveText, storageLabel, unifiedDiff } from "./files/text-io.js";

/** Parameters of `write_file`. */
export interface WriteFileParams {
  path: string;
  content: string;
  overwrite?: boolean;
}

/** What `write_file` needs. */
export interface WriteFileDeps {
  workspace: Workspace;
}

/** Creates the `write_file` tool. */
export function createWriteFileTool(deps: WriteFileDeps): Tool<WriteFileParams> {
  const { workspace } = deps;
  return defineTool<WriteFileParams>({
    name: "write_file",
    displayName: "Write File",
    description:
      "Writes a text file in the workspace, creating missing parent folders. Fails if the file exists unless " +
      "overwrite is true; an overwritten file keeps its encoding and line endings. Protected paths (.git, " +
      ".toolgate, .env*, editor and shell settings...) cannot be written.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "File path, relative to the workspace root or absolute." },
        content: { type: "string", description: "The complete new content of the file." },
        overwrite: { type: "boolean", description: "Replace the file if it exists (default false)." },
      },
      required: ["path", "content"],
      additionalProperties: false,
    },
    kind: "edit",
    risk: "medium",
    argKinds: { path: "path" },
    describe: ({ path, overwrite }) => `${overwrite ? "Write (overwrite)" : "Write"} ${path}`,
    locations: ({ path }) => [resolvePath(workspace.roots[0] as string, path)],
    precheck: ({ path }) => containPaths(workspace, "write", [path]),
    async confirmation({ path, content, overwrite }) {
      try {
        const resolved = await workspace.resolve(path, "write");
        const previous = overwrite ? await loadText(workspace, resolved, { binary: "ignore" }) : undefined;
        const before = previous ? (previous.eol === "crlf" ? toLf(previous.text) : previous.text) : "";
        return { diff: unifiedDiff(workspace.displayPath(resolved.canonical), before, content) };
      } catch {
        // The call will fail with a precise error when it runs; the confirmation just shows no diff.
        return {};
      }
    },
    run: ({ path, content, overwrite }) =>
      withPathErrors(path, "write", async () => {
        const resolved = await workspace.resolve(path, "write");
        const display = workspace.displayPath(resolved.canonical);
        if (resolved.exists && !overwrite) {
          throw new ToolFailure(
            "file_exists",
            `file already exists: ${path} (set overwrite to true to replace it)`,
            { path },
          );
        }
        // A binary file being replaced has no text form to keep: the new content is written as UTF-8.
        const previous = await loadText(workspace, resolved, { binary: "ignore" });
        const outcome = await saveText(resolved, content, previous, overwrite === true);
        const verb = outcome.created ? "Created" : "Overwrote";
        const note = outcome.encodingChanged
          ? `; the content cannot be stored as ${outcome.encodingChanged}, so it was written as UTF-8`
          : "";
        const text = `${verb} ${display} (${formatSize(outcome.bytes)}, ${storageLabel(outcome)})${note}`;
        return okResult(text, text, { path: display, ...outcome });
      }),
  });
}
