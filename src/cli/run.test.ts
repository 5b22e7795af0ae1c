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

  it("prints every command in --help, in the table's order", () => {
    const text = helpText();
    const lines = text.split("\n").filter((l) => l.startsWith("  toolgate "));
    expect(lines).toEqual(Object.values(COMMANDS).map((c) => `  ${c.usage}`));
  });
});
