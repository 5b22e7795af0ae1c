import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("toolgate/policy (published subpath)", () => {
  it("exports exactly the intended runtime names", () => {
    expect(Object.keys(api).sort()).toEqual([
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
      "matchRule",
      "matchSorted",
      "parsePolicy",
      "renderExplanation",
      "stricterOnly",
      "validateAgainstTools",
      "withGitConfigCheck",
    ]);
  });
});
