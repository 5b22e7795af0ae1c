import { describe, expect, it } from "vitest";
import { defineTool } from "../define-tool.js";
import { ConfigError, okResult } from "../errors.js";
import { ToolRegistry } from "../registry.js";
import type { Tool } from "../types.js";
import { lowerTools, PROVIDER_NAMES, SchemaCache } from "./index.js";
import { caseTools } from "./testdata/cases.js";

function setup(): { registry: ToolRegistry; cache: SchemaCache } {
  const registry = new ToolRegistry({ logger: { warn: () => {} } });
  for (const t of caseTools()) registry.register(t);
  return { registry, cache: new SchemaCache(registry) };
}

function echo(name: string, description = "Echoes text."): Tool {
  return defineTool({
    name,
    description,
    kind: "think",
    risk: "low",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    run: async () => okResult(""),
  });
}

const names = (tools: readonly unknown[]) => (tools as { name: string }[]).map((t) => t.name);

describe("SchemaCache", () => {
  it("returns what lowerTools returns for the registry, for every provider", () => {
    const { registry, cache } = setup();
    for (const provider of PROVIDER_NAMES) {
      const direct = lowerTools(registry.list(), provider);
      expect(cache.get(provider)).toEqual(direct);
      expect(cache.json(provider)).toBe(JSON.stringify(direct.tools));
    }
  });

  it("serves the same object until the registry changes", () => {
    const { cache } = setup();
    const first = cache.get("anthropic");
    expect(cache.get("anthropic")).toBe(first);
    expect(cache.json("anthropic")).toBe(cache.json("anthropic"));
    expect(cache.size).toBe(1);
    expect(cache.get("openai")).not.toBe(first);
    expect(cache.size).toBe(2);
  });

  it("recomputes after register and after unregister", () => {
    const { registry, cache } = setup();
    const before = cache.get("openai-responses");
    registry.register(echo("echo"));
    expect(cache.size).toBe(0);
    const afterRegister = cache.get("openai-responses");
    expect(afterRegister).not.toBe(before);
    expect(names(afterRegister.tools)).toContain("echo");
    expect(names(before.tools)).not.toContain("echo");
    registry.unregister("echo");
    const afterUnregister = cache.get("openai-responses");
    expect(afterUnregister).not.toBe(afterRegister);
    expect(names(afterUnregister.tools)).not.toContain("echo");
    expect(afterUnregister).toEqual(before);
  });

  it("re-lowers a replaced tool and reuses the lowering of unchanged tools", () => {
    const { registry, cache } = setup();
    registry.register(echo("echo"));
    const schemaOf = (name: string) =>
      (cache.get("anthropic").tools as { name: string; description: string; input_schema: unknown }[]).find(
        (t) => t.name === name,
      );
    const readFile = schemaOf("read_file");
    registry.register(echo("echo", "Echoes text back."));
    expect(schemaOf("echo")?.description).toBe("Echoes text back.");
    // Same object: the unchanged tool was not lowered again.
    expect(schemaOf("read_file")?.input_schema).toBe(readFile?.input_schema);
  });

  it("keys scopes separately, by the set of names", () => {
    const { cache } = setup();
    const all = cache.get("ollama");
    const scoped = cache.get("ollama", ["search_web", "read_file"]);
    expect(names((scoped.tools as { function: { name: string } }[]).map((t) => t.function))).toEqual([
      "read_file",
      "search_web",
    ]);
    expect(cache.get("ollama", ["read_file", "search_web", "read_file"])).toBe(scoped);
    expect(cache.get("ollama")).toBe(all);
    expect(scoped.report.every((n) => n.tool === "read_file" || n.tool === "search_web")).toBe(true);
    expect(cache.get("ollama", ["no_such_tool"]).tools).toEqual([]);
  });

  it("hands out frozen results, so no caller can corrupt the cache", () => {
    const { cache } = setup();
    const result = cache.get("gemini");
    expect(() => (result.tools as unknown[]).push({})).toThrow(TypeError);
    const decl = (result.tools[0] as { functionDeclarations: { description: string }[] })
      .functionDeclarations[0];
    expect(() => {
      (decl as { description: string }).description = "changed";
    }).toThrow(TypeError);
    expect(cache.get("gemini")).toEqual(lowerTools(caseTools(), "gemini"));
  });

  it("refuses an unknown provider", () => {
    const { cache } = setup();
    expect(() => cache.get("bard")).toThrow(ConfigError);
    expect(() => cache.json("bard")).toThrow(
      'unknown provider "bard": expected one of openai, openai-responses, anthropic, gemini, ollama',
    );
  });
});
