/**
 * The published subpaths `toolgate/policy`, `/workspace`, `/mcp` and `/planner`: package.json maps each to its
 * entry file in `src/api/`, and each exports exactly the intended runtime names. Changing a list here is
 * changing the public API (docs/public-api.md follows from `UPDATE_DOCS=1`; removing a name is a breaking
 * change).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as mcp from "./mcp.js";
import * as planner from "./planner.js";
import * as policy from "./policy.js";
import * as workspace from "./workspace.js";

const ENTRIES: Record<string, object> = { policy, workspace, mcp, planner };

const SUBPATHS: Record<string, string[]> = {
  policy: [
    "PolicyEngine",
    "analyzeCommand",
    "builtinDefaultPolicy",
    "compileToolPattern",
    "createCommandKind",
    "createPathKind",
    "createRecorder",
    "createUrlKind",
    "evaluate",
    "extendPolicy",
    "lintPolicy",
    "loadPolicyFile",
    "parsePolicy",
    "renderExplanation",
    "validateAgainstTools",
    "withGitConfigCheck",
  ],
  workspace: [
    "DEFAULT_MAX_FILE_BYTES",
    "DEFAULT_READ_ASK_PATTERNS",
    "IgnoreRules",
    "PROTECTED_ENTRIES",
    "PathPatternSet",
    "TRUSTED_FILES",
    "USER_SECRET_PATHS",
    "WORKSPACE_SECRET_PATHS",
    "Workspace",
    "WorkspaceError",
    "decodeText",
    "detectEncoding",
    "encodeText",
    "fileTrust",
    "folderTrusted",
    "isInsideOrEqual",
    "readChecked",
    "readTrustedFolders",
    "trustLookup",
    "trustStorePath",
    "withLineEnding",
    "writeChecked",
    "writeFileAtomic",
    "writeTrustedFolders",
  ],
  mcp: [
    "McpClientPool",
    "McpHttpOptionsError",
    "loadMcpConfig",
    "mcpConfigPath",
    "parseMcpConfig",
    "serveMcp",
    "serveMcpHttp",
  ],
  planner: [
    "DEFAULT_PROFILE",
    "mergeProfiles",
    "parsePlannerProfile",
    "parseRoutingPlan",
    "plan",
    "profileForTools",
    "replyFromResponse",
  ],
};

describe("published subpaths with an entry file in src/api/", () => {
  it("are mapped by package.json to their entry file", async () => {
    const pkg = JSON.parse(await readFile(join(import.meta.dirname, "..", "..", "package.json"), "utf8"));
    for (const name of Object.keys(SUBPATHS)) {
      expect(pkg.exports[`./${name}`]).toEqual({
        types: `./dist/api/${name}.d.ts`,
        default: `./dist/api/${name}.js`,
      });
    }
  });

  for (const [name, names] of Object.entries(SUBPATHS)) {
    it(`toolgate/${name} exports exactly the intended runtime names`, () => {
      expect(Object.keys(ENTRIES[name]!).sort()).toEqual(names);
    });
  }
});
