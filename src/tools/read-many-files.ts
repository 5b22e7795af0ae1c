/**
 * @module tools/read-many-files
 * `read_many_files`: several files in one result, each under a `--- path ---` header, named directly and/or
 * found by globs (gitignore respected). Caps the number of files and the total size, and says exactly what
 * was left out and why.
 */
import { resolve as resolvePath } from "node:path";
import type { Tool } from "../core/index.js";
import { defineTool, okResult, ToolFailure } from "../core/index.js";
import {
  decodeText,
  detectEncoding,
  type ResolvedPath,
  readChecked,
  type Workspace,
  WorkspaceError,
} from "../workspace/index.js";
import { containPaths, toToolFailure } from "./files/errors.js";
import { describeBinary, formatSize, plural } from "./files/format.js";
import { globFiles, globPatternProblem } from "./glob.js";

/** Parameters of `read_many_files`. */
export interface ReadManyFilesParams {
  paths?: string[];
  patterns?: string[];
  maxFiles?: number;
  maxTotalBytes?: number;
}

/** What `read_many_files` needs. */
export interface ReadManyFilesDeps {
  workspace: Workspace;
}

/** Default caps. */
export const DEFAULT_MANY_FILES = 50;
export const DEFAULT_MANY_BYTES = 1024 * 1024;

/** Creates the `read_many_files` tool. */
export function createReadManyFilesTool(deps: ReadManyFilesDeps): Tool<ReadManyFilesParams> {
  const { workspace } = deps;
  return defineTool<ReadManyFilesParams>({
    name: "read_many_files",
    displayName: "Read Many Files",
    description:
      "Reads several text files at once: `paths` names files, `patterns` are globs (e.g. `src/**/*.ts`, " +
      "gitignored files skipped). Each file comes under a `--- path ---` header. At most maxFiles files " +
      `(default ${DEFAULT_MANY_FILES}) and maxTotalBytes bytes (default ${formatSize(DEFAULT_MANY_BYTES)}); ` +
      "what is left out is listed.",
    parameters: {
      type: "object",
      properties: {
        paths: { type: "array", items: { type: "string" }, description: "Files to read." },
        patterns: {
          type: "array",
          items: { type: "string", minLength: 1 },
          description: "Globs of files to read.",
        },
        maxFiles: {
          type: "integer",
          minimum: 1,
          description: `Most files read (default ${DEFAULT_MANY_FILES}).`,
        },
        maxTotalBytes: { type: "integer", minimum: 1, description: "Most bytes read in total." },
      },
      additionalProperties: false,
    },
    kind: "read",
    risk: "low",
    argKinds: { paths: "path" },
    validate: ({ paths, patterns }) => {
      if ((paths?.length ?? 0) + (patterns?.length ?? 0) === 0)
        return "give at least one entry in paths or patterns";
      for (const p of patterns ?? []) {
        const problem = globPatternProblem(p);
        if (problem) return `pattern "${p}": ${problem}`;
      }
      return undefined;
    },
    describe: ({ paths, patterns }) => `Read ${[...(paths ?? []), ...(patterns ?? [])].join(", ")}`,
    locations: ({ paths }) => (paths ?? []).map((p) => resolvePath(workspace.roots[0] as string, p)),
    precheck: ({ paths }) => containPaths(workspace, "read", paths ?? []),
    riskFor: ({ paths, patterns }) =>
      [...(paths ?? []), ...(patterns ?? [])].some((p) => workspace.isReadSensitive(p)) ? "medium" : "low",
    async run({ paths, patterns, maxFiles, maxTotalBytes }, { signal }) {
      const fileCap = maxFiles ?? DEFAULT_MANY_FILES;
      const byteCap = maxTotalBytes ?? DEFAULT_MANY_BYTES;
      const files: ResolvedPath[] = [];
      const seen = new Set<string>();
      const missing: string[] = [];
      const sensitive: string[] = [];
      for (const path of paths ?? []) {
        try {
          const resolved = await workspace.resolve(path, "read");
          if (!seen.has(resolved.canonical)) files.push(resolved);
          seen.add(resolved.canonical);
        } catch (error) {
          // Outside the roots or otherwise refused fails the call; a plain missing file is only noted.
          if (error instanceof WorkspaceError && error.code === "not_found") missing.push(path);
          else throw toToolFailure(error, path, "read");
        }
      }
      const root = workspace.roots[0] as string;
      for (const pattern of patterns ?? []) {
        const found = await globFiles(workspace, { canonical: root, root }, pattern, {
          includeHidden: false,
          signal,
        });
        for (const canonical of found) {
          if (seen.has(canonical)) continue;
          seen.add(canonical);
          // A pattern never pulls in secrets (.env, keys): those are read by explicit path, which the policy sees.
          if (workspace.isReadSensitive(workspace.displayPath(canonical))) {
            sensitive.push(workspace.displayPath(canonical));
            continue;
          }
          files.push({
            ...(await workspace.resolve(canonical, "read")),
            input: workspace.displayPath(canonical),
          });
        }
      }
      if (files.length === 0) {
        throw new ToolFailure(
          "file_not_found",
          `no files found for ${[...(paths ?? []), ...(patterns ?? [])].join(", ")}${sensitive.length ? ` (left out because they may hold secrets: ${sensitive.join(", ")})` : ""}`,
        );
      }
      const parts: string[] = [];
      const overCount = files.slice(fileCap).map((f) => workspace.displayPath(f.canonical));
      const overSize: string[] = [];
      const skipped: string[] = [];
      let total = 0;
      let read = 0;
      for (const file of files.slice(0, fileCap)) {
        signal.throwIfAborted();
        const display = workspace.displayPath(file.canonical);
        if (file.isDirectory) {
          skipped.push(`${display} (a directory)`);
          continue;
        }
        let bytes: Buffer;
        try {
          bytes = await readChecked(file, Math.min(workspace.maxFileBytes, byteCap - total));
        } catch (error) {
          if (error instanceof WorkspaceError && error.code === "too_large") {
            overSize.push(display);
            continue;
          }
          skipped.push(`${display} (${(toToolFailure(error, display, "read") as Error).message})`);
          continue;
        }
        const detection = detectEncoding(bytes);
        if (detection.binary) {
          parts.push(
            `--- ${display} ---\n[binary file: ${describeBinary(bytes)}, ${formatSize(bytes.length)}; not shown]`,
          );
        } else {
          const text = decodeText(bytes, detection).text;
          parts.push(`--- ${display} ---\n${text}${text.endsWith("\n") || text === "" ? "" : "\n"}`);
        }
        total += bytes.length;
        read++;
      }
      const notes: string[] = [];
      if (missing.length) notes.push(`Not found: ${missing.join(", ")}`);
      if (skipped.length) notes.push(`Skipped: ${skipped.join(", ")}`);
      if (sensitive.length) {
        notes.push(
          `Left out (may hold secrets; read them by path to be asked first): ${sensitive.join(", ")}`,
        );
      }
      if (overSize.length) {
        notes.push(
          `Left out (total size limit ${formatSize(byteCap)} or file limit ${formatSize(workspace.maxFileBytes)} reached): ${overSize.join(", ")}`,
        );
      }
      if (overCount.length) notes.push(`Left out (file limit ${fileCap} reached): ${overCount.join(", ")}`);
      const body = parts.join("\n") + (notes.length ? `\n--- notes ---\n${notes.join("\n")}\n` : "");
      const summary = `Read ${plural(read, "file")} (${formatSize(total)})${notes.length ? `; ${overCount.length + overSize.length} left out` : ""}`;
      return okResult(body, summary, {
        files: read,
        bytes: total,
        leftOut: [...overSize, ...overCount, ...sensitive],
        missing,
      });
    },
  });
}
