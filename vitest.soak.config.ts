import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

/**
 * Soak tests: long runs outside the suite (`npm run soak`), not skipped inside it. The fleet's chaos run at the
 * issue's size (8 workers × 1,000 lifecycles) is here; its CI-sized run is src/fleet/chaos.test.ts.
 */
export default defineConfig({
  ...base,
  test: { ...base.test, projects: undefined, include: ["src/**/*.soak.ts"] },
});
