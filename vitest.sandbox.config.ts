import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

/**
 * The sandbox's tests as a user that is not root (root inside a sandbox hides real breaks: it reads folders a
 * user cannot). `.ci/run` runs them as `tgtest` after building dist/ as root; locally:
 * `runuser -u tgtest -- env TOOLGATE_TEST_PREBUILT=1 npx vitest run --configLoader runner --config vitest.sandbox.config.ts`
 * (`runner`: the config is loaded without writing next to it, which the user may not).
 */
export default defineConfig({
  ...base,
  cacheDir: join(tmpdir(), `toolgate-vitest-${process.getuid?.() ?? "user"}`),
  // One plain project: the base config's unit/system projects would each bring back their own includes.
  test: {
    ...base.test,
    projects: undefined,
    include: ["src/sandbox/**/*.test.ts", "src/approvals/private-folder.test.ts"],
  },
});
