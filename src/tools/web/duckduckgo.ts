/**
 * @module tools/web/duckduckgo
 * The DuckDuckGo backend (the default; no key): POSTs the query to the HTML endpoint and reads result links
 * (`a.result__a`) and snippets (`.result__snippet`), unwrapping DuckDuckGo's `/l/?uddg=` redirect links.
 */
import {
  type BackendHttp,
  backendRequest,
  htmlToText,
  type SearchBackend,
  SearchError,
  type SearchResult,
} from "./search-backend.js";

/** The HTML endpoint. */
export const DUCKDUCKGO_URL = "https://html.duckduckgo.com/html/";

type El = {
  getAttribute(name: string): string | null;
  innerHTML: string;
  querySelector(s: string): El | null;
};

/** The target of a result link: DuckDuckGo wraps it as `//duckduckgo.com/l/?uddg=<encoded URL>`. */
export function unwrapDuckDuckGoLink(href: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href, "https://duckduckgo.com/");
  } catch {
    return undefined;
  }
  if (url.hostname.endsWith("duckduckgo.com")) {
    if (url.pathname !== "/l/") return undefined; // ads (`/y.js`) and internal links
    const target = url.searchParams.get("uddg");
    if (!target) return undefined;
    url = new URL(target);
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
}

/** Parses a DuckDuckGo HTML results page. Throws SearchError for a bot challenge page. */
export async function parseDuckDuckGo(html: string, endpoint: string): Promise<SearchResult[]> {
  // linkedom loads on the first search, not at start-up.
  const { parseHTML } = await import("linkedom");
  const { document } = parseHTML(html) as unknown as {
    document: { querySelectorAll(s: string): ArrayLike<El> };
  };
  const results: SearchResult[] = [];
  const blocks = document.querySelectorAll(".result");
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i] as El;
    if ((block.getAttribute("class") ?? "").split(/\s+/).includes("result--ad")) continue;
    const link = block.querySelector("a.result__a");
    const url = link ? unwrapDuckDuckGoLink(link.getAttribute("href") ?? "") : undefined;
    if (!link || !url) continue;
    const snippet = block.querySelector(".result__snippet");
    results.push({
      title: htmlToText(link.innerHTML),
      url,
      snippet: snippet ? htmlToText(snippet.innerHTML) : "",
    });
  }
  if (results.length === 0 && /anomaly-modal|anomaly\.js/.test(html)) {
    throw new SearchError(
      "DuckDuckGo refused the automated search with a bot challenge; try again later or configure the " +
        '"searxng" or "brave" backend in [search]',
      endpoint,
    );
  }
  return results;
}

/** Creates the DuckDuckGo backend; `url` overrides the endpoint (tests point it at a local server). */
export function createDuckDuckGoBackend(url: URL | undefined, http: BackendHttp): SearchBackend {
  const endpoint = url?.href ?? DUCKDUCKGO_URL;
  return {
    name: "duckduckgo",
    async search({ query, numResults, signal }) {
      const res = await backendRequest(endpoint, http, signal, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ q: query, b: "" }).toString(),
        accept: "text/html",
      });
      return (await parseDuckDuckGo(res.body.toString("utf8"), endpoint)).slice(0, numResults);
    },
  };
}
