import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../test-support/web-servers.js";
import { createSearchBackend } from "./web/create-backend.js";
import type { SearchBackend } from "./web/search-backend.js";
import { createWebSearchTool, formatResults, type WebSearchParams } from "./web-search.js";

const ddgPage = readFileSync(new URL("./web/testdata/duckduckgo.html.txt", import.meta.url), "utf8");

let server: TestServer;

beforeAll(async () => {
  server = await startServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/html/") {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end(ddgPage);
    }
    if (path === "/empty/") {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end("<html><body><div class='no-results'>No results.</div></body></html>");
    }
    if (path === "/broken/") {
      res.writeHead(503, { "content-type": "text/plain" });
      return res.end("down");
    }
    // "/hang/": never answers.
  });
});

afterAll(async () => {
  await server.close();
});

const ddg = (path = "/html/", timeoutMs?: number) =>
  createSearchBackend({ backend: "duckduckgo", url: `${server.origin}${path}`, timeoutMs });

async function search(backend: SearchBackend, params: WebSearchParams, signal?: AbortSignal) {
  return createWebSearchTool({ backend })
    .build(params)
    .run(signal ?? new AbortController().signal);
}

describe("web_search", () => {
  it("returns a numbered list of title, URL and snippet", async () => {
    const result = await search(ddg(), { query: "rust async book", numResults: 3 });
    expect(result.error).toBeUndefined();
    expect(result.llmContent).toBe(
      'Search results for "rust async book" (3 results, duckduckgo):\n\n' +
        "1. Asynchronous Programming in Rust\n" +
        "   https://rust-lang.github.io/async-book/\n" +
        "   This book aims to be a comprehensive, up-to-date guide to using Rust's async language features & libraries.\n\n" +
        "2. Async in depth | Tokio - An asynchronous Rust runtime\n" +
        "   https://tokio.rs/tokio/tutorial/async\n" +
        "   At this point, we have completed a fairly comprehensive tour of asynchronous Rust and Tokio.\n\n" +
        "3. async - Rust\n" +
        "   https://doc.rust-lang.org/std/keyword.async.html\n" +
        "   Returns a Future instead of blocking the current thread.",
    );
    expect(result.returnDisplay).toBe('3 results for "rust async book"');
  });

  it.each([1, 2, 4, 20])("returns at most numResults=%i", async (numResults) => {
    const result = await search(ddg(), { query: "rust", numResults });
    const entries = result.llmContent.match(/^\d+\. /gm) ?? [];
    expect(entries.length).toBe(Math.min(numResults, 4));
  });

  it("caps even a backend that ignores numResults", async () => {
    const sloppy: SearchBackend = {
      name: "sloppy",
      search: async () =>
        Array.from({ length: 9 }, (_, i) => ({ title: `T${i}`, url: `https://e.example/${i}`, snippet: "" })),
    };
    const result = await search(sloppy, { query: "x", numResults: 2 });
    expect(result.llmContent).toBe(
      'Search results for "x" (2 results, sloppy):\n\n1. T0\n   https://e.example/0\n\n2. T1\n   https://e.example/1',
    );
  });

  it("uses 5 results by default", async () => {
    const many: SearchBackend = {
      name: "many",
      search: async ({ numResults }) =>
        Array.from({ length: numResults + 3 }, (_, i) => ({
          title: `T${i}`,
          url: `https://e.example/${i}`,
          snippet: "",
        })),
    };
    const result = await search(many, { query: "x" });
    expect(result.llmContent.match(/^\d+\. /gm)?.length).toBe(5);
  });

  it("says when there are no results", async () => {
    const result = await search(ddg("/empty/"), { query: "zzqxjvkw" });
    expect(result.error).toBeUndefined();
    expect(result.llmContent).toBe('No results for "zzqxjvkw" (duckduckgo).');
  });

  it("reports an HTTP error as a result, with status and URL", async () => {
    const result = await search(ddg("/broken/"), { query: "x" });
    expect(result.error).toMatchObject({
      type: "http_error",
      message: `web search (duckduckgo) failed: HTTP 503 Service Unavailable fetching ${server.origin}/broken/`,
      details: { url: `${server.origin}/broken/`, status: 503 },
    });
  });

  it("reports a refused connection as a network error result", async () => {
    const gone = await startServer(() => undefined);
    await gone.close();
    const backend = createSearchBackend({ backend: "searxng", url: gone.origin });
    const result = await search(backend, { query: "x" });
    expect(result.error?.type).toBe("network");
    expect(result.error?.message).toBe(
      `web search (searxng) failed: network error fetching ${gone.origin}/search?q=x&format=json&pageno=1: connection refused`,
    );
  });

  it("reports a timeout with the elapsed time", async () => {
    const result = await search(ddg("/hang/", 200), { query: "x" });
    expect(result.error?.type).toBe("timeout");
    expect(result.error?.details?.elapsedMs).toBeGreaterThanOrEqual(190);
  });

  it("reports a missing API key as an error result", async () => {
    const backend = createSearchBackend(
      { backend: "brave", apiKeyEnv: "TOOLGATE_TEST_NO_SUCH_KEY" },
      { env: {} },
    );
    const result = await search(backend, { query: "x" });
    expect(result.error).toEqual({
      type: "execution_failed",
      message:
        "web search (brave) failed: Brave Search needs an API key: set the environment variable " +
        "TOOLGATE_TEST_NO_SUCH_KEY (search.api_key_env)",
      details: { url: "https://api.search.brave.com/res/v1/web/search" },
    });
  });

  it("turns a backend that throws anything into an error result", async () => {
    const broken: SearchBackend = {
      name: "broken",
      search: async () => {
        throw new TypeError("boom");
      },
    };
    const result = await search(broken, { query: "x" });
    expect(result.error).toEqual({ type: "execution_failed", message: "web search (broken) failed: boom" });
  });

  it("is cancelled by the signal", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await search(ddg("/hang/"), { query: "x" }, controller.signal);
    expect(result.error?.type).toBe("cancelled");
  });
});

describe("web_search: declaration", () => {
  it("declares its name, kind, risk and schema", () => {
    const tool = createWebSearchTool({ backend: ddg() });
    expect(tool.name).toBe("web_search");
    expect(tool.kind).toBe("fetch");
    expect(tool.risk).toBe("medium");
    expect(tool.parameters).toMatchObject({
      required: ["query"],
      properties: { numResults: { type: "integer", minimum: 1, maximum: 20 } },
    });
    expect(tool.build({ query: "rust" }).describe()).toBe('Search the web (duckduckgo) for "rust"');
  });

  it("refuses a blank query", () => {
    expect(() => createWebSearchTool({ backend: ddg() }).build({ query: "   " })).toThrow(
      "query must not be empty",
    );
  });

  it("formats a result without a snippet on two lines", () => {
    expect(formatResults([{ title: " A\n title ", url: "https://a.example/", snippet: "" }])).toBe(
      "1. A title\n   https://a.example/",
    );
  });
});
