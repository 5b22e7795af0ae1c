import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two cores on CI: keep parallelism modest so process-heavy tests do not starve each other.
    maxWorkers: 2,
    globalSetup: ["./src/test-support/global-setup.ts"],
  },
});
