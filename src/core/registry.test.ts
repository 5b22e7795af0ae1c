import { describe, expect, it } from "vitest";
import { defineTool } from "./define-tool.js";
import { ConfigError, okResult } from "./errors.js";
import { ToolRegistry } from "./registry.js";
import type { JsonSchema } from "./types.js";

function tool(name: string, parameters: JsonSchema = { type: "object", properties: {} }, description = name) {
  return defineTool({
    name,
    description,
    parameters,
    kind: "read",
    risk: "low",
    run: async () => okResult(name),
  });
}

function quietRegistry() {
  const warnings: string[] = [];
  const registry = new ToolRegistry({ logger: { warn: (m) => warnings.push(m) } });
  return { registry, warnings };
}

describe("ToolRegistry", () => {
  it("stores a tool under its name and gets it back", () => {
    const { registry } = quietRegistry();
    const t = tool("read_file");
    registry.register(t);
    expect(registry.get("read_file")).toBe(t);
    expect(registry.get("nope")).toBeUndefined();
  });

  it("replaces a tool registered again under the same name, with a warning", () => {
    const { registry, warnings } = quietRegistry();
    registry.register(tool("grep", undefined, "first"));
    const second = tool("grep", undefined, "second");
    registry.register(second);
    expect(registry.get("grep")).toBe(second);
    expect(registry.size).toBe(1);
    expect(warnings).toEqual(["tool grep was registered again; the new definition replaces the old one"]);
  });

  it("unregisters by name", () => {
    const { registry } = quietRegistry();
    registry.register(tool("ls"));
    expect(registry.unregister("ls")).toBe(true);
    expect(registry.get("ls")).toBeUndefined();
    expect(registry.unregister("ls")).toBe(false);
  });

  it("lists tools alphabetically and consistently across calls", () => {
    const { registry } = quietRegistry();
    for (const n of ["write_file", "glob", "Zeta", "alpha", "_private", "grep"]) registry.register(tool(n));
    const names = registry.names();
    expect(names).toEqual(["Zeta", "_private", "alpha", "glob", "grep", "write_file"]);
    expect(registry.names()).toEqual(names);
    registry.unregister("glob");
    registry.register(tool("glob"));
    expect(registry.names()).toEqual(names);
  });

  it("bumps its version and tells listeners on every change", () => {
    const { registry } = quietRegistry();
    const events: string[] = [];
    registry.onChange((e) => events.push(`${e.type}:${e.name}`));
    const v0 = registry.version;
    registry.register(tool("a"));
    registry.unregister("a");
    registry.unregister("a");
    expect(registry.version).toBe(v0 + 2);
    expect(events).toEqual(["register:a", "unregister:a"]);
  });

  it.each([
    ["", "empty"],
    ["1abc", "starts with a digit"],
    ["has space", "space"],
    ["dot.name", "dot"],
    ["a".repeat(65), "too long"],
    ["mcp/github", "slash"],
    ["ünïcode", "non-ASCII"],
  ])("refuses the bad name %j (%s) with a clear error", (name) => {
    const { registry } = quietRegistry();
    expect(() => registry.register(tool(name))).toThrowError(ConfigError);
    expect(() => registry.register(tool(name))).toThrowError(
      /a tool name must start with a letter or _, contain only letters, digits, _ and -, and be at most 64 characters/,
    );
    expect(registry.size).toBe(0);
  });

  it("accepts names at the edge of the pattern", () => {
    const { registry } = quietRegistry();
    registry.register(tool("a".repeat(64)));
    registry.register(tool("_x-1"));
    expect(registry.size).toBe(2);
  });

  it("refuses a schema that is not valid JSON Schema (fail closed)", () => {
    const { registry } = quietRegistry();
    expect(() =>
      registry.register(tool("bad", { type: "object", properties: { a: { type: "strnig" } } })),
    ).toThrowError(/cannot register tool bad: its parameter schema is invalid/);
    expect(() => registry.register(tool("bad2", { type: "array" }))).toThrowError(
      /schema type must be "object"/,
    );
    expect(registry.get("bad")).toBeUndefined();
  });
});
