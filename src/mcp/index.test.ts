import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("toolgate/mcp (published subpath)", () => {
  it("exports exactly the intended runtime names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "McpClientPool",
      "McpHttpOptionsError",
      "describeMcpSources",
      "hashBytes",
      "isLoopbackHost",
      "loadMcpConfig",
      "mcpConfigHash",
      "mcpConfigPath",
      "mcpConfigStamp",
      "normalizeServerConfig",
      "parseMcpConfig",
      "sanitizeNamePart",
      "serveMcp",
      "serveMcpHttp",
      "serverProvenance",
      "summarizeMcpFile",
      "watchGenerations",
    ]);
  });
});
