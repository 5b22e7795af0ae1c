/**
 * toolgate served over streamable HTTP on 127.0.0.1 (src/mcp/http-server.ts), driven by the SDK's
 * streamable-HTTP client, raw `fetch` for the refusals, and the MCP Inspector's CLI as a separate process.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool, okResult } from "../core/index.js";
import { type PolicyGate, policyGate } from "../test-support/policy-gate.js";
import { createToolgate, type Toolgate } from "../toolgate.js";
import {
  isLoopbackHost,
  McpHttpOptionsError,
  type McpHttpServing,
  serveMcpHttp,
  startMcpHttp,
} from "./http-server.js";

const run = promisify(execFile);
const inspector = join(
  import.meta.dirname,
  "..",
  "..",
  "node_modules",
  "@modelcontextprotocol",
  "inspector-cli",
  "build",
  "index.js",
);

let fixture: PolicyGate;
let gate: PolicyGate["gate"];
let http: McpHttpServing;
/** What the `launch` tool was asked to launch (it ran). */
const launched = () => fixture.ran.filter((r) => r.startsWith("launch:")).map((r) => r.slice(7));

beforeAll(async () => {
  fixture = await policyGate("http");
  gate = fixture.gate;
  http = await serveMcpHttp(gate, { host: "127.0.0.1", port: 0 });
});
afterAll(async () => {
  await http?.close();
  await fixture?.close();
});

async function connect(
  answer?: (message: string) => ElicitResult,
  token = http.token,
  url = http.url,
): Promise<Client> {
  const client = new Client(
    { name: "http-test", version: "1.0.0" },
    { capabilities: answer ? { elicitation: { form: {} } } : {} },
  );
  if (answer)
    client.setRequestHandler(ElicitRequestSchema, async (request) => answer(String(request.params.message)));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

function text(result: Awaited<ReturnType<Client["callTool"]>>): string {
  return (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("");
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

async function post(headers: Record<string, string>, url = http.url): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(initialize),
  });
}

describe("serveMcpHttp", () => {
  it("lists and calls tools for the SDK's streamable-HTTP client, through the policy", async () => {
    const client = await connect();
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(expect.arrayContaining(["greet", "launch", "wipe"]));
      expect(text(await client.callTool({ name: "greet", arguments: { what: "ada" } }))).toBe(
        "greet did ada",
      );
      const denied = await client.callTool({ name: "wipe", arguments: { what: "disk" } });
      expect(denied.isError).toBe(true);
      // Without elicitation, an ask cannot be put to anyone: refused.
      const asked = await client.callTool({ name: "launch", arguments: { what: "x" } });
      expect(asked.isError).toBe(true);
      expect(launched()).toEqual([]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("asks the session whose call raised the ask, and only that one", async () => {
    const seenA: string[] = [];
    const seenB: string[] = [];
    const a = await connect((m) => {
      seenA.push(m);
      return { action: "accept", content: { approve: true } };
    });
    const b = await connect((m) => {
      seenB.push(m);
      return { action: "decline" };
    });
    try {
      expect(http.sessionCount()).toBeGreaterThanOrEqual(2);
      const approved = await a.callTool({ name: "launch", arguments: { what: "rocket" } });
      expect(text(approved)).toBe("launch did rocket");
      const refused = await b.callTool({ name: "launch", arguments: { what: "boat" } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/declined in the MCP client/);
      expect(seenA).toHaveLength(1);
      expect(seenA[0]).toMatch(/^toolgate asks: allow launch\?/);
      expect(seenB).toHaveLength(1);
      expect(launched()).toEqual(["rocket"]);
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);

  it.each([
    ["no token", {}, 401],
    ["a wrong token", { authorization: "Bearer wrong-token-wrong-token-wrong" }, 401],
    ["a foreign Origin", { origin: "http://evil.example" }, 403],
    ["a foreign Host", { host: "evil.example" }, 403],
  ])("refuses a request with %s", async (_note, extra, status) => {
    const headers: Record<string, string> = { authorization: `Bearer ${http.token}`, ...extra };
    if (!("authorization" in extra) && status === 401) delete headers.authorization;
    let response: Response;
    if ("host" in extra) {
      // fetch will not send a forged Host: speak HTTP over a socket instead.
      response = await rawPost(http.port, extra.host as string, headers);
    } else response = await post(headers);
    expect(response.status).toBe(status);
    if (status === 401) expect(response.headers.get("www-authenticate")).toBe("Bearer");
  });

  it("accepts its own origin, and a client connecting with the right token", async () => {
    const response = await post({
      authorization: `Bearer ${http.token}`,
      origin: `http://127.0.0.1:${http.port}`,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  // The Inspector CLI is a Node process per call, seconds to start on a busy machine; its two calls are
  // independent sessions of one server, so they start at once.
  it.concurrent("lists tools for the MCP Inspector CLI", async ({ expect }) => {
    const { stdout } = await run(
      process.execPath,
      [
        inspector,
        http.url,
        "--transport",
        "http",
        "--method",
        "tools/list",
        "--header",
        `Authorization: Bearer ${http.token}`,
      ],
      // The CLI finds its own package.json relative to the working directory (`../package.json`).
      { timeout: 60_000, cwd: dirname(inspector) },
    );
    const names = (JSON.parse(stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["greet", "launch", "wipe"]));
  }, 90_000);

  it.concurrent("calls a tool for the MCP Inspector CLI", async ({ expect }) => {
    const { stdout } = await run(
      process.execPath,
      [
        inspector,
        http.url,
        "--transport",
        "http",
        "--method",
        "tools/call",
        "--tool-name",
        "greet",
        "--tool-arg",
        "what=inspector",
        "--header",
        `Authorization: Bearer ${http.token}`,
      ],
      // The CLI finds its own package.json relative to the working directory (`../package.json`).
      { timeout: 60_000, cwd: dirname(inspector) },
    );
    expect(JSON.parse(stdout).content[0].text).toBe("greet did inspector");
  }, 90_000);

  it("refuses a non-loopback address unless asked, and a short token", async () => {
    await expect(serveMcpHttp(gate, { host: "0.0.0.0" })).rejects.toThrow(McpHttpOptionsError);
    await expect(serveMcpHttp(gate, { token: "short" })).rejects.toThrow(/at least 16/);
    expect(["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"].every(isLoopbackHost)).toBe(true);
    expect(["0.0.0.0", "192.168.1.2", "example.com", "::"].some(isLoopbackHost)).toBe(false);
  });
});

/** Polls `done` until it holds (state, not time); fails with `what` after a generous bound. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; !done(); i++) {
    if (i > 2_400) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("serveMcpHttp sessions: idle expiry and caps (issue 27.7)", () => {
  let root: string;
  let sessionsGate: Toolgate;
  /** Set once the `hold` tool is running; its call ends when `release` is called. */
  let holding = false;
  let release = () => {};
  const TOKEN_A = "client-a-token-0123456789";
  const TOKEN_B = "client-b-token-0123456789";

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "tg-http-sessions-"));
    const hold = defineTool({
      name: "hold",
      description: "Runs until the test releases it",
      parameters: { type: "object", properties: {} },
      kind: "read",
      risk: "low",
      run: () =>
        new Promise((resolve) => {
          holding = true;
          release = () => resolve(okResult("released"));
        }),
    });
    sessionsGate = await createToolgate({
      roots: [root],
      builtins: false,
      tools: [hold],
      policyText: 'default = "allow"\n',
      logger: { warn: () => undefined },
    });
  });
  afterAll(async () => {
    await sessionsGate?.close();
    await rm(root, { recursive: true, force: true });
  });

  it("expires 65 abandoned sessions beside an active one, which keeps its call, and then serves a new client", async () => {
    // The sessions' clock is the test's: it moves past the idle time at once, so nothing waits for time and
    // a slow machine cannot expire a session between a client's requests.
    let now = 0;
    const idle = 120_000;
    const server = await startMcpHttp(sessionsGate, { sessionIdleMs: idle, maxSessions: 66 }, () => now);
    try {
      const active = await connect(undefined, server.token, server.url);
      const call = active.callTool({ name: "hold", arguments: {} });
      await until(() => holding, "the active client's call started");
      // Clients that go away without ending their session (no DELETE), as one that reconnects does.
      for (let i = 0; i < 65; i++) await (await connect(undefined, server.token, server.url)).close();
      expect(server.sessionCount()).toBe(66);
      // Full, and every abandoned session is still fresh: a new client is refused, told when to come back.
      await expect(connect(undefined, server.token, server.url)).rejects.toThrow(
        /too many sessions \(at most 66\)/,
      );
      const refused = await post({ authorization: `Bearer ${server.token}` }, server.url);
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe(String(idle / 1000));
      // Once they have been idle that long, the next client is served at once (its arrival reclaims them);
      // the session with a call in flight (and its stream open) is kept.
      now += idle;
      const newcomer = await connect(undefined, server.token, server.url);
      expect(server.sessionCount()).toBe(2);
      expect((await newcomer.listTools()).tools.map((t) => t.name)).toEqual(["hold"]);
      release();
      expect(text(await call)).toBe("released");
      // The active session was never dropped: it still answers.
      expect((await active.listTools()).tools.map((t) => t.name)).toEqual(["hold"]);
      await newcomer.close();
      await active.close();
    } finally {
      release();
      await server.close();
    }
  }, 120_000);

  it("expires idle sessions on its own too, with a short idle time on the real clock", async () => {
    // Sessions opened by raw initialize requests need no second request, so expiry cannot race them.
    const server = await serveMcpHttp(sessionsGate, { sessionIdleMs: 50 });
    try {
      for (let i = 0; i < 3; i++)
        expect((await post({ authorization: `Bearer ${server.token}` }, server.url)).status).toBe(200);
      await until(() => server.sessionCount() === 0, "the idle sessions expired");
    } finally {
      await server.close();
    }
  }, 120_000);

  it("refuses past a full cap with Retry-After, and keeps one client's sessions from taking another's places", async () => {
    const server = await serveMcpHttp(sessionsGate, {
      tokens: [TOKEN_A, TOKEN_B],
      maxSessions: 4,
      sessionIdleMs: 600_000,
    });
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    try {
      // Client A abandons its share (2 of 4) and is then refused; B still gets its own places.
      for (let i = 0; i < 2; i++) await (await connect(undefined, TOKEN_A, server.url)).close();
      const refusedA = await post(bearer(TOKEN_A), server.url);
      expect(refusedA.status).toBe(503);
      expect(((await refusedA.json()) as { error: { message: string } }).error.message).toBe(
        "too many sessions for this client token (at most 2)",
      );
      expect(Number(refusedA.headers.get("retry-after"))).toBeGreaterThan(0);
      const b = await connect(undefined, TOKEN_B, server.url);
      expect((await b.listTools()).tools).toHaveLength(1);
      // A session answers only the token that opened it.
      const ownB = await post(bearer(TOKEN_B), server.url);
      const sessionB = ownB.headers.get("mcp-session-id")!;
      expect(server.sessionCount()).toBe(4);
      const stolen = await fetch(server.url, {
        method: "POST",
        headers: {
          ...bearer(TOKEN_A),
          "mcp-session-id": sessionB,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      });
      expect(stolen.status).toBe(404);
      const full = await post(bearer(TOKEN_B), server.url);
      expect(full.status).toBe(503);
      expect(((await full.json()) as { error: { message: string } }).error.message).toBe(
        "too many sessions (at most 4)",
      );
      await b.close();
    } finally {
      await server.close();
    }
  }, 120_000);
});

/** A POST with a chosen Host header, over a plain socket. */
async function rawPost(port: number, host: string, headers: Record<string, string>): Promise<Response> {
  const { request } = await import("node:http");
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/mcp",
        method: "POST",
        headers: {
          ...headers,
          host,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
      },
      (res) => {
        res.resume();
        resolve(new Response(null, { status: res.statusCode ?? 0 }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(initialize));
  });
}
