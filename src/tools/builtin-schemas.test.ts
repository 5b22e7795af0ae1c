import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settingsFromConfig } from "../config/index.js";
import { ParamValidator, type Tool } from "../core/index.js";
import { type BuiltinTools, createBuiltinTools } from "./index.js";

// The gate registers built-in tools without the meta-schema check (it costs start-up time); this is that check.
describe("built-in tool schemas", () => {
  let dir: string;
  let builtins: BuiltinTools;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "tg-builtin-schemas-"));
    builtins = await createBuiltinTools({
      roots: [dir],
      settings: settingsFromConfig({}),
      logger: { warn: () => undefined },
      // Jira and Confluence appear only when configured.
      env: {
        JIRA_BASE_URL: "https://jira.example.com",
        JIRA_API_TOKEN: "t",
        CONFLUENCE_BASE_URL: "https://wiki.example.com",
        CONFLUENCE_API_TOKEN: "t",
      },
    });
  });
  afterAll(async () => {
    await builtins.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("covers every built-in tool, the optional ones included", () => {
    const names = builtins.tools.map((t) => t.name);
    for (const name of ["read_file", "grep", "shell", "web_fetch", "jira_fetch", "confluence_fetch"]) {
      expect(names).toContain(name);
    }
  });

  it("gives every built-in tool a schema valid against the JSON Schema 2020-12 meta-schema, which compiles", () => {
    const validator = new ParamValidator();
    for (const tool of builtins.tools as Tool[]) {
      expect({ tool: tool.name, problem: validator.schemaProblem(tool.parameters) }).toEqual({
        tool: tool.name,
        problem: undefined,
      });
      expect(validator.compile(tool)).toBeTypeOf("function");
    }
  });

  it("still refuses an invalid schema where the meta-schema check runs", () => {
    const validator = new ParamValidator();
    expect(
      validator.schemaProblem({ type: "object", properties: { a: { type: "no-such-type" } } } as never),
    ).toMatch(/schema/);
    expect(validator.shapeProblem({ type: "array" } as never)).toMatch(/must be "object"/);
  });
});
