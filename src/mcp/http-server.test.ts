/**
 * toolgate served over streamable HTTP on 127.0.0.1 (src/mcp/http-server.ts), driven by the SDK's
 * streamable-HTTP client, raw `fetch` for the refusals, and the MCP Inspector's CLI as a separate process.
 */
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PolicyGate, policyGate } from "../test-support/policy-gate.js";
import { isLoopbackHost, McpHttpOptionsError, type McpHttpServing, serveMcpHttp } from "./http-server.js";

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

async function connect(answer?: (message: string) => ElicitResult, token = http.token): Promise<Client> {
  const client = new Client(
    { name: "http-test", version: "1.0.0" },
    { capabilities: answer ? { elicitation: { form: {} } } : {} },
  );
  if (answer)
    client.setRequestHandler(ElicitRequestSchema, async (request) => answer(String(request.params.message)));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(http.url), {
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

async function post(headers: Record<string, string>): Promise<Response> {
  return fetch(http.url, {
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

  it("lists tools for the MCP Inspector CLI", async () => {
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

  it("calls a tool for the MCP Inspector CLI", async () => {
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
