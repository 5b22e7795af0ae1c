/**
 * @module policy/shell/parser
 * Loads the bash grammar (tree-sitter-bash, WASM) into web-tree-sitter once per process and hands out a
 * ready parser. Everything else in `policy/shell` parses through here. The package ships the grammar and the
 * runtime's own `.wasm` as files (`dist/policy/shell/grammar/`, copied there by the build with their
 * licenses); in a source checkout they come from the `tree-sitter-bash` and `web-tree-sitter` dev
 * dependencies.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { Parser } from "./tree-sitter.js";

/** Where the shipped files are: beside this module (tsc layout), or from the bundled command (`dist/bin/`). */
const SHIPPED = ["./grammar/", "../policy/shell/grammar/"];

/** A shipped file's path, else the dev dependency's (`package/file`). */
function shippedOr(file: string, devPath: string): string {
  for (const relative of SHIPPED) {
    const path = fileURLToPath(new URL(relative + file, import.meta.url));
    if (existsSync(path)) return path;
  }
  return createRequire(import.meta.url).resolve(devPath);
}

/** The grammar's path: the shipped copy, else the dev dependency's. */
export function bashGrammarPath(): string {
  return shippedOr("tree-sitter-bash.wasm", "tree-sitter-bash/tree-sitter-bash.wasm");
}

/** The WASM runtime's own module: named explicitly, as the bundled command moves the runtime's JS. */
function runtimeWasmPath(): string {
  return shippedOr("tree-sitter.wasm", "web-tree-sitter/tree-sitter.wasm");
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
    const { Language, Parser } = await import("./tree-sitter.js");
    const wasm = runtimeWasmPath();
    await Parser.init({ locateFile: () => wasm });
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
