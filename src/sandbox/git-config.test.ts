/** The git config reader against git's own reading (testdata/git-config.json), case by case. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseGitConfig } from "./git-config.js";

interface Case {
  note: string;
  text: string;
  want: [string, string | null, string, string][];
}
const here = dirname(fileURLToPath(import.meta.url));
const { cases } = JSON.parse(readFileSync(join(here, "testdata", "git-config.json"), "utf8")) as {
  cases: Case[];
};

describe("parseGitConfig", () => {
  it.each(cases.map((c) => [c.note, c] as const))("%s", async (_note, c) => {
    const got = parseGitConfig(c.text).map((e) => [e.section, e.subsection ?? null, e.key, e.value]);
    expect(got).toEqual(c.want);
    // Where git itself can read the text, it reads the same values.
    const dir = await mkdtemp(join(tmpdir(), "toolgate-gitconfig-"));
    try {
      await writeFile(join(dir, "config"), c.text);
      let listed: string;
      try {
        listed = execFileSync("git", ["config", "--file", join(dir, "config"), "--list", "-z"], {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "ignore"],
        });
      } catch {
        return; // git refuses the text (the malformed cases): only our reading counts.
      }
      // `key\nvalue`, or `key` alone for a key without a value (which git reads as true).
      const values = listed
        .split("\0")
        .filter(Boolean)
        .map((line) => (line.includes("\n") ? line.slice(line.indexOf("\n") + 1) : "true"));
      expect(got.map((e) => e[3])).toEqual(values);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
