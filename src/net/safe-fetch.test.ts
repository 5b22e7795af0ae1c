import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../test-support/web-servers.js";
import { NetError } from "./errors.js";
import { httpError, type Resolver, safeFetch } from "./safe-fetch.js";

let server: TestServer;
let other: TestServer;

beforeAll(async () => {
  other = await startServer((req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ host: req.headers.host, auth: req.headers.authorization ?? null }));
  });
  server = await startServer(async (req, res, body) => {
    const url = new URL(req.url ?? "/", "http://x");
    const send = (status: number, text: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "text/plain", ...headers });
      res.end(text);
    };
    switch (url.pathname) {
      case "/hello":
        return send(200, `hello ${req.method} ${req.headers.host}`);
      case "/echo":
        return send(
          200,
          JSON.stringify({ method: req.method, body, type: req.headers["content-type"] ?? null }),
        );
      case "/missing":
        return send(404, "nope");
      case "/redirect":
        return send(Number(url.searchParams.get("status") ?? 302), "", {
          location: url.searchParams.get("to") ?? "/hello",
        });
      case "/loop":
        return send(302, "", { location: "/loop" });
      case "/gzip":
        res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
        return res.end(gzipSync("gzipped text"));
      case "/deflate":
        res.writeHead(200, { "content-type": "text/plain", "content-encoding": "deflate" });
        return res.end(deflateSync("deflated text"));
      case "/br":
        res.writeHead(200, { "content-type": "text/plain", "content-encoding": "br" });
        return res.end(brotliCompressSync("brotli text"));
      case "/bomb":
        // 50 MB of zeros compress to ~50 KB: the cap must apply to decoded bytes.
        res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
        return res.end(gzipSync(Buffer.alloc(50 * 1024 * 1024)));
      case "/corrupt":
        res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
        return res.end("this is not gzip");
      case "/big":
        return send(200, "x".repeat(100_000));
      case "/slow":
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("start");
        return; // never ends
      case "/hang":
        return; // never answers
      default:
        return send(500, "unexpected");
    }
  });
});

afterAll(async () => {
  await server.close();
  await other.close();
});

function unexpected(): never {
  throw new Error("expected the fetch to fail");
}
const asNetError = (e: unknown) => e as NetError;

const allow = () => [server.hostPort, other.hostPort];

describe("safeFetch", () => {
  it("fetches an allowed loopback URL and reports status, headers, body and final URL", async () => {
    const res = await safeFetch(`${server.origin}/hello`, { allowHosts: allow() });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/plain");
    expect(res.body.toString()).toBe(`hello GET ${server.hostPort}`);
    expect(res.url).toBe(`${server.origin}/hello`);
    expect(res.address).toBe("127.0.0.1");
    expect(res.truncated).toBe(false);
    expect(res.redirects).toEqual([]);
  });

  it("sends a method, body and headers", async () => {
    const res = await safeFetch(`${server.origin}/echo`, {
      allowHosts: allow(),
      method: "post",
      body: "a=1",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(JSON.parse(res.body.toString())).toEqual({
      method: "POST",
      body: "a=1",
      type: "application/x-www-form-urlencoded",
    });
  });

  it("returns error statuses as responses, and httpError names status and URL", async () => {
    const res = await safeFetch(`${server.origin}/missing`, { allowHosts: allow() });
    expect(res.status).toBe(404);
    const error = httpError(res);
    expect(error.type).toBe("http_error");
    expect(error.message).toBe(`HTTP 404 Not Found fetching ${server.origin}/missing`);
    expect(error.status).toBe(404);
  });

  it("follows redirects, recording each hop", async () => {
    const to = encodeURIComponent(`${other.origin}/x`);
    const res = await safeFetch(`${server.origin}/redirect?to=${to}`, { allowHosts: allow() });
    expect(res.url).toBe(`${other.origin}/x`);
    expect(res.redirects).toEqual([`${server.origin}/redirect?to=${to}`]);
  });

  it.each([
    [303, "POST", "GET", ""],
    [302, "POST", "GET", ""],
    [301, "POST", "GET", ""],
    [307, "POST", "POST", "a=1"],
    [308, "POST", "POST", "a=1"],
    [303, "PUT", "GET", ""],
  ])("a %i after %s continues as %s", async (status, method, wantMethod, wantBody) => {
    const res = await safeFetch(`${server.origin}/redirect?status=${status}&to=/echo`, {
      allowHosts: allow(),
      method,
      body: "a=1",
      headers: { "content-type": "text/plain" },
    });
    const echoed = JSON.parse(res.body.toString()) as { method: string; body: string; type: string | null };
    expect(echoed.method).toBe(wantMethod);
    expect(echoed.body).toBe(wantBody);
    expect(echoed.type).toBe(wantBody ? "text/plain" : null);
  });

  it("drops credentials when a redirect leaves the origin", async () => {
    const to = encodeURIComponent(`${other.origin}/x`);
    const res = await safeFetch(`${server.origin}/redirect?to=${to}`, {
      allowHosts: allow(),
      headers: { Authorization: "Bearer secret" },
    });
    expect(JSON.parse(res.body.toString())).toEqual({ host: other.hostPort, auth: null });
  });

  it("stops after maxRedirects hops", async () => {
    const error = await safeFetch(`${server.origin}/loop`, { allowHosts: allow(), maxRedirects: 3 }).then(
      unexpected,
      asNetError,
    );
    expect(error).toBeInstanceOf(NetError);
    expect((error as NetError).reason).toBe("too_many_redirects");
    expect((error as NetError).message).toBe(`too many redirects fetching ${server.origin}/loop (limit 3)`);
    expect(server.requests.filter((r) => r.url === "/loop").length).toBe(4);
  });

  it.each([
    ["/gzip", "gzipped text"],
    ["/deflate", "deflated text"],
    ["/br", "brotli text"],
  ])("decodes %s", async (path, text) => {
    const res = await safeFetch(`${server.origin}${path}`, { allowHosts: allow() });
    expect(res.body.toString()).toBe(text);
  });

  it("caps decoded bytes of a compression bomb and marks the body truncated", async () => {
    const res = await safeFetch(`${server.origin}/bomb`, { allowHosts: allow(), maxBytes: 1024 * 1024 });
    expect(res.body.length).toBe(1024 * 1024);
    expect(res.truncated).toBe(true);
  });

  it("truncates at maxBytes, or fails when asked to", async () => {
    const res = await safeFetch(`${server.origin}/big`, { allowHosts: allow(), maxBytes: 1000 });
    expect(res.body.toString()).toBe("x".repeat(1000));
    expect(res.truncated).toBe(true);
    const error = await safeFetch(`${server.origin}/big`, {
      allowHosts: allow(),
      maxBytes: 1000,
      onTooLarge: "error",
    }).then(unexpected, asNetError);
    expect(error.reason).toBe("too_large");
    expect(error.message).toBe(`response from ${server.origin}/big is larger than the 1000-byte limit`);
  });

  it("reports a corrupt encoding", async () => {
    const error = await safeFetch(`${server.origin}/corrupt`, { allowHosts: allow() }).then(
      unexpected,
      asNetError,
    );
    expect(error.reason).toBe("decode");
    expect(error.message).toBe(`cannot decode ${server.origin}/corrupt: corrupt gzip body`);
  });

  it.each(["/hang", "/slow"])("times out on %s with the elapsed time", async (path) => {
    const error = await safeFetch(`${server.origin}${path}`, { allowHosts: allow(), timeoutMs: 200 }).then(
      unexpected,
      asNetError,
    );
    expect(error.type).toBe("timeout");
    expect(error.elapsedMs).toBeGreaterThanOrEqual(190);
    expect(error.message).toMatch(
      new RegExp(`^timed out after \\d+ ms fetching ${server.origin}${path} \\(limit 200 ms\\)$`),
    );
  });

  it("is cancelled by the caller's signal", async () => {
    const controller = new AbortController();
    const pending = safeFetch(`${server.origin}/hang`, { allowHosts: allow(), signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const error = await pending.then(unexpected, asNetError);
    expect(error.type).toBe("cancelled");
    expect(error.message).toBe(`fetch of ${server.origin}/hang was cancelled`);
  });

  it("reports a refused connection with URL and reason", async () => {
    const closed = await startServer(() => {});
    await closed.close();
    const error = await safeFetch(`${closed.origin}/`, { allowHosts: [closed.hostPort] }).then(
      unexpected,
      asNetError,
    );
    expect(error.type).toBe("network");
    expect(error.reason).toBe("refused");
    expect(error.message).toBe(`network error fetching ${closed.origin}/: connection refused`);
  });

  it("reports a DNS failure with URL and reason", async () => {
    const lookup: Resolver = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    const error = await safeFetch("http://no-such-host.example/", { lookup }).then(unexpected, asNetError);
    expect(error.reason).toBe("dns");
    expect(error.message).toBe(
      "network error fetching http://no-such-host.example/: DNS lookup of no-such-host.example failed (ENOTFOUND)",
    );
  });

  it("resolves once and pins the socket to the vetted address, keeping the Host header", async () => {
    // `app.test` exists in no DNS: the request can only succeed through the pinned address.
    const calls: string[] = [];
    const lookup: Resolver = async (host) => {
      calls.push(host);
      return [{ address: "127.0.0.1", family: 4 }];
    };
    const res = await safeFetch(`http://app.test:${server.port}/hello`, {
      lookup,
      allowHosts: [`app.test:${server.port}`],
    });
    expect(res.body.toString()).toBe(`hello GET app.test:${server.port}`);
    expect(calls).toEqual(["app.test"]);
  });

  it("reaches an allowed name through the system resolver", async () => {
    const res = await safeFetch(`http://localhost:${server.port}/hello`, {
      allowHosts: [`localhost:${server.port}`],
    });
    expect(res.body.toString()).toBe(`hello GET localhost:${server.port}`);
    expect(res.address).toBe("127.0.0.1");
  });

  it("tries every vetted address when the first does not answer", async () => {
    // The server listens on 127.0.0.1 only; ::1 (first) refuses or is absent, so the socket moves on.
    const lookup: Resolver = async () => [
      { address: "::1", family: 6 },
      { address: "127.0.0.1", family: 4 },
    ];
    const res = await safeFetch(`http://dual.test:${server.port}/hello`, {
      lookup,
      allowHosts: [`dual.test:${server.port}`],
    });
    expect(res.body.toString()).toBe(`hello GET dual.test:${server.port}`);
    expect(res.address).toBe("127.0.0.1");
  });

  it("refuses a bad allow_hosts entry", async () => {
    await expect(safeFetch(`${server.origin}/hello`, { allowHosts: ["http://x/"] })).rejects.toThrow(
      'invalid allow_hosts entry "http://x/": expected host or host:port',
    );
  });
});
