/**
 * @module policy/conditions/url
 * The `url` argument kind: URLs parsed with the WHATWG parser, so rules compare what a fetch would reach.
 * Operators `host` (exact or `*.example.com`), `scheme`, `port`, and the text operators on the normalized URL.
 */
import { normalizeHost } from "../../utils/index.js";
import type { ArgKindPlugin, ConditionTest, OperatorCompiler } from "../types.js";
import { stringList, typeName } from "./operands.js";
import { textPlugin } from "./text.js";

/** A URL argument as the operators see it. An unparseable one keeps its raw text and matches only deny rules. */
export type UrlValue =
  | {
      valid: true;
      /** The normalized URL (`new URL(raw).href`). */
      href: string;
      /** Lower case, without the colon: `https`. */
      scheme: string;
      /** Lower case, trailing dots removed, IPv6 without brackets; `""` for URLs without a host. */
      host: string;
      /** The explicit port, else the scheme's default; undefined for schemes without one. */
      port: number | undefined;
    }
  | { valid: false; raw: string };

const DEFAULT_PORTS: Readonly<Record<string, number>> = { http: 80, https: 443, ws: 80, wss: 443, ftp: 21 };

/** Parses a raw argument; never throws. */
export function prepareUrl(raw: unknown): UrlValue {
  if (typeof raw !== "string") return { valid: false, raw: String(raw) };
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { valid: false, raw };
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  const port = url.port ? Number(url.port) : DEFAULT_PORTS[scheme];
  return { valid: true, href: url.href, scheme, host: normalizeHost(url.hostname), port };
}

/** A test on a parsed URL; an unparseable URL holds only for deny rules (fail closed). */
function onUrl(test: (value: Extract<UrlValue, { valid: true }>) => boolean): ConditionTest<UrlValue> {
  return (value, decision) => (value.valid ? test(value) : decision === "deny");
}

/** Normalizes one host pattern the way URL hosts are normalized, so `127.1` means `127.0.0.1`. */
function hostPattern(pattern: string): (host: string) => boolean {
  const text = pattern.trim();
  const wildcard = text.startsWith("*.");
  const rest = wildcard ? text.slice(2) : text;
  if (rest === "" || rest.includes("*")) {
    throw new Error(
      `host pattern ${JSON.stringify(pattern)} is invalid: use an exact host or "*.example.com"`,
    );
  }
  // Two or more colons: an IPv6 address written without brackets.
  const literal = /:.*:/.test(rest) && !rest.startsWith("[") ? `[${rest}]` : rest;
  let parsed: URL;
  try {
    parsed = new URL(`http://${literal}/`);
  } catch {
    throw new Error(`host pattern ${JSON.stringify(pattern)} is not a valid host name`);
  }
  if (parsed.port || parsed.username || parsed.pathname !== "/" || parsed.search || parsed.hash) {
    throw new Error(
      `host pattern ${JSON.stringify(pattern)} must be a bare host (use the port and scheme operators)`,
    );
  }
  const host = normalizeHost(parsed.hostname);
  // `*.example.com` matches subdomains only: not `example.com`, not `evilexample.com`.
  return wildcard ? (h) => h.endsWith(`.${host}`) : (h) => h === host;
}

function portList(operand: unknown): Set<number> {
  const list = Array.isArray(operand) ? operand : [operand];
  if (list.length === 0) throw new Error("expects at least one port, got []");
  const ports = list.map((p) => {
    const n = typeof p === "string" && /^\d+$/.test(p) ? Number(p) : p;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > 65535) {
      throw new Error(
        `expects a port number (0-65535) or an array of them, got ${JSON.stringify(p) ?? typeName(p)}`,
      );
    }
    return n;
  });
  return new Set(ports);
}

/** A text operator applied to the normalized URL string. */
function onHref(name: string): OperatorCompiler<UrlValue> {
  return (operand) => {
    const compile = textPlugin.operators[name];
    if (!compile) throw new Error(`unknown operator ${name}`);
    const inner = compile(operand);
    return onUrl((value) => inner(value.href, "allow") === true);
  };
}

function normalizeHref(operand: unknown): unknown {
  if (typeof operand !== "string") return operand;
  try {
    return new URL(operand.trim()).href;
  } catch {
    return operand;
  }
}

/**
 * A `prefix` operand, made to end at a boundary: a whole URL is normalized like the URLs it is compared
 * with, so `https://docs.python.org` becomes `https://docs.python.org/` and cannot cover
 * `https://docs.python.org.evil.example/` (nor `https://docs.python.org@evil.example/`). A bare scheme
 * (`https://`) ends at the scheme. Text that is not a URL is kept (a normalized URL always starts with its
 * scheme, so such a prefix matches nothing an allow could be fooled by; the operand may also be compiled
 * for another kind's argument, a command's `git status`).
 */
function boundedPrefix(operand: unknown): unknown {
  if (typeof operand !== "string") return operand;
  const text = operand.trim();
  if (/^[a-z][a-z0-9+.-]*:(\/\/)?$/i.test(text)) return text.toLowerCase();
  return URL.canParse(text) ? new URL(text).href : operand;
}

const operators: Record<string, OperatorCompiler<UrlValue>> = {
  host(operand) {
    const matchers = stringList(operand).map(hostPattern);
    return onUrl((value) => value.host !== "" && matchers.some((m) => m(value.host)));
  },
  scheme(operand) {
    const schemes = new Set(stringList(operand).map((s) => s.trim().toLowerCase().replace(/:$/, "")));
    return onUrl((value) => schemes.has(value.scheme));
  },
  port(operand) {
    const ports = portList(operand);
    return onUrl((value) => value.port !== undefined && ports.has(value.port));
  },
  // equals / oneOf normalize their operands too, so `https://Example.com` equals `https://example.com/`.
  equals: (operand) => onHref("equals")(normalizeHref(operand)),
  oneOf: (operand) =>
    onHref("oneOf")(Array.isArray(operand) ? operand.map(normalizeHref) : normalizeHref(operand)),
  prefix: (operand) =>
    onHref("prefix")(Array.isArray(operand) ? operand.map(boundedPrefix) : boundedPrefix(operand)),
  contains: onHref("contains"),
  glob: onHref("glob"),
  regex: onHref("regex"),
};

/**
 * The `url` plug-in: `when.url = { host = ["docs.python.org", "*.mozilla.org"], scheme = "https" }`.
 * @example createUrlKind().operators.host!("*.example.com")(prepareUrl("https://a.example.com/"), "allow") // true
 */
export function createUrlKind(): ArgKindPlugin {
  const plugin: ArgKindPlugin<UrlValue> = {
    kind: "url",
    prepare: prepareUrl,
    operators: Object.freeze({ ...operators }),
  };
  return Object.freeze(plugin);
}
