/**
 * @module tools/web/searxng
 * The SearXNG backend: a self-hosted metasearch instance's JSON API (`GET /search?q=...&format=json`). The
 * instance must list `json` under `search.formats` in its settings.yml, or it answers 403.
 */
import { NetError } from "../../net/index.js";
import {
  type BackendHttp,
  backendRequest,
  jsonResults,
  parseJsonAnswer,
  type SearchBackend,
  SearchError,
  type SearchResult,
} from "./search-backend.js";

interface SearxngResponse {
  results?: Array<{ url?: unknown; title?: unknown; content?: unknown }>;
}

/** Parses a SearXNG JSON response. Throws SearchError when it is not one. */
export function parseSearxng(text: string, endpoint: string): SearchResult[] {
  const data = parseJsonAnswer(text, "SearXNG", endpoint) as SearxngResponse | null;
  if (!data || !Array.isArray(data.results)) {
    throw new SearchError(`SearXNG at ${endpoint} returned JSON without a "results" list`, endpoint);
  }
  return jsonResults(data.results, "content");
}

/** Creates the SearXNG backend for the instance at `base` (a path prefix such as `/searx/` is kept). */
export function createSearxngBackend(base: URL, http: BackendHttp): SearchBackend {
  const root = base.href.endsWith("/") ? base.href : `${base.href}/`;
  return {
    name: "searxng",
    async search({ query, numResults, signal }) {
      const url = new URL("search", root);
      url.search = new URLSearchParams({ q: query, format: "json", pageno: "1" }).toString();
      try {
        const res = await backendRequest(url.href, http, signal, { accept: "application/json" });
        return parseSearxng(res.body.toString("utf8"), root).slice(0, numResults);
      } catch (error) {
        if (error instanceof NetError && error.status === 403) {
          throw new SearchError(
            `SearXNG at ${root} refused the JSON format (HTTP 403): add "json" to search.formats in its settings.yml`,
            url.href,
          );
        }
        throw error;
      }
    },
  };
}
