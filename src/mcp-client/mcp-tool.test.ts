import { describe, expect, it } from "vitest";
import { okResult } from "../core/index.js";
import { tempWorkspace } from "../test-support/cli.js";
import { createToolgate } from "../toolgate.js";
import {
  argumentsPreview,
  createMcpTool,
  inferArgKinds,
  normalizeInputSchema,
  riskFromAnnotations,
} from "./mcp-tool.js";

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
    expect(invocation.describe()).toBe(
      'delete_repo on MCP server github with {"owner":"acme","repo":"prod"}',
    );
    const details = await invocation.confirmation(new AbortController().signal);
    // Built by core/confirmation (the one owner of confirmation details), typed "mcp" by the tool's source.
    expect(details).toEqual({
      toolName: "mcp__github__delete_repo",
      description: 'delete_repo on MCP server github with {"owner":"acme","repo":"prod"}',
      risk: "high",
      locations: [],
      type: "mcp",
      sandbox: 'none (the MCP server "github" runs this call, outside toolgate)',
    });
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

  it("infers path, url and command arguments from their names and types", () => {
    expect(
      inferArgKinds({
        type: "object",
        properties: {
          path: { type: "string" },
          paths: { type: "array", items: { type: "string" } },
          url: { type: "string" },
          command: { type: "string" },
          query: { type: "string" },
          file: { type: "number" },
        },
      }),
    ).toEqual({ path: "path", paths: "path", url: "url", command: "command" });
  });

  it("lets a * rule with a path condition judge canonical paths of MCP tools too", async () => {
    const root = await tempWorkspace({ "secrets/a.txt": "s", "notes.txt": "n" });
    const gate = await createToolgate({
      roots: [root],
      logger: { warn: () => undefined },
      policyText:
        'default = "allow"\n\n[[rules]]\ntool = "*"\ndecision = "deny"\nwhen.path = { glob = "secrets/**" }\n',
    });
    const calls: string[] = [];
    gate.register(
      createMcpTool(
        "mcp__fs__read_text_file",
        { server: "fs", tool: "read_text_file" },
        {
          name: "read_text_file",
          inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        },
        async (_route, args) => {
          calls.push(String(args.path));
          return okResult("read");
        },
      ),
    );
    gate.bus.onConfirmation(() => ({ approved: true }));
    for (const path of [
      "secrets/a.txt",
      "./secrets/a.txt",
      "SECRETS/a.txt",
      "x/../secrets/a.txt",
      `${root}/secrets/a.txt`,
    ]) {
      const r = await gate.execute({ name: "mcp__fs__read_text_file", args: { path } });
      expect(r.decision, path).toBe("deny");
    }
    expect((await gate.execute({ name: "mcp__fs__read_text_file", args: { path: "notes.txt" } })).ok).toBe(
      true,
    );
    expect(calls).toEqual(["notes.txt"]);
    await gate.close();
  });
});
