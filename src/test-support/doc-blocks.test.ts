import { describe, expect, it } from "vitest";
import { extractBlocks, shellCommands } from "./doc-blocks.js";

const md = [
  "# Title", // 1
  "", // 2
  "```sh", // 3
  "toolgate tools          # the tools", // 4
  "# a comment", // 5
  "", // 6
  'toolgate call write_file \'{"path":"x"}\'   # exit 3: denied', // 7
  "toolgate memory get k   # the value; exit 1 when not found", // 8
  "toolgate call shell \\", // 9
  '  \'{"command":"ls"}\'', // 10
  "```", // 11
  "<!-- illustrative -->", // 12
  "", // 13
  "```ts", // 14
  "await model.send(task);", // 15
  "```", // 16
  "```", // 17
  "plain output", // 18
  "```", // 19
  "  ```toml", // 20
  '  default = "ask"', // 21
  "  ```", // 22
].join("\n");

describe("extractBlocks", () => {
  it("finds each block with its file:line, language and mode; the marker makes a block illustrative", () => {
    const blocks = extractBlocks(md, "doc.md");
    expect(blocks.map((b) => [b.where, b.lang, b.mode])).toEqual([
      ["doc.md:3", "sh", "shell"],
      ["doc.md:14", "ts", "illustrative"],
      ["doc.md:17", "", "illustrative"],
      ["doc.md:20", "toml", "toml"],
    ]);
    expect(blocks[3]!.code).toBe('default = "ask"');
  });

  it("refuses a language it can neither run nor check, and an unclosed block, naming file:line", () => {
    expect(() => extractBlocks("text\n```python\nprint(1)\n```\n", "a.md")).toThrow(
      "a.md:2: a `python` block can be neither run nor checked: mark it <!-- illustrative --> or use sh, js, ts, toml or json",
    );
    expect(() => extractBlocks("```sh\nls\n", "b.md")).toThrow("b.md:1: the code block is never closed");
  });
});

describe("output blocks", () => {
  it("a json block after <!-- output --> points at the js/ts block above it", () => {
    const text = "```js\nconsole.log(1)\n```\n\n<!-- output -->\n```json\n1\n```\n";
    const blocks = extractBlocks(text, "c.md");
    expect(blocks.map((b) => [b.where, b.mode, b.outputOf])).toEqual([
      ["c.md:1", "js", undefined],
      ["c.md:6", "output", "c.md:1"],
    ]);
    expect(() => extractBlocks("<!-- output -->\n```json\n1\n```\n", "d.md")).toThrow(
      "d.md:2: <!-- output --> marks a json block below a js or ts block that prints it",
    );
  });
});

describe("shellCommands", () => {
  it("gives each command its line and expected exit code; only a comment starting with `exit N` sets it", () => {
    const [block] = extractBlocks(md, "doc.md");
    expect(shellCommands(block!).map(({ line, exit }) => [line, exit])).toEqual([
      [4, 0],
      [7, 3],
      [8, 0],
      [9, 0],
    ]);
    expect(shellCommands(block!)[3]!.command).toBe('toolgate call shell \n  \'{"command":"ls"}\'');
  });
});
