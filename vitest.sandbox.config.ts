import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.js";

/**
 * The sandbox's tests as a user that is not root (root inside a sandbox hides real breaks: it reads folders a
 * user cannot). `.ci/run` runs them as `tgtest` after building dist/ as root; locally:
 * `runuser -u tgtest -- npx vitest run --config vitest.sandbox.config.ts`.
 */
export default mergeConfig(
  base,
  defineConfig({
    cacheDir: join(tmpdir(), `toolgate-vitest-${process.getuid?.() ?? "user"}`),
    // dist/ is built beforehand by the checkout's owner: run with TOOLGATE_TEST_PREBUILT=1.
    test: { include: ["src/sandbox/**/*.test.ts"] },
  }),
);
