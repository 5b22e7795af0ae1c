/**
 * @module tools/web/create-backend
 * `createSearchBackend`: builds the search backend the `[search]` config names (DuckDuckGo by default,
 * SearXNG, or Brave), validating the config at creation.
 */
// By file, not the config front door: the choice lists load no zod, and every gate builds a backend.
import { SEARCH_BACKENDS, type SearchBackendName } from "../../config/choices.js";
import { ConfigError } from "../../core/index.js";
import type { Resolver } from "../../net/index.js";
import { createBraveBackend } from "./brave.js";
import { createDuckDuckGoBackend } from "./duckduckgo.js";
import type { BackendHttp, SearchBackend } from "./search-backend.js";
import { createSearxngBackend } from "./searxng.js";

/** The `[search]` section of `.toolgate/config.toml`, in library form. */
export interface SearchConfig {
  /** Default `duckduckgo`. */
  backend?: SearchBackendName;
  /** SearXNG: the instance's base URL (required). DuckDuckGo / Brave: overrides the endpoint URL. */
  url?: string;
  /** Brave: the environment variable holding the API key. Default `BRAVE_API_KEY`. */
  apiKeyEnv?: string;
  /** Per-search time limit. Default {@link DEFAULT_SEARCH_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/** A search's time limit when the config sets none (`[search] timeout_ms`): 15 s. */
export const DEFAULT_SEARCH_TIMEOUT_MS = 15_000;

/** What backends share besides the config. */
export interface SearchBackendOptions {
  /** Extra private hosts backends may reach (the configured `url`'s host is always allowed). */
  allowHosts?: readonly string[];
  /** Where API keys are read from. Default `process.env` (read at each search). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Name resolution, for tests. */
  lookup?: Resolver;
}

function checkedUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`search.url is not a valid URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`search.url must be an http or https URL, got ${raw}`);
  }
  return url;
}

/**
 * Builds the configured backend. The configured `url` is trusted (it is the user's own setting), so its
 * host is allowed even when private, e.g. a SearXNG on `http://127.0.0.1:8888`.
 * @throws ConfigError for an unknown backend, a missing or malformed url.
 * @example createSearchBackend({ backend: "searxng", url: "http://127.0.0.1:8888" })
 */
export function createSearchBackend(
  config: SearchConfig = {},
  options: SearchBackendOptions = {},
): SearchBackend {
  const backend = config.backend ?? "duckduckgo";
  if (!SEARCH_BACKENDS.includes(backend)) {
    throw new ConfigError(
      `search.backend must be one of ${SEARCH_BACKENDS.map((b) => `"${b}"`).join(", ")}, got ${JSON.stringify(backend)}`,
    );
  }
  const url = config.url === undefined ? undefined : checkedUrl(config.url);
  const allowHosts = [...(options.allowHosts ?? [])];
  if (url) allowHosts.push(url.port ? `${url.hostname}:${url.port}` : url.hostname);
  const http: BackendHttp = {
    allowHosts,
    timeoutMs: config.timeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS,
    lookup: options.lookup,
  };
  switch (backend) {
    case "searxng":
      if (!url)
        throw new ConfigError('search.url is required for the "searxng" backend (the instance\'s base URL)');
      return createSearxngBackend(url, http);
    case "brave":
      return createBraveBackend(url, config.apiKeyEnv ?? "BRAVE_API_KEY", options.env ?? process.env, http);
    default:
      return createDuckDuckGoBackend(url, http);
  }
}
