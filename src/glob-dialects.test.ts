/**
 * toolgate's two glob dialects (src/utils/glob.ts), each pattern form run through every caller of each:
 * a pattern means the same in a rule's `tool`, an agent's `tools`, a rule's `when … glob` on text, and the
 * grep and glob tools' file patterns (the name dialect), and in a rule's `when.path glob` (gitignore's).
 * The cases are data: src/utils/testdata/glob-dialects.json.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileToolPattern } from "./core/index.js";
import { textPlugin } from "./policy/conditions/text.js";
import { createPathKind } from "./policy/index.js";
import { fileFilterFor } from "./tools/grep.js";
import { compileGlob } from "./utils/index.js";

interface Case {
  note: string;
  glob: string;
  value: string;
  want: { name: boolean; gitignore: boolean };
}
const TABLE = JSON.parse(
  readFileSync(new URL("./utils/testdata/glob-dialects.json", import.meta.url), "utf8"),
) as { cases: Case[]; malformed: { glob: string; reason: string }[] };

const pathKind = createPathKind(async (raw) => ({ relative: raw, canonical: `/w/${raw}` }));

/** Every caller of the name dialect, each as `glob → value → matches`. */
const NAME_CALLERS: Record<string, (glob: string) => ((value: string) => boolean) | undefined> = {
  compileGlob: (glob) => compileGlob(glob),
  "a rule's tool, an agent's tools": (glob) => {
    const pattern = compileToolPattern(glob);
    return (value) => pattern.test(value);
  },
  "when … glob on text": (glob) => {
    const test = textPlugin.operators.glob!(glob);
    return (value) => test(value, "allow") === true;
  },
  // grep matches a slash-free filePattern against the file's name alone: here, only where that is the value.
  "grep's filePattern": (glob) => {
    const filter = fileFilterFor(glob);
    return (value) => filter(value);
  },
};

describe("the name dialect", () => {
  for (const c of TABLE.cases) {
    it(`${c.note}: ${c.glob} on ${c.value} is ${c.want.name} for every caller`, () => {
      const got: Record<string, boolean> = {};
      for (const [caller, compile] of Object.entries(NAME_CALLERS)) {
        if (caller === "grep's filePattern" && !c.glob.includes("/") && c.value.includes("/")) continue;
        // A tool name has no slash (and a lone `*` is every tool).
        if (caller === "a rule's tool, an agent's tools" && c.value.includes("/")) continue;
        got[caller] = compile(c.glob)!(c.value);
      }
      const want = Object.fromEntries(Object.keys(got).map((caller) => [caller, c.want.name]));
      expect(got).toEqual(want);
    });
  }

  it("refuses a malformed glob in every caller, with the reason", () => {
    for (const { glob, reason } of TABLE.malformed) {
      for (const [caller, compile] of Object.entries(NAME_CALLERS))
        expect(() => compile(glob), `${caller}: ${glob}`).toThrow(reason);
    }
  });
});

describe("the gitignore dialect", () => {
  for (const c of TABLE.cases) {
    it(`${c.note}: ${c.glob} on ${c.value} is ${c.want.gitignore} for when.path glob`, () => {
      const test = pathKind.operators.glob!(c.glob);
      expect(test({ ok: true, relative: c.value, canonical: `/w/${c.value}` }, "allow")).toBe(
        c.want.gitignore,
      );
    });
  }
});
