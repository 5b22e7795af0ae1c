/**
 * @module tools/web/turndown
 * The one import of the `turndown` HTML-to-Markdown library. In a source checkout it is the installed
 * package; the build replaces this file in `dist/` with a self-contained copy of turndown (its license
 * beside it) in which the `@mixmark-io/domino` HTML parser is left out: toolgate always hands turndown
 * nodes of a linkedom document, never HTML text, and domino alone was 7.5 MB of the installed package.
 */
export { default } from "turndown";
