/**
 * @module tools/web/searxng
 * The SearXNG backend: a self-hosted metasearch instance's JSON API (`GET /search?q=...&format=json`). The
 * instance must list `json` under `search.formats` in its settings.yml, or it answers 403.
 */
import { NetError } from "../../net/index.js";
import {
  type BackendHttp,
  backendRequest,
  htmlToText,
  type SearchBackend,
  SearchError,
  type SearchResult,
} from "./search-backend.js";

interface SearxngResponse {
  results?: Array<{ url?: unknown; title?: unknown; content?: unknown }>;
}

/** Parses a SearXNG JSON response. Throws SearchError when it is not one. */
export function parseSearxng(text: string, endpoint: string): SearchResult[] {
  let data: SearxngResponse;
  try {
    data = JSON.parse(text) as SearxngResponse;
  } catch {
    throw new SearchError(`SearXNG at ${endpoint} did not return JSON`, endpoint);
  }
  if (!data || !Array.isArray(data.results)) {
    throw new SearchError(`SearXNG at ${endpoint} returned JSON without a "results" list`, endpoint);
  }
  const out: SearchResult[] = [];
  for (const r of data.results) {
    if (typeof r?.url !== "string" || !/^https?:\/\//i.test(r.url)) continue;
    const title = typeof r.title === "string" ? htmlToText(r.title) : "";
    out.push({
      title: title || r.url,
      url: r.url,
      snippet: typeof r.content === "string" ? htmlToText(r.content) : "",
    });
  }
  return out;
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
