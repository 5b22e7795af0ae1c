/**
 * @module tools/web
 * Front door of the web tools' helpers: search backends (and the config they are built from) and HTML to
 * Markdown. Everything exported here is public; anything added is public too.
 */
export { BRAVE_URL } from "./brave.js";
export { type ContentClass, classify, decodeBody } from "./content.js";
export { createSearchBackend, type SearchBackendOptions, type SearchConfig } from "./create-backend.js";
export { DUCKDUCKGO_URL } from "./duckduckgo.js";
export { type MarkdownPage, type PageOptions, pageToMarkdown, SelectorError } from "./html.js";
export {
  type SearchBackend,
  SearchError,
  type SearchRequest,
  type SearchResult,
} from "./search-backend.js";
