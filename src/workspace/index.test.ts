import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("toolgate/workspace (published subpath)", () => {
  it("exports exactly the intended runtime names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "DEFAULT_MAX_FILE_BYTES",
      "DEFAULT_READ_ASK_PATTERNS",
      "IgnoreRules",
      "PROTECTED_ENTRIES",
      "PathPatternSet",
      "SNIFF_BYTES",
      "TRUSTED_FILES",
      "USER_SECRET_PATHS",
      "WORKSPACE_SECRET_PATHS",
      "Workspace",
      "WorkspaceError",
      "contentDigest",
      "createDecoder",
      "decodeText",
      "detectEncoding",
      "encodeText",
      "everyFileTrusted",
      "fileKey",
      "fileTrust",
      "fixedTrust",
      "folderTrusted",
      "isErrno",
      "isInsideOrEqual",
      "openForRead",
      "readChecked",
      "readTrustedFolders",
      "toLf",
      "tooLarge",
      "trustLookup",
      "trustStorePath",
      "trustedFileKinds",
      "trustedFilesOf",
      "untrustedBecause",
      "untrustedReason",
      "withLineEnding",
      "writeChecked",
      "writeFileAtomic",
      "writeTrustedFolders",
    ]);
  });
});
