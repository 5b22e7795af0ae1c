/**
 * @module tools/web-search
 * The `web_search` tool: asks the configured search backend and returns a numbered list of title,
 * URL and snippet. Network and backend failures come back as error results, never as exceptions.
 */
import { defineTool, errorResult, okResult, type Tool } from "../core/index.js";
import { NetError } from "../net/index.js";
import { type SearchBackend, SearchError, type SearchResult } from "./web/search-backend.js";

/** Parameters of `web_search`. */
export interface WebSearchParams {
  query: string;
  numResults?: number;
}

/** What `web_search` is built from. */
export interface WebSearchDeps {
  /** The backend, usually from `createSearchBackend(config.search)`. */
  backend: SearchBackend;
  /** Results returned when the call gives no `numResults`. Default 5. */
  defaultResults?: number;
}

/** The most results one call may ask for. */
export const MAX_RESULTS = 20;

/**
 * Formats results as the model sees them: `1. Title\n   URL\n   snippet`, blank line between entries.
 * @example formatResults([{ title: "T", url: "https://t.example/", snippet: "s" }]) // "1. T\n   https://t.example/\n   s"
 */
export function formatResults(results: readonly SearchResult[]): string {
  return results
    .map((r, i) => {
      const lines = [`${i + 1}. ${oneLine(r.title) || r.url}`, `   ${r.url}`];
      const snippet = oneLine(r.snippet);
      if (snippet) lines.push(`   ${snippet}`);
      return lines.join("\n");
    })
    .join("\n\n");
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * Creates the `web_search` tool.
 * @param deps.backend the search backend; `defaultResults` default 5.
 * @example registry.register(createWebSearchTool({ backend: createSearchBackend({ backend: "duckduckgo" }) }))
 */
export function createWebSearchTool(deps: WebSearchDeps): Tool<WebSearchParams> {
  const { backend } = deps;
  const defaultResults = Math.min(MAX_RESULTS, Math.max(1, deps.defaultResults ?? 5));
  return defineTool<WebSearchParams>({
    name: "web_search",
    displayName: "Web Search",
    description:
      "Searches the web and returns a numbered list of results (title, URL, snippet). Use web_fetch to read " +
      `a result. \`numResults\` caps the list (default ${defaultResults}, at most ${MAX_RESULTS}).`,
    parameters: {
      type: "object",
      properties: {
        query: { type: "string", minLength: 1, description: "What to search for." },
        numResults: {
          type: "integer",
          minimum: 1,
          maximum: MAX_RESULTS,
          description: `How many results to return at most (default ${defaultResults}).`,
        },
      },
      required: ["query"],
      additionalProperties: false,
    },
    // The query leaves the machine (to a third-party service), so it is not a read-only kind.
    kind: "fetch",
    risk: "medium",
    validate: (p) => (p.query.trim() === "" ? "query must not be empty" : undefined),
    describe: (p) => `Search the web (${backend.name}) for ${JSON.stringify(p.query)}`,
    confirmation: () => ({ type: "fetch" }),
    async run(params, { signal }) {
      const query = params.query.trim();
      const numResults = params.numResults ?? defaultResults;
      let results: SearchResult[];
      try {
        results = await backend.search({ query, numResults, signal });
      } catch (error) {
        return failure(error, backend.name, query, signal);
      }
      const shown = results.slice(0, numResults);
      if (shown.length === 0) {
        return okResult(`No results for ${JSON.stringify(query)} (${backend.name}).`, "No results", {
          results: [],
        });
      }
      const plural = shown.length === 1 ? "result" : "results";
      const text = `Search results for ${JSON.stringify(query)} (${shown.length} ${plural}, ${backend.name}):\n\n${formatResults(shown)}`;
      return okResult(text, `${shown.length} ${plural} for ${JSON.stringify(query)}`, { results: shown });
    },
  });
}

/** Turns whatever a backend threw into an error result: typed, with the URL and reason. */
function failure(error: unknown, backend: string, query: string, signal: AbortSignal) {
  if (error instanceof NetError) {
    return errorResult(error.type, `web search (${backend}) failed: ${error.message}`, {
      ...error.toDetails(),
    });
  }
  if (error instanceof SearchError) {
    return errorResult("execution_failed", `web search (${backend}) failed: ${error.message}`, {
      ...(error.url ? { url: error.url } : {}),
    });
  }
  if (signal.aborted)
    return errorResult("cancelled", `web search for ${JSON.stringify(query)} was cancelled`);
  const message = error instanceof Error ? error.message : String(error);
  return errorResult("execution_failed", `web search (${backend}) failed: ${message}`);
}
