/**
 * @module test-support/web-servers
 * Real HTTP servers on 127.0.0.1 (port 0) for the web tests: one with a handler, and a "canary" that records
 * every request so adversarial tests can prove nothing reached it.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** A request a test server received. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A running loopback server. */
export interface TestServer {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  origin: string;
  port: number;
  /** `127.0.0.1:PORT`, for allow lists. */
  hostPort: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => unknown;

/** Starts a server on 127.0.0.1 with `handler`; every request is also recorded. */
export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      Promise.resolve(handler(req, res, body)).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
  });
  // Idle keep-alive connections are closed by the client, never by this server (see model-server.ts: a
  // server closing one just as a starved client reuses it is a connection reset in the test).
  server.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    hostPort: `127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A server that answers 200 "canary" and records requests; a test asserts `requests` stays empty. */
export function startCanary(): Promise<TestServer> {
  return startServer((_req, res) => {
    res.setHeader("content-type", "text/plain");
    res.end("canary reached");
  });
}
