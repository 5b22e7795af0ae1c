import { describe, expect, it } from "vitest";
import { LLM_PROVIDERS } from "../config/choices.js";
import { PROVIDER_NAMES } from "../core/index.js";
import { COMMANDS, helpText } from "./run.js";
import { USAGE } from "./usage.js";

describe("the command table", () => {
  it("has a usage line and a module for every command, and a command for every usage line", async () => {
    expect(Object.keys(COMMANDS).sort()).toEqual(Object.keys(USAGE).sort());
    for (const [name, entry] of Object.entries(COMMANDS)) {
      expect({ name, usage: entry.usage }).toEqual({ name, usage: USAGE[name as keyof typeof USAGE] });
      expect((await entry.load()).run).toBeTypeOf("function");
    }
  });

  it("names every choice where a usage line lists them: the model providers, the schema formats", () => {
    for (const name of ["chat", "run"] as const)
      expect(USAGE[name]).toContain(`--provider ${LLM_PROVIDERS.join("|")}`);
    expect(USAGE.schema).toContain(`--provider ${PROVIDER_NAMES.join("|")}`);
  });

  it("gives every command a help: a summary, each flag described, and examples that run the command", async () => {
    for (const [name, entry] of Object.entries(COMMANDS)) {
      const { help } = await entry.load();
      expect(help.summary.length, name).toBeGreaterThan(20);
      expect(help.examples.length, name).toBeGreaterThan(0);
      for (const example of help.examples) expect(example).toMatch(new RegExp(`(^|\\| )toolgate ${name}\\b`));
      for (const [flag, spec] of Object.entries(help.options)) {
        expect(spec.description, `${name} --${flag}`).not.toBe("");
        // The usage line mentions every flag the command takes (global ones excepted).
        expect(entry.usage, `${name} --${flag}`).toContain(`--${flag}`);
      }
    }
  });

  it("prints every command in --help, in the table's order", () => {
    const text = helpText();
    const lines = text.split("\n").filter((l) => l.startsWith("  toolgate "));
    expect(lines).toEqual(Object.values(COMMANDS).map((c) => `  ${c.usage}`));
  });
});
