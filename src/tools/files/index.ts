/**
 * @module tools/files
 * The file tools as one set, for `tools/index.ts`: read_file, read_many_files, write_file, edit_file, glob,
 * grep and ls, all sharing one workspace (roots fixed by the host).
 */
import type { Tool } from "../../core/index.js";
import type { Workspace } from "../../workspace/index.js";
import { createEditFileTool } from "../edit-file.js";
import { createGlobTool } from "../glob.js";
import { createGrepTool } from "../grep.js";
import { createLsTool } from "../ls.js";
import { createReadFileTool } from "../read-file.js";
import { createReadManyFilesTool } from "../read-many-files.js";
import { createWriteFileTool } from "../write-file.js";

/** What the file tools share. */
export interface FileToolsDeps {
  workspace: Workspace;
  /** ripgrep binary for grep; `null` forces the JS search; undefined uses `@vscode/ripgrep`'s. */
  ripgrepPath?: string | null;
}

/** Creates the seven file tools over one workspace. */
export function createFileTools(deps: FileToolsDeps): Tool[] {
  const { workspace } = deps;
  const grepDeps =
    deps.ripgrepPath === undefined ? { workspace } : { workspace, ripgrepPath: deps.ripgrepPath };
  return [
    createReadFileTool({ workspace }),
    createReadManyFilesTool({ workspace }),
    createWriteFileTool({ workspace }),
    createEditFileTool({ workspace }),
    createGlobTool({ workspace }),
    createGrepTool(grepDeps),
    createLsTool({ workspace }),
  ] as unknown as Tool[];
}
