import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // Time-outs only catch a hang: they are sized for a 2-core machine running two suites at once (where a
    // test that starts the real binary a few times took over 30 s), not for a quiet one. Tests wait for
    // state, never for the clock, so a generous bound costs nothing when they pass.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two cores on CI: keep parallelism modest so process-heavy tests do not starve each other.
    maxWorkers: 2,
    globalSetup: ["./src/test-support/global-setup.ts"],
  },
});
