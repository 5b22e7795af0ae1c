/**
 * @module net/target
 * Vetting a URL before any DNS or socket work: WHATWG parsing (so odd IPv4 spellings normalize), scheme and
 * credential checks, names that always mean "this machine" or "cloud metadata", and the host's allow list.
 */
import { normalizeHost } from "../utils/index.js";
import { networkError } from "./errors.js";

/** Host names refused before resolution (they mean this machine or a cloud metadata service). */
const BLOCKED_NAMES = new Set([
  "localhost",
  "localhost.localdomain",
  "ip6-localhost",
  "ip6-loopback",
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "metadata.azure.com",
  "instance-data",
  "instance-data.ec2.internal",
]);

/** An allow-list entry: a normalized host, and a port when the entry named one. */
export interface HostRule {
  host: string;
  port?: number;
}

/** The parts of a URL the fetcher needs, normalized. */
export interface Target {
  url: URL;
  /** Lowercase, no trailing dot, IPv6 without brackets. */
  host: string;
  port: number;
  https: boolean;
}

/** The port a URL connects to, default ports applied. */
export function effectivePort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

/**
 * Parses allow-list entries (`host`, `host:port`, `[v6]`, `[v6]:port`). Hosts go through the same WHATWG
 * normalization as URLs, so `127.1` in the list means `127.0.0.1`. Throws an Error naming a bad entry.
 */
export function parseAllowHosts(entries: readonly string[]): HostRule[] {
  return entries.map((entry) => {
    const text = entry.trim();
    let host = text;
    let port: number | undefined;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
    const hostPort = /^([^:[\]]+):(\d+)$/.exec(text);
    if (bracketed) {
      host = `[${bracketed[1]}]`;
      if (bracketed[2] !== undefined) port = Number(bracketed[2]);
    } else if (hostPort) {
      host = hostPort[1] ?? "";
      port = Number(hostPort[2]);
    } else if (text.includes(":")) {
      host = `[${text}]`;
    }
    let parsed: URL;
    try {
      parsed = new URL(`http://${host}/`);
    } catch {
      throw new Error(`invalid allow_hosts entry "${entry}": expected host or host:port`);
    }
    if (
      !host ||
      parsed.username ||
      parsed.pathname !== "/" ||
      (port !== undefined && (port < 1 || port > 65535))
    ) {
      throw new Error(`invalid allow_hosts entry "${entry}": expected host or host:port`);
    }
    return port === undefined
      ? { host: normalizeHost(parsed.hostname) }
      : { host: normalizeHost(parsed.hostname), port };
  });
}

/** True when the allow list names this target's host (and its port, when the entry has one). */
export function isAllowedTarget(target: Target, rules: readonly HostRule[]): boolean {
  return rules.some((r) => r.host === target.host && (r.port === undefined || r.port === target.port));
}

/** Why a host name is refused before resolution, or undefined. */
export function blockedName(host: string): string | undefined {
  if (BLOCKED_NAMES.has(host)) {
    return host.startsWith("metadata") || host.startsWith("instance-data")
      ? "a cloud metadata host name"
      : "a name for this machine";
  }
  if (host.endsWith(".localhost")) return "a name for this machine (*.localhost)";
  return undefined;
}

/**
 * Parses and checks a URL: http/https only, no credentials. Throws `NetError` (`network`) on refusal.
 * @example toTarget("http://0x7f.1/").host // "127.0.0.1"
 */
export function toTarget(raw: string | URL): Target {
  const text = String(raw);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw networkError("invalid_url", text, `invalid URL: ${text}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw networkError(
      "unsupported_scheme",
      url.href,
      `refused ${url.href}: only http and https URLs can be fetched (got ${url.protocol.slice(0, -1)})`,
    );
  }
  if (url.username || url.password) {
    throw networkError(
      "credentials_in_url",
      redact(url),
      `refused ${redact(url)}: URLs with credentials (user:password@) are not fetched`,
    );
  }
  return {
    url,
    host: normalizeHost(url.hostname),
    port: effectivePort(url),
    https: url.protocol === "https:",
  };
}

/** The URL with any credentials removed, for messages. */
export function redact(url: URL): string {
  if (!url.username && !url.password) return url.href;
  const copy = new URL(url.href);
  copy.username = "";
  copy.password = "";
  return copy.href;
}
