/**
 * @module policy/shell/tree-sitter
 * The one import of the `web-tree-sitter` WASM runtime. In a source checkout it is the installed package;
 * the build replaces this file in `dist/` with the package's own ES module (its runtime `.wasm` and
 * license go to `dist/policy/shell/grammar/`), so the installed package carries the two files it runs
 * instead of the whole package with its debug builds, C sources and source maps.
 */

export type { Node } from "web-tree-sitter";
export { Language, Parser } from "web-tree-sitter";
