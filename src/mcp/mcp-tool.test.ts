import { describe, expect, it } from "vitest";
import { okResult } from "../core/index.js";
import { argumentsPreview, createMcpTool, normalizeInputSchema, riskFromAnnotations } from "./mcp-tool.js";

const route = { server: "github", tool: "delete_repo" };

describe("MCP tools as toolgate tools", () => {
  it("shows a person the call's arguments when asking (never approving blind)", async () => {
    const tool = createMcpTool(
      "mcp__github__delete_repo",
      route,
      { name: "delete_repo", description: "Deletes a repository", inputSchema: { type: "object" } },
      async () => okResult("done"),
    );
    const invocation = tool.build({ owner: "acme", repo: "prod" });
    expect(invocation.getDescription()).toBe(
      'delete_repo on MCP server github with {"owner":"acme","repo":"prod"}',
    );
    const details = await invocation.shouldConfirmExecute(new AbortController().signal);
    expect(details ? details.description : undefined).toContain('"repo":"prod"');
  });

  it("shortens long arguments and says how much was left out", () => {
    expect(argumentsPreview({ text: "x".repeat(600) }, 20)).toBe(
      '{"text":"xxxxxxxxxxx… (591 more characters)',
    );
  });

  it("takes risk from annotations only as a hint: read-only low, anything else high", () => {
    expect(riskFromAnnotations({ readOnlyHint: true })).toBe("low");
    expect(riskFromAnnotations(undefined)).toBe("high");
    expect(riskFromAnnotations({ readOnlyHint: true, destructiveHint: true })).toBe("high");
  });

  it("accepts a server's schema as an object schema", () => {
    expect(
      normalizeInputSchema({ $schema: "http://json-schema.org/draft-07/schema#", properties: {} }),
    ).toMatchObject({
      type: "object",
    });
  });
});
