/**
 * toolgate sends HTTP through one path (`net/http.ts`: `httpRequest`, and `safeFetch` on it), so every request
 * has the same redirect checks, timeouts and typed failures. A bare `fetch(` in shipped code would be a
 * second path: this test finds them. Tests are not read (they talk to their own servers on loopback).
 */
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../test-support/cli.js";

/** The files that may call `fetch` themselves, and why. */
const ALLOWED: Record<string, string> = {
  "src/console/page/session.ts":
    "the console's page runs in the browser: same-origin requests to its own console server, no Node HTTP stack",
  "src/console/page/login.ts": "the console's sign-in page, in the browser: one same-origin request",
  "src/bench/web.bench.ts": "a benchmark's anchor: the plain client the web tools are measured against",
  "src/bench/loop.bench.ts": "a benchmark's anchor: a plain request to the same model server",
  "src/bench/console-scale.bench.ts":
    "a benchmark's anchor page, in the browser: a same-origin request for the filtered rows, as the console's page makes",
};

/** Code without comments, so a doc comment that says `fetch(` is not a call. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");

async function sources(): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(REPO_ROOT, "src"), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.ts$/.test(entry.name) || /\.(test|d)\.ts$/.test(entry.name)) continue;
    const path = relative(REPO_ROOT, join(entry.parentPath, entry.name));
    if (path.startsWith("src/test-support/") || path.includes("/testdata/")) continue;
    out.push(path);
  }
  return out;
}

describe("one HTTP path", () => {
  it("no shipped file calls fetch( but the allowed ones", async () => {
    const found: string[] = [];
    for (const path of await sources()) {
      // `fetch(` or `globalThis.fetch(`, not `safeFetch(` or a method `x.fetch(`.
      if (
        /(?<![\w$.])fetch\s*\(|globalThis\.fetch\b/.test(code(await readFile(join(REPO_ROOT, path), "utf8")))
      )
        found.push(path);
    }
    expect(found.sort()).toEqual(Object.keys(ALLOWED).sort());
  });
});
