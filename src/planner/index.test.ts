import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("toolgate/planner (published subpath)", () => {
  it("exports exactly the intended runtime names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "DEFAULT_PROFILE",
      "mergeProfiles",
      "parseNativeCalls",
      "parsePlannerProfile",
      "parseRoutingPlan",
      "parseStructuredCalls",
      "plan",
      "profileForTools",
      "replyFromResponse",
      "splitThinking",
      "stripThinking",
    ]);
  });
});
