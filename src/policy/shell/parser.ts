/**
 * @module policy/shell/parser
 * Loads the bash grammar (tree-sitter-bash, WASM) into web-tree-sitter once per process and hands out a
 * ready parser. Everything else in `policy/shell` parses through here. The package ships the grammar as a
 * file (`dist/policy/shell/grammar/`, copied there by the build with its license); in a source checkout it
 * comes from the `tree-sitter-bash` dev dependency.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { Parser } from "web-tree-sitter";

/** Where the shipped grammar is: beside this module (tsc layout), or from the bundled command (`dist/bin/`). */
const SHIPPED = ["./grammar/tree-sitter-bash.wasm", "../policy/shell/grammar/tree-sitter-bash.wasm"];

/** The grammar's path: the shipped copy, else the dev dependency's. */
export function bashGrammarPath(): string {
  for (const relative of SHIPPED) {
    const path = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(path)) return path;
  }
  return createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
}

let loading: Promise<Parser> | undefined;
let ready: Parser | undefined;

/**
 * Loads the WASM runtime and the bash grammar (once; later calls return the same parser).
 * @example const parser = await loadBashParser(); const tree = parser.parse("ls -la");
 */
export function loadBashParser(): Promise<Parser> {
  loading ??= (async () => {
    // The WASM runtime loads on the first shell analysis, not at start-up.
    const { Language, Parser } = await import("web-tree-sitter");
    await Parser.init();
    const language = await Language.load(bashGrammarPath());
    const parser = new Parser();
    parser.setLanguage(language);
    ready = parser;
    return parser;
  })();
  // A failed load must not poison every later call: let the next caller try again.
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** The loaded parser, or `undefined` before {@link loadBashParser} has finished. */
export function bashParserIfLoaded(): Parser | undefined {
  return ready;
}
