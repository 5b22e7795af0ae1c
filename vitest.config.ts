import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

/**
 * Three projects. `system`: test files that start processes or servers — the real binary, bwrap, tmux, git, model
 * and web servers on loopback, or a whole gate that may run the shell. `unit`: the rest, in-process. A file is
 * sorted by what its source uses (SYSTEM_MARKERS), so a new test lands in the right project without a list to
 * keep. `vitest run` runs both; `vitest run --project unit` runs the quick half alone. Both share workers
 * between files (`isolate: false`, with unit-leaks.ts's check); `fresh` holds the system files that need a
 * process of their own (FRESH_PROCESS, and the sandbox's files).
 *
 * `TOOLGATE_TESTS=runtime` runs only RUNTIME and SMOKE: what `.ci/run` runs again on Node 24. Node 20 has run
 * everything by then; a second Node version can only break where toolgate meets the runtime, so the set is one
 * or two cheap files per such seam, not every system file again (that took 11 of CI's 25 minutes).
 */
const SYSTEM_MARKERS =
  /node:child_process|test-support\/(cli|cli-server|tmux|web-servers)|model-server|startServer|createToolgate\(|sandbox\/|bwrap/;

/**
 * The system files Node 24 runs: one or two per place where toolgate meets the runtime, each real (a spawned
 * process, bwrap, a socket), chosen cheap. A seam added to toolgate adds its file here.
 */
const RUNTIME = [
  // The built binary spawned; the library, the binary and `toolgate mcp` over stdio agreeing on one call.
  "src/cli/version.test.ts",
  "src/e2e/entry-points.e2e.test.ts",
  // A whole gate through the pipeline's file tools (ESM loading of the package's own modules, fs).
  "src/e2e/files.e2e.test.ts",
  // Child processes: process groups and their signals, background processes, a terminal's SIGTERM/SIGHUP.
  "src/tools/shell/process-group.test.ts",
  "src/tools/shell/background.test.ts",
  "src/cli/chat/termination.test.ts",
  // bwrap: descriptors passed to the sandbox and checked inside; grants through the real pipeline.
  "src/sandbox/verify.test.ts",
  "src/sandbox/grants.test.ts",
  // MCP over stdio with the SDK's client, a server's children killed with it.
  "src/mcp-client/stdio-transport.test.ts",
  // HTTP: fetch with its limits and decompression, model clients streaming from a server on loopback, the
  // console's server (hono on node:http), Redis's client on a real redis-server.
  "src/net/safe-fetch.test.ts",
  "src/tools/web-fetch.test.ts",
  "src/llm/providers.test.ts",
  "src/console/access.test.ts",
  "src/toolgate-fleet.test.ts",
  // Native and WebAssembly modules built per Node ABI: tree-sitter, node-llama-cpp, ripgrep's binary.
  "src/policy/shell/tree-sitter.test.ts",
  "src/llm/local.test.ts",
  "src/tools/files/grep-backends.test.ts",
  // Async context carried across awaits (telemetry spans).
  "src/telemetry/spans.test.ts",
];

/**
 * System files that keep a process of their own (vitest's default isolation), where the others share workers:
 * their tests check what a fresh process has loaded. The sandbox's files keep theirs too (they change HOME
 * and hold mounts' placeholders per process; as tgtest, vitest.sandbox.config.ts, they run isolated as well).
 */
const FRESH_PROCESS = [
  // The bash grammar is loaded once per process: the test checks that nothing loaded it before.
  "src/policy/shell/parser.test.ts",
];

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

const fresh = system.filter(
  (file) => file.startsWith(join("src", "sandbox")) || FRESH_PROCESS.includes(file),
);

const runtimeOnly = process.env["TOOLGATE_TESTS"] === "runtime";
if (process.env["TOOLGATE_TESTS"] !== undefined && !runtimeOnly)
  throw new Error(`TOOLGATE_TESTS=${process.env["TOOLGATE_TESTS"]}: the one set it names is "runtime"`);
// A renamed or deleted file would silently leave its seam untested on Node 24: fail instead.
for (const file of [...RUNTIME, ...SMOKE]) {
  if (!existsSync(file)) throw new Error(`vitest.config.ts names ${file}, which does not exist`);
  const project = system.includes(join(file)) ? "system" : "unit";
  if ((project === "system") !== RUNTIME.includes(file))
    throw new Error(
      `vitest.config.ts: ${file} is a ${project} file; RUNTIME lists system files, SMOKE unit files`,
    );
}

export default defineConfig({
  // Where vitest keeps each file's last duration, by which it starts the longest files first (a long file
  // started last keeps one worker busy alone at the end). `.ci/run` points it outside the checkout, which each
  // CI run makes afresh; without it, node_modules/.vite as usual.
  ...(process.env["TOOLGATE_VITEST_CACHE"] ? { cacheDir: process.env["TOOLGATE_VITEST_CACHE"] } : {}),
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
        test: {
          name: "unit",
          include: runtimeOnly ? SMOKE : ["src/**/*.test.ts"],
          exclude: system,
          // In-process files share a worker and its loaded modules (each file is still imported afresh):
          // a fresh process per file spent most of the project's time loading the same modules again
          // (CPU 316 s → 119 s for the 151 files, side by side). A unit file must leave no state behind —
          // no process.env, cwd or timer change it does not undo (unit-leaks.ts fails a file that does).
          // No file is excluded from this.
          isolate: false,
          setupFiles: ["./src/test-support/unit-leaks.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "system",
          include: runtimeOnly ? RUNTIME : system,
          exclude: fresh,
          // Shared workers, as for unit files, with the same leak check: a process per file spent ~1.5 CPU s
          // starting a worker and loading the same modules again before its first test (40 short system files:
          // CPU 107 s → 47 s). A file whose test needs a process no other file used first is in FRESH_PROCESS.
          isolate: false,
          setupFiles: ["./src/test-support/unit-leaks.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "fresh",
          include: runtimeOnly ? RUNTIME.filter((file) => fresh.includes(join(file))) : fresh,
        },
      },
    ],
  },
});
