/**
 * @module tools/web/brave
 * The Brave Search API backend (`GET /res/v1/web/search`, key in the `X-Subscription-Token` header). The key
 * is read from an environment variable at each search, so a missing key fails that search, not startup.
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

/** The web search endpoint. */
export const BRAVE_URL = "https://api.search.brave.com/res/v1/web/search";

interface BraveResponse {
  web?: { results?: Array<{ title?: unknown; url?: unknown; description?: unknown }> };
}

/** Parses a Brave web search response (results under `web.results`; none when `web` is absent). */
export function parseBrave(text: string, endpoint: string): SearchResult[] {
  const data = parseJsonAnswer(text, "Brave Search", endpoint) as BraveResponse | null;
  return jsonResults(data?.web?.results ?? [], "description");
}

/** Creates the Brave backend; the key comes from `env[apiKeyEnv]`, `url` overrides the endpoint. */
export function createBraveBackend(
  url: URL | undefined,
  apiKeyEnv: string,
  env: Readonly<Record<string, string | undefined>>,
  http: BackendHttp,
): SearchBackend {
  const endpoint = url?.href ?? BRAVE_URL;
  return {
    name: "brave",
    async search({ query, numResults, signal }) {
      const key = env[apiKeyEnv]?.trim();
      if (!key) {
        throw new SearchError(
          `Brave Search needs an API key: set the environment variable ${apiKeyEnv} (search.api_key_env)`,
          endpoint,
        );
      }
      const target = new URL(endpoint);
      target.searchParams.set("q", query);
      target.searchParams.set("count", String(Math.min(20, numResults)));
      try {
        const res = await backendRequest(target.href, http, signal, {
          accept: "application/json",
          headers: { "x-subscription-token": key },
        });
        return parseBrave(res.body.toString("utf8"), endpoint).slice(0, numResults);
      } catch (error) {
        if (error instanceof NetError && (error.status === 401 || error.status === 403)) {
          throw new SearchError(
            `Brave Search rejected the API key from ${apiKeyEnv} (HTTP ${error.status})`,
            endpoint,
          );
        }
        if (error instanceof NetError && error.status === 429) {
          throw new SearchError("Brave Search rate limit reached (HTTP 429); try again later", endpoint);
        }
        throw error;
      }
    },
  };
}
