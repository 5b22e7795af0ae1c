/**
 * @module policy/shell/parser
 * Loads the bash grammar (tree-sitter-bash, WASM) into web-tree-sitter once per process and hands out a
 * ready parser. Everything else in `policy/shell` parses through here.
 */
import { createRequire } from "node:module";
import { Language, Parser } from "web-tree-sitter";

let loading: Promise<Parser> | undefined;
let ready: Parser | undefined;

/**
 * Loads the WASM runtime and the bash grammar (once; later calls return the same parser).
 * @example const parser = await loadBashParser(); const tree = parser.parse("ls -la");
 */
export function loadBashParser(): Promise<Parser> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    await Parser.init();
    const language = await Language.load(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
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
