import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

/**
 * Two projects. `system`: test files that start processes or servers — the real binary, bwrap, tmux, git, model
 * and web servers on loopback, or a whole gate that may run the shell. `unit`: the rest, in-process. A file is
 * sorted by what its source uses (SYSTEM_MARKERS), so a new test lands in the right project without a list to
 * keep. `vitest run` runs both; with `TOOLGATE_TESTS=system+smoke` the unit project is only the SMOKE files —
 * what `.ci/run` runs again on Node 24, where what differs between Node versions (processes, sockets, fetch,
 * the file system) shows. `vitest run --project unit` runs the quick half alone.
 */
const SYSTEM_MARKERS =
  /node:child_process|test-support\/(cli|cli-server|tmux|web-servers)|model-server|startServer|createToolgate\(|sandbox\/|bwrap/;

/** Unit files Node 24 runs too: the pipeline, the policy engine, config loading and the shell analysis. */
const SMOKE = [
  "src/core/execute.test.ts",
  "src/policy/evaluate.test.ts",
  "src/policy/load.test.ts",
  "src/policy/shell/analyze.test.ts",
  "src/config/defaults.test.ts",
  "src/tools/read-file.test.ts",
];

function testFiles(): string[] {
  return readdirSync("src", { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".test.ts"))
    .map((entry) => join(entry.parentPath, entry.name));
}

const system = testFiles().filter(
  (file) => file.startsWith(join("src", "e2e")) || SYSTEM_MARKERS.test(readFileSync(file, "utf8")),
);

const smokeOnly = process.env["TOOLGATE_TESTS"] === "system+smoke";
if (process.env["TOOLGATE_TESTS"] !== undefined && !smokeOnly)
  throw new Error(`TOOLGATE_TESTS=${process.env["TOOLGATE_TESTS"]}: the one set it names is "system+smoke"`);

export default defineConfig({
  test: {
    // Time-outs only catch a hang: they are sized for a 2-core machine running two suites at once (where a
    // test that starts the real binary a few times took over 30 s), not for a quiet one. Tests wait for
    // state, never for the clock, so a generous bound costs nothing when they pass.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two cores on CI: keep parallelism modest so process-heavy tests do not starve each other.
    maxWorkers: 2,
    globalSetup: ["./src/test-support/global-setup.ts"],
    projects: [
      {
        extends: true,
        test: { name: "unit", include: smokeOnly ? SMOKE : ["src/**/*.test.ts"], exclude: system },
      },
      { extends: true, test: { name: "system", include: system } },
    ],
  },
});
