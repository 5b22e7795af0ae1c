/**
 * The egress proxy on its own, over its unix socket, with real servers on 127.0.0.1: testdata/proxy.json
 * (credential, forwarding, every refusal with its reason), then what it keeps and what `close()` ends.
 */
import { readFileSync, statSync } from "node:fs";
import { type IncomingMessage, request } from "node:http";
import { connect, type Socket } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Resolver } from "../../net/index.js";
import { startCanary, startServer, type TestServer } from "../../test-support/web-servers.js";
import { type EgressProxy, PROXY_USER, startEgressProxy } from "./proxy.js";

interface ProxyCase {
  note: string;
  method: "GET" | "CONNECT";
  target: string;
  auth: "good" | "none" | "wrong" | "other-user";
  want: { status: number; reason?: string; body?: string };
  canary?: boolean;
  forwardsCredential?: false;
}

const here = dirname(fileURLToPath(import.meta.url));
const cases = (
  JSON.parse(readFileSync(join(here, "testdata", "proxy.json"), "utf8")) as { cases: ProxyCase[] }
).cases;

const fakeDns: Resolver = async (host) => {
  const table: Record<string, Array<{ address: string; family: number }>> = {
    "private.example": [{ address: "10.0.0.7", family: 4 }],
    "mixed.example": [
      { address: "93.184.216.34", family: 4 },
      { address: "127.0.0.1", family: 4 },
    ],
    "metadata.example": [{ address: "169.254.169.254", family: 4 }],
  };
  const found = table[host];
  if (!found) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return found;
};

let named: TestServer;
let canary: TestServer;
let proxy: EgressProxy;

beforeAll(async () => {
  named = await startServer((_req, res) => res.end("named-ok\n"));
  canary = await startCanary();
  proxy = await startEgressProxy({ allowHosts: [named.hostPort], lookup: fakeDns });
});
afterAll(async () => {
  proxy.close();
  await named.close();
  await canary.close();
});

const fill = (text: string) =>
  text
    .replaceAll("$NAMED", named.hostPort)
    .replaceAll("$UNNAMED_PORT", String(canary.port))
    .replaceAll("$UNNAMED", canary.hostPort);

function credential(auth: ProxyCase["auth"]): Record<string, string> {
  const basic = (user: string, password: string) => ({
    "proxy-authorization": `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
  });
  if (auth === "good") return basic(PROXY_USER, proxy.token);
  if (auth === "wrong") return basic(PROXY_USER, "0".repeat(proxy.token.length));
  if (auth === "other-user") return basic("someone", proxy.token);
  return {};
}

/** What came back: status, reason phrase and body (through the tunnel, for a CONNECT that succeeded). */
async function send(c: ProxyCase): Promise<{ status: number; reason: string; body: string }> {
  const target = fill(c.target);
  const req = request({
    socketPath: proxy.socketPath,
    method: c.method,
    path: target,
    headers: credential(c.auth),
  });
  if (c.method === "CONNECT") {
    const [res, socket] = await new Promise<[IncomingMessage, Socket]>((resolve, reject) => {
      req.once("connect", (r, s) => resolve([r, s as Socket]));
      req.once("error", reject);
      req.end();
    });
    if (res.statusCode !== 200) {
      socket.destroy();
      return { status: res.statusCode ?? 0, reason: res.statusMessage ?? "", body: "" };
    }
    socket.end(`GET /hello HTTP/1.1\r\nhost: ${target}\r\nconnection: close\r\n\r\n`);
    return { status: 200, reason: res.statusMessage ?? "", body: await readAll(socket) };
  }
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    req.once("response", resolve);
    req.once("error", reject);
    req.end();
  });
  return { status: res.statusCode ?? 0, reason: res.statusMessage ?? "", body: await readAll(res) };
}

function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    stream.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    stream.once("end", () => resolve(text));
    stream.once("error", reject);
  });
}

describe("the egress proxy", () => {
  it.each(cases.map((c) => [c.note, c] as const))("%s", async (_note, c) => {
    const before = canary.requests.length;
    const seenBefore = named.requests.length;
    const got = await send(c);
    expect(got.status, `${got.reason}\n${got.body}`).toBe(c.want.status);
    if (c.want.reason) expect(got.reason).toContain(fill(c.want.reason));
    if (c.want.body) expect(got.body).toContain(fill(c.want.body));
    if (c.want.status === 407 && c.method === "GET") expect(got.body).toContain("HTTP_PROXY");
    if (c.canary) expect(canary.requests.length - before, "the canary was reached").toBe(0);
    if (c.forwardsCredential === false) {
      const seen = named.requests.slice(seenBefore);
      expect(seen.length).toBe(1);
      expect(seen[0]!.headers["proxy-authorization"]).toBeUndefined();
      expect(seen[0]!.headers.host).toBe(named.hostPort);
    }
  });

  it("lives in a folder only this user can enter", () => {
    expect(statSync(dirname(proxy.socketPath)).mode & 0o777).toBe(0o700);
  });

  it("remembers what it refused, once each, for the command's result", () => {
    const refusals = proxy.refusals();
    expect(refusals).toContain(
      `refused to connect to ${canary.hostPort}: 127.0.0.1 is a loopback address (add it to [sandbox] allow_hosts to permit it)`,
    );
    expect(new Set(refusals).size).toBe(refusals.length);
    expect(refusals.length).toBeLessThanOrEqual(10);
  });

  it("takes a bounded number of connections at once, closing the ones past the bound", async () => {
    const own = await startEgressProxy({ allowHosts: [], maxConnections: 2 });
    const open = (): Promise<Socket> =>
      new Promise((resolve) => {
        const socket = connect(own.socketPath, () => resolve(socket));
      });
    const held = [await open(), await open()];
    const third = await open();
    const closed = await new Promise<boolean>((resolve) => {
      third.once("close", () => resolve(true));
      third.resume();
    });
    expect(closed).toBe(true);
    expect(held.every((socket) => !socket.destroyed)).toBe(true);
    own.close();
  });

  it("close() ends open tunnels, stops listening and removes its folder", async () => {
    const own = await startEgressProxy({ allowHosts: [named.hostPort] });
    const req = request({
      socketPath: own.socketPath,
      method: "CONNECT",
      path: named.hostPort,
      headers: {
        "proxy-authorization": `Basic ${Buffer.from(`${PROXY_USER}:${own.token}`).toString("base64")}`,
      },
    });
    const tunnel = await new Promise<Socket>((resolve) => {
      req.once("connect", (_res, socket) => resolve(socket as Socket));
      req.end();
    });
    const ended = new Promise<void>((resolve) => tunnel.once("close", () => resolve()));
    own.close();
    await ended;
    expect(() => statSync(dirname(own.socketPath))).toThrow(/ENOENT/);
    const refused = await new Promise<string>((resolve) => {
      connect(own.socketPath).once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? ""));
    });
    expect(refused).toBe("ENOENT");
  });
});
