/**
 * The built-in policy is data (`builtin/*.toml`): the engine builds its default from those files, `toolgate
 * init` writes their text, and the build ships them beside the compiled module.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../test-support/cli.js";
import { DEFAULT_READ_ASK_PATTERNS } from "../workspace/index.js";
import { BUILTIN_DEFAULT_DECISION, BUILTIN_RULES, builtinPolicyText, sensitiveReadRules } from "./default.js";

const source = (name: string) => readFile(join(REPO_ROOT, "src", "policy", "builtin", name), "utf8");

describe("the built-in policy files", () => {
  it("are what the engine's rules and default decision come from", async () => {
    const file = parse(await source("default.toml")) as { default: string; rules: unknown[] };
    expect(BUILTIN_RULES).toEqual(file.rules);
    expect(BUILTIN_DEFAULT_DECISION).toBe(file.default);
  });

  it("write the list of files that may hold secrets where the sensitive-read rules say @sensitive-files", () => {
    const rules = sensitiveReadRules(["*.key", "secrets/"]);
    expect(rules.map((rule) => [rule["name"], rule["when"]])).toEqual([
      ["sensitive-read", { path: { glob: ["*.key", "secrets/"] } }],
      ["sensitive-read-many", { paths: { glob: ["*.key", "secrets/"] } }],
      ["sensitive-grep", { path: { glob: ["*.key", "secrets/"] } }],
    ]);
  });

  it("as text: the default file, then the sensitive-read rules with the list written out, parsing to the same rules", async () => {
    expect(builtinPolicyText()).toBe(await source("default.toml"));
    const text = builtinPolicyText(DEFAULT_READ_ASK_PATTERNS);
    expect(text).not.toContain('"@sensitive-files"');
    expect(text).toContain("# ...except files that may hold secrets");
    const parsed = parse(text) as { default: string; rules: unknown[] };
    expect(parsed.default).toBe(BUILTIN_DEFAULT_DECISION);
    expect(parsed.rules).toEqual([...BUILTIN_RULES, ...sensitiveReadRules(DEFAULT_READ_ASK_PATTERNS)]);
  });

  it("are shipped in dist, where the built module reads them", async () => {
    const built = join(REPO_ROOT, "dist", "policy", "default.js");
    const dist = (await import(pathToFileURL(built).href)) as typeof import("./default.js");
    expect(dist.builtinPolicyText(DEFAULT_READ_ASK_PATTERNS)).toBe(
      builtinPolicyText(DEFAULT_READ_ASK_PATTERNS),
    );
    expect(await readFile(join(REPO_ROOT, "dist", "policy", "builtin", "sensitive-read.toml"), "utf8")).toBe(
      await source("sensitive-read.toml"),
    );
  });
});
