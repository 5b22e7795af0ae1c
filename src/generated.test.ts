/**
 * Every source file generated from another copy of a fact, each beside its generator: a test fails while
 * one is stale, and `npm run generate` (this file with `UPDATE_GENERATED=1`) rewrites them all. To add a
 * generated file, add a row here and a line to docs/contributing.md ("Generated files").
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error a plain ES module script, without declarations
import { VERSION_MODULE, versionModule } from "../scripts/version.mjs";
import { DEFAULTS_MODULE, defaultsModule } from "./config/defaults-source.js";
import { standaloneValidators } from "./core/precompile.js";
import { allBuiltinTools } from "./test-support/builtin-tools.js";
import { REPO_ROOT } from "./test-support/cli.js";

interface Generated {
  /** The file, from the repository's root. */
  file: string;
  /** What it says it comes from (shown in the failure). */
  from: string;
  /** Its source as the generator writes it now. */
  source: () => Promise<string>;
}

const GENERATED: Generated[] = [
  {
    file: VERSION_MODULE as string,
    from: "package.json's version",
    source: async () =>
      (versionModule as (text: string) => string)(await readFile(join(REPO_ROOT, "package.json"), "utf8")),
  },
  { file: DEFAULTS_MODULE, from: "the config schema's defaults", source: async () => defaultsModule() },
  {
    file: "src/core/builtin-validators.generated.ts",
    from: "the built-in tools' schemas",
    source: async () => {
      const builtins = await allBuiltinTools();
      try {
        return standaloneValidators(builtins.tools);
      } finally {
        await builtins.close();
      }
    },
  },
];

describe("generated files", () => {
  for (const { file, from, source } of GENERATED) {
    it(`${file} is current with ${from}`, async () => {
      const path = join(REPO_ROOT, file);
      const want = await source();
      if (process.env.UPDATE_GENERATED === "1") await writeFile(path, want);
      const got = await readFile(path, "utf8").catch(() => "(missing)");
      expect(got === want, `${file} is stale: run \`npm run generate\``).toBe(true);
    });
  }
});
