/**
 * Adversarial table: every URL here must be refused before a byte reaches the canary server (which listens on
 * 127.0.0.1 but is not in the allow list). The only allowed host is a separate "front" server.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startCanary, startServer, type TestServer } from "../test-support/web-servers.js";
import type { NetError, NetFailureReason } from "./errors.js";
import { type Resolver, safeFetch } from "./safe-fetch.js";

let canary: TestServer;
let front: TestServer;

/** A resolver for names no real DNS knows; everything else is not found. */
const fakeDns: Resolver = async (host) => {
  const table: Record<string, Array<{ address: string; family: number }>> = {
    "evil.example": [{ address: "127.0.0.1", family: 4 }],
    "evil6.example": [{ address: "::1", family: 6 }],
    "mixed.example": [
      { address: "93.184.216.34", family: 4 },
      { address: "127.0.0.1", family: 4 },
    ],
    "metadata.example": [{ address: "169.254.169.254", family: 4 }],
    "private.example": [{ address: "10.0.0.7", family: 4 }],
  };
  const found = table[host];
  if (!found) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return found;
};

beforeAll(async () => {
  canary = await startCanary();
  front = await startServer((req, res) => {
    const to = new URL(req.url ?? "/", "http://x").searchParams.get("to") ?? "/";
    res.writeHead(302, { location: to });
    res.end();
  });
});

afterAll(async () => {
  await canary.close();
  await front.close();
});

afterEach(() => {
  // The point of every case: nothing arrived.
  expect(canary.requests).toEqual([]);
});

async function refusal(url: string): Promise<NetError> {
  const error = await safeFetch(url, { allowHosts: [front.hostPort], lookup: fakeDns, timeoutMs: 5000 }).then(
    () => undefined,
    (e: unknown) => e as NetError,
  );
  if (!error) throw new Error(`${url} was fetched`);
  return error;
}

describe("SSRF: direct URLs", () => {
  const p = () => canary.port;
  const cases: Array<[string, () => string, NetFailureReason, string]> = [
    ["decimal IPv4", () => `http://2130706433:${p()}/`, "blocked_address", "127.0.0.1 is a loopback address"],
    ["hex IPv4", () => `http://0x7f000001:${p()}/`, "blocked_address", "127.0.0.1 is a loopback address"],
    ["octal IPv4", () => `http://0177.0.0.1:${p()}/`, "blocked_address", "127.0.0.1 is a loopback address"],
    [
      "mixed hex short IPv4",
      () => `http://0x7f.1:${p()}/`,
      "blocked_address",
      "127.0.0.1 is a loopback address",
    ],
    ["short IPv4", () => `http://127.1:${p()}/`, "blocked_address", "127.0.0.1 is a loopback address"],
    ["plain loopback, port not allowed", () => `http://127.0.0.1:${p()}/`, "blocked_address", "loopback"],
    ["other loopback address", () => `http://127.9.9.9:${p()}/`, "blocked_address", "loopback"],
    ["IPv4-mapped IPv6", () => `http://[::ffff:127.0.0.1]:${p()}/`, "blocked_address", "embedding 127.0.0.1"],
    [
      "IPv4-mapped IPv6 (hex)",
      () => `http://[::ffff:7f00:1]:${p()}/`,
      "blocked_address",
      "embedding 127.0.0.1",
    ],
    ["IPv4-compatible IPv6", () => `http://[::127.0.0.1]:${p()}/`, "blocked_address", "embedding 127.0.0.1"],
    ["NAT64 IPv6", () => `http://[64:ff9b::7f00:1]:${p()}/`, "blocked_address", "NAT64 address"],
    ["6to4 IPv6", () => `http://[2002:7f00:1::]:${p()}/`, "blocked_address", "6to4 address"],
    ["IPv6 loopback", () => `http://[::1]:${p()}/`, "blocked_address", "::1 is a loopback address"],
    ["IPv6 unspecified", () => `http://[::]:${p()}/`, "blocked_address", ":: is an unspecified address"],
    ["zero", () => `http://0:${p()}/`, "blocked_address", "0.0.0.0 is an unspecified"],
    ["0.0.0.0", () => `http://0.0.0.0:${p()}/`, "blocked_address", "0.0.0.0 is an unspecified"],
    ["AWS metadata", () => "http://169.254.169.254/latest/meta-data/", "blocked_address", "cloud metadata"],
    [
      "metadata, decimal",
      () => "http://2852039166/",
      "blocked_address",
      "169.254.169.254 is a cloud metadata",
    ],
    ["Alibaba metadata", () => "http://100.100.100.200/", "blocked_address", "cloud metadata address"],
    ["AWS IPv6 metadata", () => "http://[fd00:ec2::254]/", "blocked_address", "cloud metadata address"],
    [
      "GCP metadata name",
      () => "http://metadata.google.internal/",
      "blocked_host",
      "a cloud metadata host name",
    ],
    ["metadata name with dot", () => "http://metadata.google.internal./", "blocked_host", "cloud metadata"],
    ["bare metadata name", () => "http://metadata/", "blocked_host", "a cloud metadata host name"],
    ["localhost", () => `http://localhost:${p()}/`, "blocked_host", "localhost is a name for this machine"],
    ["localhost.", () => `http://localhost.:${p()}/`, "blocked_host", "localhost is a name for this machine"],
    ["LOCALHOST", () => `http://LocalHost:${p()}/`, "blocked_host", "localhost is a name for this machine"],
    ["*.localhost", () => `http://app.localhost:${p()}/`, "blocked_host", "(*.localhost)"],
    ["private 10/8", () => "http://10.0.0.1/", "blocked_address", "private address"],
    ["private 192.168/16", () => "http://192.168.0.1/", "blocked_address", "private address"],
    ["CGNAT", () => "http://100.64.0.1/", "blocked_address", "carrier-grade NAT"],
    [
      "userinfo before loopback",
      () => `http://allowed.com@127.0.0.1:${p()}/`,
      "credentials_in_url",
      "credentials",
    ],
    ["user:pass before loopback", () => `http://a:b@127.0.0.1:${p()}/`, "credentials_in_url", "credentials"],
    ["fragment hiding @", () => `http://127.0.0.1:${p()}#@allowed.com/`, "blocked_address", "loopback"],
    // WHATWG reads `\\` as `/`: the host is allowed.com (unknown to the fake DNS), never 127.0.0.1.
    [
      "backslash trick",
      () => `http://allowed.com\\@127.0.0.1:${p()}/`,
      "dns",
      "DNS lookup of allowed.com failed",
    ],
    [
      "name resolving to loopback",
      () => `http://evil.example:${p()}/`,
      "blocked_address",
      "resolves to 127.0.0.1",
    ],
    ["name resolving to ::1", () => `http://evil6.example:${p()}/`, "blocked_address", "resolves to ::1"],
    [
      "one bad address of two",
      () => `http://mixed.example:${p()}/`,
      "blocked_address",
      "resolves to 127.0.0.1",
    ],
    ["name resolving to metadata", () => "http://metadata.example/", "blocked_address", "169.254.169.254"],
    ["name resolving to private", () => "http://private.example/", "blocked_address", "resolves to 10.0.0.7"],
    ["file scheme", () => "file:///etc/passwd", "unsupported_scheme", "only http and https"],
    ["ftp scheme", () => `ftp://127.0.0.1:${p()}/`, "unsupported_scheme", "only http and https"],
    ["gopher scheme", () => `gopher://127.0.0.1:${p()}/_GET`, "unsupported_scheme", "only http and https"],
    ["not a URL", () => "not a url", "invalid_url", "invalid URL: not a url"],
  ];

  it.each(cases)("refuses %s", async (_note, url, reason, phrase) => {
    const error = await refusal(url());
    expect(error.type).toBe("network");
    expect(error.reason).toBe(reason);
    expect(error.message).toContain(phrase);
  });

  it("words a resolved-name refusal fully", async () => {
    const error = await refusal(`http://evil.example:${canary.port}/x`);
    expect(error.message).toBe(
      `refused to fetch http://evil.example:${canary.port}/x: evil.example resolves to 127.0.0.1, which is a ` +
        "loopback address (add the host to allow_hosts to permit it)",
    );
    expect(error.address).toBe("127.0.0.1");
  });
});

describe("SSRF: redirects from an allowed server", () => {
  const cases: Array<[string, () => string, string]> = [
    ["to a loopback port not allowed", () => `http://127.0.0.1:${canary.port}/`, "loopback address"],
    ["to the canary by decimal IP", () => `http://2130706433:${canary.port}/`, "loopback address"],
    ["to localhost", () => `http://localhost:${canary.port}/`, "a name for this machine"],
    ["to [::1]", () => `http://[::1]:${canary.port}/`, "loopback address"],
    ["to cloud metadata", () => "http://169.254.169.254/latest/meta-data/iam/", "cloud metadata address"],
    ["to a name resolving to loopback", () => `http://evil.example:${canary.port}/`, "resolves to 127.0.0.1"],
    ["to a file URL", () => "file:///etc/passwd", "only http and https"],
  ];

  it.each(cases)("refuses a redirect %s", async (_note, target, phrase) => {
    const error = await refusal(`${front.origin}/?to=${encodeURIComponent(target())}`);
    expect(error.type).toBe("network");
    expect(error.message).toContain(phrase);
    expect(front.requests.length).toBeGreaterThan(0);
  });
});
