/**
 * Preloaded with `node --import` by cli/modules.test.ts: records the URL of every ES module Node loads
 * (a loader hook, which runs in its own thread) and the path of every CommonJS module `require` loads, one
 * per line, into the file named by `TOOLGATE_MODULE_LOG`.
 */
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
import { isMainThread } from "node:worker_threads";

const log = process.env.TOOLGATE_MODULE_LOG;

/** Loader hook (hooks thread): every ES module, and CommonJS files loaded through `import`. */
export async function load(url, context, next) {
  if (log) appendFileSync(log, `${url}\n`);
  return next(url, context);
}

if (isMainThread && log) {
  register(import.meta.url);
  const Module = createRequire(import.meta.url)("node:module");
  const original = Module._load;
  Module._load = function recordingLoad(request, parent, isMain) {
    const exports = original.call(this, request, parent, isMain);
    try {
      appendFileSync(log, `require:${Module._resolveFilename(request, parent)}\n`);
    } catch {
      // a built-in module or one resolved some other way: not a file
    }
    return exports;
  };
}
