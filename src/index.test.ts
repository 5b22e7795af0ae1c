import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("public API", () => {
  it("exports exactly the intended runtime names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "ConfigError",
      "MessageBus",
      "StateError",
      "ToolFailure",
      "ToolInputError",
      "ToolRegistry",
      "createToolgate",
      "defineTool",
      "errorResult",
      "memoryFilePath",
      "okResult",
      "openMemoryStore",
      "openTodoStore",
      "projectStateDir",
      "todosFilePath",
      "truncateOutput",
      "userStateDir",
    ]);
  });
});
