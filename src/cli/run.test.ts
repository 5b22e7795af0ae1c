import { describe, expect, it } from "vitest";
import { COMMANDS, helpText } from "./run.js";

describe("the command table", () => {
  it("lists each command's usage exactly as its module states it (--help loads no module)", async () => {
    for (const [name, entry] of Object.entries(COMMANDS)) {
      const command = await entry.load();
      expect({ name, usage: entry.usage }).toEqual({ name, usage: command.usage });
      expect(command.run).toBeTypeOf("function");
    }
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
