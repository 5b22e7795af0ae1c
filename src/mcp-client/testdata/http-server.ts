/**
 * Serves the test MCP server over streamable HTTP on 127.0.0.1 (stateless: one server per request), or over
 * the older HTTP+SSE transport (`startSseTestServer`), refusing requests without the expected bearer token.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createTestServer } from "./test-server.mjs";

export interface RunningHttpServer {
  url: string;
  /** Requests seen (method and Authorization header). */
  requests: { method: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

export async function startHttpTestServer(
  token: string,
  options: { count?: number; pageSize?: number } = {},
): Promise<RunningHttpServer> {
  const requests: RunningHttpServer["requests"] = [];
  const http: HttpServer = createServer(async (req, res) => {
    requests.push({ method: req.method ?? "", authorization: req.headers.authorization });
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401).end("unauthorized");
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const server = createTestServer(options);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  // Idle keep-alive connections are closed by the client, never by this server: a server closing one just as
  // a starved client reuses it is a connection reset in the test.
  http.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** The test server over HTTP+SSE (`GET /sse`, `POST /messages?sessionId=`), the transport older hosts use. */
export async function startSseTestServer(token: string): Promise<RunningHttpServer> {
  const requests: RunningHttpServer["requests"] = [];
  const sessions = new Map<string, SSEServerTransport>();
  const http: HttpServer = createServer(async (req, res) => {
    requests.push({ method: req.method ?? "", authorization: req.headers.authorization });
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401).end("unauthorized");
      return;
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      sessions.set(transport.sessionId, transport);
      const server = createTestServer({});
      res.on("close", () => {
        sessions.delete(transport.sessionId);
        void server.close();
      });
      await server.connect(transport);
      return;
    }
    const transport = sessions.get(url.searchParams.get("sessionId") ?? "");
    if (req.method === "POST" && url.pathname === "/messages" && transport) {
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  // Idle keep-alive connections are closed by the client, never by this server: a server closing one just as
  // a starved client reuses it is a connection reset in the test.
  http.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
