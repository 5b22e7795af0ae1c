import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("public API", () => {
  it("exports exactly the intended runtime names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "ConfigError",
      "MessageBus",
      "ToolFailure",
      "ToolInputError",
      "ToolRegistry",
      "createToolgate",
      "defineTool",
      "errorResult",
      "okResult",
      "truncateOutput",
    ]);
  });
});
