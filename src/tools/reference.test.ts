/**
 * `docs/tools.md` shows the tool reference generated from the built-in tools' own declarations (schema, kind,
 * risk, argument kinds) and `reference-notes.json`: this test fails when the page is stale.
 * `UPDATE_DOCS=1 npx vitest run src/tools/reference.test.ts` rewrites the section.
 */
import { readFile, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool, okResult, type Tool } from "../core/index.js";
import { type EveryTool, everyTool } from "../test-support/every-tool.js";
import { type ReferenceNotes, toolReference } from "./reference.js";
import NOTES from "./reference-notes.json" with { type: "json" };

const page = new URL("../../docs/tools.md", import.meta.url);
const START =
  "<!-- tool-reference:start (generated from the tools' schemas and src/tools/reference-notes.json) -->";
const END = "<!-- tool-reference:end -->";

let every: EveryTool;
let tools: Tool[];

beforeAll(async () => {
  // Through createToolgate, as a user gets them, Jira and Confluence configured so the page shows every tool.
  every = await everyTool("tg-reference-");
  tools = every.tools;
});
afterAll(async () => {
  await every.close();
});

describe("docs/tools.md tool reference", () => {
  it("matches the tools", async () => {
    const text = await readFile(page, "utf8");
    const from = text.indexOf(START);
    const to = text.indexOf(END);
    expect(from, "docs/tools.md lacks the tool-reference markers").toBeGreaterThan(-1);
    const want = `${START}\n${toolReference(tools, NOTES as ReferenceNotes)}\n${END}`;
    if (process.env.UPDATE_DOCS === "1") {
      await writeFile(page, text.slice(0, from) + want + text.slice(to + END.length));
      return;
    }
    expect(text.slice(from, to + END.length)).toBe(want);
  });

  it("lists every built-in tool, Jira and Confluence included", () => {
    const names = new Set(tools.map((t) => t.name));
    expect(names.has("jira_fetch") && names.has("confluence_fetch")).toBe(true);
    for (const name of names)
      expect(toolReference(tools, NOTES as ReferenceNotes)).toContain(`### \`${name}\``);
  });
});

describe("toolReference", () => {
  const echo = defineTool<{ text: string; times?: number }>({
    name: "echo",
    description: "Echoes text.",
    kind: "think",
    risk: "low",
    argKinds: { text: "text" },
    parameters: {
      type: "object",
      properties: {
        text: { type: "string", minLength: 1, description: "What to echo." },
        times: { type: "integer", minimum: 1, maximum: 9, description: "How often (default 1)." },
        mode: { type: "string", enum: ["loud", "soft"], default: "soft", description: "How." },
        parts: {
          type: "array",
          minItems: 1,
          items: { type: "object", properties: { at: { type: "integer" } }, required: ["at"] },
        },
      },
      required: ["text"],
    },
    run: async ({ text }) => okResult(text),
  }) as unknown as Tool;
  const notes: ReferenceNotes = {
    sections: [{ title: "Test", intro: "For tests.", tools: ["echo"] }],
    tools: { echo: { touches: "nothing", risk: "never more" } },
  };

  it("renders a parameter's type, bounds, requirement and default", () => {
    const text = toolReference([echo], notes);
    expect(text).toContain("| [`echo`](#echo) | think | low | nothing |");
    expect(text).toContain("- **Kind** `think` · **risk** `low`; never more");
    expect(text).toContain("| `text` | string, not empty | yes |  | What to echo. |");
    expect(text).toContain("| `times` | integer 1–9 |  | 1 | How often (default 1). |");
    expect(text).toContain('| `mode` | one of `"loud"`, `"soft"` |  | `"soft"` | How. |');
    expect(text).toContain("| `parts` | array of objects (below), at least 1 |  |  |  |");
    expect(text).toContain("| `parts[].at` | integer | yes |  |  |");
  });

  it.each([
    [{ sections: [{ title: "T", intro: "", tools: ["echo"] }], tools: {} }, "echo has no note"],
    [{ sections: [], tools: { echo: { touches: "x" } } }, "echo is in no section"],
    [
      { sections: [{ title: "T", intro: "", tools: ["echo", "ghost"] }], tools: { echo: { touches: "x" } } },
      "ghost is not a tool",
    ],
  ])("refuses incomplete notes (%#)", (bad, message) => {
    expect(() => toolReference([echo], bad as ReferenceNotes)).toThrow(message);
  });
});
