import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, ToolInputError } from "../core/index.js";
import { startCanary, startServer, type TestServer } from "../test-support/web-servers.js";
import { createWebFetchTool, type WebFetchParams } from "./web-fetch.js";

let server: TestServer;
let canary: TestServer;

const ARTICLE = `<!doctype html><html><head><title>Guide to Widgets</title>
<style>body { color: red }</style><script>window.evil = "SCRIPT-TEXT"</script></head>
<body>
<nav class="menu"><a href="/">Home</a> <a href="/about">About</a> SITE-NAVIGATION</nav>
<article>
<h1>Guide to Widgets</h1>
<p>Widgets are small components that do one thing well. This guide explains how to build them, how to test
them and how to ship them to production without breaking anything along the way.</p>
<p>Read the <a href="docs/setup.html">setup notes</a> first, then the <a href="https://example.org/ref">reference</a>.
Widgets compose: a widget may hold other widgets, and each one keeps its own state, so that a change in one never
ripples into the others unexpectedly.</p>
<h2>Testing</h2>
<p>Every widget has a test beside it. Tests use real parts wherever they can and stay fast enough to run on
every change, which keeps the feedback loop short and the widgets honest.</p>
<ul><li>unit tests</li><li>integration tests</li></ul>
<pre><code>npm test</code></pre>
</article>
<footer>SITE-FOOTER copyright</footer>
</body></html>`;

const LIST = `<html><head><title>Items</title></head><body>
<p>INTRO-TEXT</p>
<div class="item"><b>First</b> item</div>
<div class="item">Second item</div>
<div class="item">Third <a href="/third">item</a></div>
</body></html>`;

beforeAll(async () => {
  canary = await startCanary();
  server = await startServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const send = (status: number, type: string | undefined, body: string | Buffer) => {
      res.writeHead(status, type ? { "content-type": type } : {});
      res.end(body);
    };
    switch (path) {
      case "/docs/guide":
        return send(200, "text/html; charset=utf-8", ARTICLE);
      case "/list":
        return send(200, "text/html", LIST);
      case "/plain":
        return send(200, "text/plain", "just text\nline two");
      case "/json":
        return send(200, "application/json", '{"a":1,"b":[true,null]}');
      case "/image":
        return send(
          200,
          "image/png",
          Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
        );
      case "/octet":
        return send(200, "application/octet-stream", Buffer.from([1, 2, 0, 3, 4]));
      case "/untyped-html":
        return send(200, undefined, "<!DOCTYPE html><html><body><p>no header html</p></body></html>");
      case "/latin1":
        return send(200, "text/plain; charset=iso-8859-1", Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      case "/meta-charset":
        return send(
          200,
          "text/html",
          Buffer.concat([
            Buffer.from('<html><head><meta charset="windows-1252"></head><body><div id="x">na'),
            Buffer.from([0xef, 0x76, 0x65]),
            Buffer.from("</div></body></html>"),
          ]),
        );
      case "/long":
        return send(200, "text/plain", "abcdefghij".repeat(100));
      case "/moved":
        res.writeHead(301, { location: "/docs/guide" });
        return res.end();
      case "/missing":
        return send(404, "text/html", "<h1>Not here</h1>");
      case "/broken":
        return send(500, "text/plain", "boom");
      case "/hang":
        return;
      default:
        return send(500, "text/plain", "unexpected path");
    }
  });
});

afterAll(async () => {
  await server.close();
  await canary.close();
});

function tool(extra: Parameters<typeof createWebFetchTool>[0] = {}) {
  return createWebFetchTool({ allowHosts: [server.hostPort], ...extra });
}

async function run(
  params: WebFetchParams,
  extra: Parameters<typeof createWebFetchTool>[0] = {},
  signal?: AbortSignal,
) {
  return tool(extra)
    .build(params)
    .run(signal ?? new AbortController().signal);
}

describe("web_fetch: content", () => {
  it("returns the main content of an HTML page as Markdown, with absolute links", async () => {
    const result = await run({ url: `${server.origin}/docs/guide` });
    expect(result.error).toBeUndefined();
    const text = result.llmContent;
    expect(text.startsWith(`URL: ${server.origin}/docs/guide\nTitle: Guide to Widgets\n\n`)).toBe(true);
    expect(text).toContain("## Testing");
    expect(text).toContain("Widgets are small components that do one thing well.");
    expect(text).toContain(`[setup notes](${server.origin}/docs/docs/setup.html)`);
    expect(text).toContain("[reference](https://example.org/ref)");
    expect(text).toContain("-   unit tests\n-   integration tests");
    expect(text).toContain("```\nnpm test\n```");
    for (const absent of ["SCRIPT-TEXT", "color: red", "SITE-NAVIGATION", "SITE-FOOTER"]) {
      expect(text).not.toContain(absent);
    }
    expect(result.returnDisplay).toMatch(
      new RegExp(`^Fetched ${server.origin}/docs/guide \\(\\d+ characters\\)$`),
    );
  });

  it("returns only the elements matching a selector", async () => {
    const result = await run({ url: `${server.origin}/list`, selector: ".item" });
    expect(result.llmContent).toBe(
      `URL: ${server.origin}/list\nTitle: Items\nSelector: .item (3 matching elements)\n\n` +
        `**First** item\n\nSecond item\n\nThird [item](${server.origin}/third)`,
    );
  });

  it("says so when no element matches", async () => {
    const result = await run({ url: `${server.origin}/list`, selector: "table" });
    expect(result.error).toBeUndefined();
    expect(result.llmContent).toContain(
      'Selector: table (0 matching elements)\n\nNo elements match the selector "table".',
    );
  });

  it("refuses an invalid selector", async () => {
    const result = await run({ url: `${server.origin}/list`, selector: "p::before" });
    expect(result.error?.type).toBe("invalid_params");
    expect(result.error?.message).toMatch(/^invalid CSS selector "p::before": /);
  });

  it.each([
    ["/plain", "text/plain", "just text\nline two"],
    ["/json", "application/json", '{"a":1,"b":[true,null]}'],
    ["/latin1", "text/plain", "café"],
  ])("returns %s as text", async (path, type, body) => {
    const result = await run({ url: `${server.origin}${path}` });
    expect(result.llmContent).toBe(`URL: ${server.origin}${path}\nContent-Type: ${type}\n\n${body}`);
  });

  it("sniffs untyped HTML and honours a meta charset", async () => {
    const untyped = await run({ url: `${server.origin}/untyped-html` });
    expect(untyped.llmContent).toContain("no header html");
    const meta = await run({ url: `${server.origin}/meta-charset`, selector: "#x" });
    expect(meta.llmContent.endsWith("\n\nnaïve")).toBe(true);
  });

  it.each([
    ["/image", "image/png, 12 bytes"],
    ["/octet", "application/octet-stream, 5 bytes"],
  ])("refuses binary content (%s)", async (path, what) => {
    const result = await run({ url: `${server.origin}${path}` });
    expect(result.error?.type).toBe("execution_failed");
    expect(result.error?.message).toBe(
      `refusing binary content from ${server.origin}${path}: ${what}. web_fetch returns only HTML and text.`,
    );
  });

  it("follows redirects and reports the final URL", async () => {
    const result = await run({ url: `${server.origin}/moved` });
    expect(result.llmContent.startsWith(`URL: ${server.origin}/docs/guide\n`)).toBe(true);
  });
});

describe("web_fetch: limits and errors", () => {
  it("truncates to maxLength and says how much was omitted", async () => {
    const result = await run({ url: `${server.origin}/long`, maxLength: 25 });
    expect(result.llmContent).toBe(
      `URL: ${server.origin}/long\nContent-Type: text/plain\n\nabcdefghijabcdefghijabcde\n\n` +
        "[... output truncated: showing the first 25 of 1,000 characters, 975 omitted; use a selector or a " +
        "larger maxLength to see more ...]",
    );
    expect(result.returnDisplay).toBe(`Fetched ${server.origin}/long (25 characters, truncated)`);
  });

  it("notes a download cut at maxBytes", async () => {
    const result = await run({ url: `${server.origin}/long` }, { maxBytes: 100 });
    expect(result.llmContent).toContain(
      "\n\n[... the response was larger than 100 bytes; only that much was read ...]",
    );
  });

  it.each([
    ["/missing", 404, "Not Found"],
    ["/broken", 500, "Internal Server Error"],
  ])("reports HTTP %s with status and URL", async (path, status, text) => {
    const result = await run({ url: `${server.origin}${path}` });
    expect(result.error).toEqual({
      type: "http_error",
      message: `HTTP ${status} ${text} fetching ${server.origin}${path}`,
      details: { url: `${server.origin}${path}`, status, elapsedMs: expect.any(Number) },
    });
  });

  it("times out with the elapsed time", async () => {
    const result = await run({ url: `${server.origin}/hang` }, { timeoutMs: 300 });
    expect(result.error?.type).toBe("timeout");
    expect(result.error?.details?.elapsedMs).toBeGreaterThanOrEqual(290);
    expect(result.error?.message).toMatch(
      new RegExp(`^timed out after \\d+ ms fetching ${server.origin}/hang \\(limit 300 ms\\)$`),
    );
  });

  it("is cancelled by the signal", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await run({ url: `${server.origin}/hang` }, {}, controller.signal);
    expect(result.error?.type).toBe("cancelled");
  });

  it("reports a refused connection with URL and reason", async () => {
    const gone = await startServer(() => undefined);
    await gone.close();
    const result = await run({ url: `${gone.origin}/x` }, { allowHosts: [gone.hostPort] });
    expect(result.error?.type).toBe("network");
    expect(result.error?.message).toBe(`network error fetching ${gone.origin}/x: connection refused`);
    expect(result.error?.details).toMatchObject({ url: `${gone.origin}/x`, reason: "refused" });
  });

  it("refuses loopback hosts that are not allowed, and nothing reaches them", async () => {
    const result = await run({ url: `http://0x7f.1:${canary.port}/` });
    expect(result.error?.type).toBe("network");
    expect(result.error?.message).toBe(
      `refused to fetch http://127.0.0.1:${canary.port}/: 127.0.0.1 is a loopback address ` +
        "(add the host to allow_hosts to permit it)",
    );
    expect(canary.requests).toEqual([]);
  });
});

describe("web_fetch: declaration", () => {
  it("declares its kind, risk, url argument and fetch confirmation", async () => {
    const t = tool();
    expect(t.name).toBe("web_fetch");
    expect(t.kind).toBe("fetch");
    expect(t.risk).toBe("medium");
    expect(t.argKinds).toEqual({ url: "url" });
    const invocation = t.build({ url: "https://example.com/a", selector: "main" });
    expect(invocation.describe()).toBe("Fetch https://example.com/a (selector main)");
    expect(invocation.locations()).toEqual(["https://example.com/a"]);
    expect(await invocation.confirmation(new AbortController().signal)).toMatchObject({
      toolName: "web_fetch",
      type: "fetch",
      risk: "medium",
      locations: ["https://example.com/a"],
    });
  });

  it.each([
    [{ url: "ftp://example.com/" }, "url must be an http or https URL, got ftp"],
    [{ url: "not a url" }, "url is not a valid URL: not a url"],
    [{ url: "https://example.com/", selector: " " }, "selector must not be empty"],
  ])("refuses %j at build", (params, message) => {
    expect(() => tool().build(params)).toThrow(new ToolInputError(message));
  });

  it("refuses a malformed allow_hosts entry at creation", () => {
    expect(() => createWebFetchTool({ allowHosts: ["http://x:1/"] })).toThrow(ConfigError);
    expect(() => createWebFetchTool({ allowHosts: ["http://x:1/"] })).toThrow(
      'web.allow_hosts: invalid entry "http://x:1/": expected host or host:port',
    );
  });
});
