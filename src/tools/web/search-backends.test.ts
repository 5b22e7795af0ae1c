import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../core/index.js";
import { NetError } from "../../net/index.js";
import { startCanary, startServer, type TestServer } from "../../test-support/web-servers.js";
import { createSearchBackend } from "./create-backend.js";
import { unwrapDuckDuckGoLink } from "./duckduckgo.js";
import { htmlToText, SearchError, type SearchResult } from "./search-backend.js";

const fixture = (name: string) => readFileSync(new URL(`./testdata/${name}`, import.meta.url), "utf8");

const EXPECTED: SearchResult[] = [
  {
    title: "Asynchronous Programming in Rust",
    url: "https://rust-lang.github.io/async-book/",
    snippet:
      "This book aims to be a comprehensive, up-to-date guide to using Rust's async language features & libraries.",
  },
  {
    title: "Async in depth | Tokio - An asynchronous Rust runtime",
    url: "https://tokio.rs/tokio/tutorial/async",
    snippet: "At this point, we have completed a fairly comprehensive tour of asynchronous Rust and Tokio.",
  },
];

let server: TestServer;
/** What the server answers next, per path. */
const answers = new Map<string, { status: number; type: string; body: string }>();

beforeAll(async () => {
  server = await startServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const answer = answers.get(path) ?? { status: 404, type: "text/plain", body: "no answer" };
    res.writeHead(answer.status, { "content-type": answer.type });
    res.end(answer.body);
  });
});

afterAll(async () => {
  await server.close();
});

function unexpected(): never {
  throw new Error("expected the search to fail");
}
const asNetError = (e: unknown) => e as NetError;
const signal = () => new AbortController().signal;
const lastRequest = () => server.requests[server.requests.length - 1]!;

describe("DuckDuckGo backend (HTML endpoint)", () => {
  const backend = () => createSearchBackend({ backend: "duckduckgo", url: `${server.origin}/html/` });

  it("POSTs the query and parses results, skipping ads and unwrapping redirect links", async () => {
    answers.set("/html/", {
      status: 200,
      type: "text/html; charset=UTF-8",
      body: fixture("duckduckgo.html.txt"),
    });
    const results = await backend().search({ query: "rust async book", numResults: 10, signal: signal() });
    expect(results.slice(0, 2)).toEqual(EXPECTED);
    expect(results[2]).toEqual({
      title: "async - Rust",
      url: "https://doc.rust-lang.org/std/keyword.async.html",
      snippet: "Returns a Future instead of blocking the current thread.",
    });
    expect(results[3]).toEqual({
      title: "Best resources to learn async? : r/rust - Reddit",
      url: "https://www.reddit.com/r/rust/comments/abc123/best_resources_to_learn_async/",
      snippet: "",
    });
    expect(results).toHaveLength(4);
    const request = lastRequest();
    expect(request.method).toBe("POST");
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(new URLSearchParams(request.body).get("q")).toBe("rust async book");
  });

  it("returns at most numResults", async () => {
    answers.set("/html/", { status: 200, type: "text/html", body: fixture("duckduckgo.html.txt") });
    const results = await backend().search({ query: "rust", numResults: 2, signal: signal() });
    expect(results).toEqual(EXPECTED);
  });

  it("returns no results for a no-results page", async () => {
    answers.set("/html/", { status: 200, type: "text/html", body: fixture("duckduckgo-empty.html.txt") });
    expect(await backend().search({ query: "zzqxjvkw", numResults: 5, signal: signal() })).toEqual([]);
  });

  it("reports a bot challenge clearly", async () => {
    answers.set("/html/", { status: 202, type: "text/html", body: fixture("duckduckgo-challenge.html.txt") });
    const error = await backend()
      .search({ query: "x", numResults: 5, signal: signal() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SearchError);
    expect((error as Error).message).toBe(
      'DuckDuckGo refused the automated search with a bot challenge; try again later or configure the "searxng" ' +
        'or "brave" backend in [search]',
    );
  });

  it.each([
    ["//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fx%3Fy%3D1&rut=abc", "https://a.example/x?y=1"],
    ["https://duckduckgo.com/y.js?ad_domain=x.com", undefined],
    ["//duckduckgo.com/l/?uddg=javascript%3Aalert(1)", undefined],
    ["https://plain.example/", "https://plain.example/"],
  ])("unwraps %s", (href, want) => {
    expect(unwrapDuckDuckGoLink(href)).toBe(want);
  });
});

describe("SearXNG backend (JSON API)", () => {
  const backend = () => createSearchBackend({ backend: "searxng", url: `${server.origin}/searx/` });

  it("GETs /search with format=json under the base path and parses results", async () => {
    answers.set("/searx/search", { status: 200, type: "application/json", body: fixture("searxng.json") });
    const results = await backend().search({ query: "rust async book", numResults: 10, signal: signal() });
    expect(results.slice(0, 2)).toEqual(
      EXPECTED.map((r) => ({ ...r, snippet: r.snippet.replace(" & ", " and ") })),
    );
    expect(results[2]).toEqual({
      title: "async - Rust",
      url: "https://doc.rust-lang.org/std/keyword.async.html",
      snippet: "",
    });
    const query = new URL(lastRequest().url, "http://x").searchParams;
    expect(new URL(lastRequest().url, "http://x").pathname).toBe("/searx/search");
    expect(query.get("q")).toBe("rust async book");
    expect(query.get("format")).toBe("json");
  });

  it("returns at most numResults", async () => {
    answers.set("/searx/search", { status: 200, type: "application/json", body: fixture("searxng.json") });
    expect(await backend().search({ query: "x", numResults: 1, signal: signal() })).toHaveLength(1);
  });

  it("explains a 403 (JSON format not enabled)", async () => {
    answers.set("/searx/search", { status: 403, type: "text/html", body: "Forbidden" });
    await expect(backend().search({ query: "x", numResults: 5, signal: signal() })).rejects.toThrow(
      `SearXNG at ${server.origin}/searx/ refused the JSON format (HTTP 403): add "json" to search.formats in its settings.yml`,
    );
  });

  it("refuses a response that is not SearXNG JSON", async () => {
    answers.set("/searx/search", { status: 200, type: "text/html", body: "<html>login</html>" });
    await expect(backend().search({ query: "x", numResults: 5, signal: signal() })).rejects.toThrow(
      `SearXNG at ${server.origin}/searx/ did not return JSON`,
    );
  });
});

describe("Brave backend (Search API)", () => {
  const backend = (env: Record<string, string | undefined> = { MY_BRAVE: "key-123" }) =>
    createSearchBackend(
      { backend: "brave", url: `${server.origin}/res/v1/web/search`, apiKeyEnv: "MY_BRAVE" },
      { env },
    );

  it("sends the key header and count, and parses web.results", async () => {
    answers.set("/res/v1/web/search", { status: 200, type: "application/json", body: fixture("brave.json") });
    const results = await backend().search({ query: "rust async book", numResults: 3, signal: signal() });
    expect(results.slice(0, 2)).toEqual(EXPECTED);
    expect(results).toHaveLength(3);
    const request = lastRequest();
    expect(request.headers["x-subscription-token"]).toBe("key-123");
    expect(request.headers.accept).toBe("application/json");
    const query = new URL(request.url, "http://x").searchParams;
    expect(query.get("q")).toBe("rust async book");
    expect(query.get("count")).toBe("3");
  });

  it("returns at most numResults", async () => {
    answers.set("/res/v1/web/search", { status: 200, type: "application/json", body: fixture("brave.json") });
    expect(await backend().search({ query: "x", numResults: 2, signal: signal() })).toEqual(EXPECTED);
  });

  it("fails the search, not the creation, without a key", async () => {
    const before = server.requests.length;
    await expect(backend({}).search({ query: "x", numResults: 5, signal: signal() })).rejects.toThrow(
      "Brave Search needs an API key: set the environment variable MY_BRAVE (search.api_key_env)",
    );
    expect(server.requests.length).toBe(before);
  });

  it.each([
    [401, "Brave Search rejected the API key from MY_BRAVE (HTTP 401)"],
    [429, "Brave Search rate limit reached (HTTP 429); try again later"],
  ])("explains HTTP %i", async (status, message) => {
    answers.set("/res/v1/web/search", { status, type: "application/json", body: '{"type":"ErrorResponse"}' });
    await expect(backend().search({ query: "x", numResults: 5, signal: signal() })).rejects.toThrow(message);
  });

  it("passes other HTTP errors on as http_error", async () => {
    answers.set("/res/v1/web/search", { status: 500, type: "text/plain", body: "oops" });
    const error = await backend()
      .search({ query: "x", numResults: 5, signal: signal() })
      .then(unexpected, asNetError);
    expect(error).toBeInstanceOf(NetError);
    expect(error.type).toBe("http_error");
    expect(error.status).toBe(500);
  });
});

describe("createSearchBackend", () => {
  it("defaults to DuckDuckGo", () => {
    expect(createSearchBackend().name).toBe("duckduckgo");
  });

  it.each([
    [{ backend: "google" }, 'search.backend must be one of "duckduckgo", "searxng", "brave", got "google"'],
    [{ backend: "searxng" }, 'search.url is required for the "searxng" backend (the instance\'s base URL)'],
    [{ backend: "searxng", url: "not a url" }, "search.url is not a valid URL: not a url"],
    [{ backend: "searxng", url: "ftp://x/" }, "search.url must be an http or https URL, got ftp://x/"],
  ])("refuses %j", (config, message) => {
    expect(() => createSearchBackend(config as never)).toThrow(new ConfigError(message));
  });

  it("allows the configured host even when it is loopback", async () => {
    const backend = createSearchBackend({ backend: "searxng", url: "http://127.0.0.1:1/" });
    // Refused by the (closed) port, not blocked by the address check: the configured host was allowed.
    const error = await backend
      .search({ query: "x", numResults: 5, signal: signal() })
      .then(unexpected, asNetError);
    expect(error.reason).toBe("refused");
  });

  it("does not follow a configured backend's redirect to another private host", async () => {
    const canary = await startCanary();
    try {
      const bouncer = await startServer((_req, res) => {
        res.writeHead(302, { location: `${canary.origin}/steal` });
        res.end();
      });
      const backend = createSearchBackend({ backend: "searxng", url: `${bouncer.origin}/` });
      const error = await backend
        .search({ query: "x", numResults: 5, signal: signal() })
        .then(unexpected, asNetError);
      await bouncer.close();
      expect(error.reason).toBe("blocked_address");
      expect(canary.requests).toEqual([]);
    } finally {
      await canary.close();
    }
  });
});

describe("htmlToText", () => {
  it("drops tags, decodes entities and collapses whitespace", () => {
    expect(htmlToText("<strong>Rust&#x27;s</strong>\n  async &amp; <b>more</b>&nbsp;&#8212; &bogus;")).toBe(
      "Rust's async & more — &bogus;",
    );
  });
});
