/**
 * @module sandbox/network/http-headers
 * What the egress proxy passes on between a command and a server: headers minus the hop-by-hop ones (RFC 9110
 * §7.6.1 — among them the proxy credential, which must never reach the server), and socket errors in words.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";

/** Headers that belong to one connection, never forwarded. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/**
 * `headers` without hop-by-hop headers (and those the `connection` header names).
 * @example forwardedHeaders({ "proxy-authorization": "Basic x", accept: "*\/*" }) // { accept: "*\/*" }
 */
export function forwardedHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? "")
      .split(",")
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** A socket error in a few words: `connection refused (ECONNREFUSED)`. */
export function socketErrorPhrase(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code ?? "";
  const words: Record<string, string> = {
    ECONNREFUSED: "connection refused",
    ECONNRESET: "connection reset",
    EHOSTUNREACH: "host unreachable",
    ENETUNREACH: "network unreachable",
    ETIMEDOUT: "timed out",
  };
  return words[code] ? `${words[code]} (${code})` : code ? `${error.message} (${code})` : error.message;
}
