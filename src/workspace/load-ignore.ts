/**
 * @module workspace/load-ignore
 * Loads the `ignore` package through `require`: importing this CommonJS file from ESM makes Node parse it for
 * named exports, which costs several megabytes of memory in every process; `require` does not.
 */
import { createRequire } from "node:module";
import type ignoreFactory from "ignore";

const require = createRequire(import.meta.url);

/** The `ignore` factory: `ignore({ ignorecase }).add(patterns).ignores(path)`. */
export const ignore = require("ignore") as typeof ignoreFactory;
export type { Ignore } from "ignore";
