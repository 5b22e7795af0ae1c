/**
 * @module tools/web/search-backend
 * The search backend interface web_search talks to, the shared request helper (every backend fetches through
 * the SSRF-safe client), and turning a snippet of HTML into plain text.
 */
import { httpError, type Resolver, type SafeResponse, safeFetch } from "../../net/index.js";

/** One search hit. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** What a backend is asked. */
export interface SearchRequest {
  query: string;
  /** At most this many results are wanted. */
  numResults: number;
  signal: AbortSignal;
}

/**
 * A search service. `search` throws `NetError` (network, http_error, timeout, cancelled) or
 * {@link SearchError} (a response it cannot use, a missing key); web_search turns both into error results.
 */
export interface SearchBackend {
  /** `duckduckgo`, `searxng`, `brave`, or a host's own name. */
  readonly name: string;
  search(request: SearchRequest): Promise<SearchResult[]>;
}

/** A backend failure that is not a transport error (bad response, bot challenge, missing API key). */
export class SearchError extends Error {
  override readonly name = "SearchError";
  constructor(
    message: string,
    readonly url?: string,
  ) {
    super(message);
  }
}

/** Settings every backend's requests use. */
export interface BackendHttp {
  allowHosts: readonly string[];
  timeoutMs: number;
  lookup?: Resolver;
}

/**
 * Sends one backend request through the safe client; an error status becomes an `http_error` NetError.
 * Responses are capped at 5 MiB (a results page is far smaller).
 */
export async function backendRequest(
  url: string,
  http: BackendHttp,
  signal: AbortSignal,
  init: { method?: string; headers?: Record<string, string>; body?: string; accept?: string } = {},
): Promise<SafeResponse> {
  const res = await safeFetch(url, {
    ...init,
    signal,
    timeoutMs: http.timeoutMs,
    maxBytes: 5 * 1024 * 1024,
    allowHosts: http.allowHosts,
    lookup: http.lookup,
  });
  if (res.status >= 400) throw httpError(res);
  return res;
}

const ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

/** Plain text from a snippet of HTML: tags dropped, common entities decoded, whitespace collapsed. */
export function htmlToText(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] === "#") {
        const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : Number(name.slice(1));
        return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/\s+/g, " ")
    .trim();
}

/** The JSON body of a search API's answer; `service` names it in the error (`Brave Search at URL did not return JSON`). */
export function parseJsonAnswer(text: string, service: string, endpoint: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new SearchError(`${service} at ${endpoint} did not return JSON`, endpoint);
  }
}

/**
 * The results of a JSON search API: each entry with an http(s) `url`, its `title` and its `snippetKey` field
 * as plain text (the title falls back to the URL); other entries are skipped.
 */
export function jsonResults(entries: readonly unknown[], snippetKey: string): SearchResult[] {
  const out: SearchResult[] = [];
  for (const entry of entries) {
    const r = entry as Record<string, unknown> | null | undefined;
    if (typeof r?.url !== "string" || !/^https?:\/\//i.test(r.url)) continue;
    const title = typeof r.title === "string" ? htmlToText(r.title) : "";
    const snippet = r[snippetKey];
    out.push({
      title: title || r.url,
      url: r.url,
      snippet: typeof snippet === "string" ? htmlToText(snippet) : "",
    });
  }
  return out;
}
