/**
 * @module e2e/web-fixtures
 * The loopback servers the web end-to-end suite talks to: a documentation site (page, long text, 404, a
 * redirect, a request that never gets an answer), a SearXNG instance serving the real JSON format, a canary
 * nobody may reach, and a port that refuses connections; and issue 4's URL adversarial list.
 */
import { readFileSync } from "node:fs";
import { startCanary, startServer, type TestServer } from "../test-support/web-servers.js";

/** The page `/page` serves: an article between navigation and a footer. */
export const PAGE = `<!doctype html>
<html><head><title>Toolgate Guide</title></head>
<body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<main><article>
<h1>Getting started</h1>
<p>Install the package with <code>npm install toolgate</code>, then <strong>create a gate</strong> for your
project. The gate checks every call against the policy before anything runs, and it refuses what the policy
denies. Read <a href="/docs/api">the API reference</a> for the full list of options.</p>
<ul><li>Roots are fixed by the host</li><li>Policies are TOML files</li></ul>
<table class="prices"><tr><th>Plan</th><th>Price</th></tr><tr><td>Free</td><td>0</td></tr></table>
</article></main>
<footer>Copyright footer text</footer>
</body></html>`;

/** A SearXNG `/search?format=json` answer captured from a real instance (shared with the unit tests). */
export const SEARXNG_JSON = readFileSync(
  new URL("../tools/web/testdata/searxng.json", import.meta.url),
  "utf8",
);

/** The running servers. */
export interface WebServers {
  /** Goes in `allow_hosts`. `/page`, `/long` (5 000 × "x"), `/redirect?to=URL` (302), `/hang`, else 404. */
  site: TestServer;
  /** A SearXNG instance: `q=boom` answers 500, `q=garbled` answers HTML, anything else the captured JSON. */
  searx: TestServer;
  /** On 127.0.0.1, never in `allow_hosts`: its `requests` must stay empty. */
  canary: TestServer;
  /** A 127.0.0.1 port nothing listens on (a server was started there and closed). */
  gonePort: number;
  close(): Promise<void>;
}

/** Starts every server the suite needs. */
export async function startWebServers(): Promise<WebServers> {
  const canary = await startCanary();
  const site = await startServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/page") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end(PAGE);
    }
    if (url.pathname === "/long") {
      res.writeHead(200, { "content-type": "text/plain" });
      return res.end("x".repeat(5000));
    }
    if (url.pathname === "/redirect") {
      res.writeHead(302, { location: url.searchParams.get("to") ?? "/" });
      return res.end();
    }
    // `/hang` is never answered: the client's timeout must end it (closing the server drops the socket).
    if (url.pathname === "/hang") return undefined;
    res.writeHead(404, { "content-type": "text/plain" });
    return res.end("no such page");
  });
  const searx = await startServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const q = url.searchParams.get("q");
    // A real instance refuses the JSON format unless its settings enable it; this one requires the parameter.
    if (url.pathname !== "/search" || url.searchParams.get("format") !== "json") {
      res.writeHead(403);
      return res.end();
    }
    if (q === "boom") {
      res.writeHead(500, { "content-type": "text/plain" });
      return res.end("engine crashed");
    }
    if (q === "garbled") {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end("<html>maintenance</html>");
    }
    res.writeHead(200, { "content-type": "application/json" });
    return res.end(SEARXNG_JSON);
  });
  const gone = await startServer(() => undefined);
  await gone.close();
  return {
    site,
    searx,
    canary,
    gonePort: gone.port,
    close: async () => {
      await Promise.all([site.close(), searx.close(), canary.close()]);
    },
  };
}

/** One URL of the adversarial list and the refusal it must get. */
export interface UrlCase {
  note: string;
  /** `{C}` is the canary's port, `{SITE}` the allowed site's host:port. */
  url: string;
  /** The `network` error's `details.reason`. */
  reason: string;
  /** Words the message must contain. */
  phrase: string;
  /** Reached by a redirect from the allowed site rather than fetched directly. */
  via?: true;
}

const ADDRESS = "blocked_address";
const NAME = "blocked_host";
const CREDENTIALS = "credentials_in_url";
const LOOPBACK = "127.0.0.1 is a loopback address";
const LOOPBACK6 = "::1 is a loopback address";
const WITH_CREDENTIALS = "URLs with credentials (user:password@) are not fetched";
const METADATA = "169.254.169.254 is a cloud metadata address";
const THIS_MACHINE = "localhost is a name for this machine";

/**
 * Issue 4's URL list: every form of 127.0.0.1 (pointing at the canary), `[::1]`, `0`, cloud metadata by
 * address and by name, `localhost.`, userinfo tricks, and redirects from the allowed site to forbidden places.
 */
export const URL_CASES: UrlCase[] = (
  [
    ["127.0.0.1, port not allowed", "http://127.0.0.1:{C}/", ADDRESS, LOOPBACK],
    ["decimal", "http://2130706433:{C}/", ADDRESS, LOOPBACK],
    ["octal", "http://0177.0.0.1:{C}/", ADDRESS, LOOPBACK],
    ["hex", "http://0x7f000001:{C}/", ADDRESS, LOOPBACK],
    ["dotted hex", "http://0x7f.0x0.0x0.0x1:{C}/", ADDRESS, LOOPBACK],
    ["short", "http://127.1:{C}/", ADDRESS, LOOPBACK],
    ["short hex", "http://0x7f.1:{C}/", ADDRESS, LOOPBACK],
    ["IPv4-mapped IPv6", "http://[::ffff:127.0.0.1]:{C}/", ADDRESS, "embedding 127.0.0.1"],
    ["IPv6 loopback", "http://[::1]:{C}/", ADDRESS, LOOPBACK6],
    ["0", "http://0:{C}/", ADDRESS, "0.0.0.0 is an unspecified ('this network') address"],
    ["cloud metadata", "http://169.254.169.254/latest/meta-data/", ADDRESS, METADATA],
    [
      "metadata name",
      "http://metadata.google.internal/v1/",
      NAME,
      "metadata.google.internal is a cloud metadata",
    ],
    ["localhost.", "http://localhost.:{C}/", NAME, THIS_MACHINE],
    ["userinfo naming a host", "http://allowed.com@127.0.0.1:{C}/", CREDENTIALS, WITH_CREDENTIALS],
    ["user:password", "http://a:b@127.0.0.1:{C}/", CREDENTIALS, WITH_CREDENTIALS],
    ["userinfo naming the allowed site", "http://{SITE}@127.0.0.1:{C}/", CREDENTIALS, WITH_CREDENTIALS],
    ["fragment hiding @", "http://127.0.0.1:{C}#@allowed.com/", ADDRESS, LOOPBACK],
    ["redirect to another loopback port", "http://127.0.0.1:{C}/", ADDRESS, LOOPBACK, true],
    ["redirect to the decimal form", "http://2130706433:{C}/", ADDRESS, LOOPBACK, true],
    ["redirect to [::1]", "http://[::1]:{C}/", ADDRESS, LOOPBACK6, true],
    ["redirect to cloud metadata", "http://169.254.169.254/latest/meta-data/", ADDRESS, METADATA, true],
    ["redirect to localhost", "http://localhost:{C}/", NAME, THIS_MACHINE, true],
  ] as Array<[string, string, string, string, true?]>
).map(([note, url, reason, phrase, via]) => ({ note, url, reason, phrase, ...(via ? { via } : {}) }));
