/**
 * @module console/access
 * Who may use the console, checked before any route: the Host must be one the console serves (a page on
 * another site that re-points its DNS at 127.0.0.1 is refused), a state change must come from the console's
 * own Origin and carry the session's CSRF token, and the API needs the session secret in
 * `Authorization: Bearer …` (console/session.ts: a header, never a cookie, which other loopback ports would
 * receive), got by presenting the token — no more than console/signin-limit.ts allows.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { CSRF_HEADER, SESSION_HEADER, SessionTable } from "./session.js";
import { SignInLimit, type SignInLimitOptions } from "./signin-limit.js";

/** Shortest sign-in token accepted: 32 characters (a generated one is 43, 256 bits). */
export const MIN_TOKEN_CHARS = 32;
/** Fewest different characters a token may use ("aaaa…", "abab…" and "0123…" repeated are refused). */
const MIN_TOKEN_DISTINCT = 8;

/** Options of {@link ConsoleAccess}. */
export interface ConsoleAccessOptions {
  /** The secret a person presents once to sign in (see {@link consoleTokenProblem}). */
  token: string;
  /** `host:port` values the Host header may hold (more with `allowHost`). */
  hosts?: readonly string[];
  /** Whether the console is served over TLS (its origin is then https). */
  tls: boolean;
  /** How long a session lasts (default 12 hours). */
  sessionMs?: number;
  /** How many wrong tokens are taken before sign-in waits (defaults in console/signin-limit.ts). */
  signInLimit?: SignInLimitOptions;
  now?: () => number;
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/** A fresh token: 32 random bytes, base64url. */
export function newConsoleToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * Why `token` is too weak to guard the console, or undefined: fewer than 32 characters, or fewer than 8
 * different ones.
 * @example consoleTokenProblem("hunter2") // "the console token must be at least 32 characters (…)"
 */
export function consoleTokenProblem(token: string): string | undefined {
  if (token.length < MIN_TOKEN_CHARS)
    return `the console token must be at least ${MIN_TOKEN_CHARS} characters (it has ${token.length}); use a random one, e.g. \`openssl rand -base64 32\`, or leave it unset for a generated one`;
  if (new Set(token).size < MIN_TOKEN_DISTINCT)
    return `the console token must not repeat a few characters (it uses ${new Set(token).size} different ones); use a random one, e.g. \`openssl rand -base64 32\``;
  return undefined;
}

/** The checks and the sessions of one console. */
export class ConsoleAccess {
  private readonly tokenDigest: Buffer;
  private readonly hosts: Set<string>;
  private readonly sessions: SessionTable;
  readonly limit: SignInLimit;
  readonly tls: boolean;

  constructor(options: ConsoleAccessOptions) {
    const problem = consoleTokenProblem(options.token);
    if (problem) throw new Error(problem);
    this.tokenDigest = digest(options.token);
    this.hosts = new Set((options.hosts ?? []).map((h) => h.toLowerCase()));
    this.tls = options.tls;
    const now = options.now ?? Date.now;
    this.sessions = new SessionTable(options.sessionMs ?? 12 * 3_600_000, now);
    this.limit = new SignInLimit({ now, ...options.signInLimit });
  }

  /** Lets requests for `host` (`name:port`, as the Host header holds it) through. */
  allowHost(host: string): this {
    this.hosts.add(host.toLowerCase());
    return this;
  }

  /** Whether `token` is the console's (compared in constant time, over digests so lengths do not leak). */
  tokenMatches(token: string): boolean {
    return timingSafeEqual(digest(token), this.tokenDigest);
  }

  /** Starts a session for `name`: what the page keeps and sends back. */
  startSession(name: string) {
    return this.sessions.start(name);
  }

  /** Ends the session the `Authorization` header names. */
  endSession(header: string | undefined): boolean {
    return this.sessions.end(header);
  }

  /** The origin the console's own pages send (`http://host:port`), for the Host the request came to. */
  private origin(host: string): string {
    return `${this.tls ? "https" : "http"}://${host}`;
  }

  /**
   * The checks every request passes: a Host the console serves; for anything but GET/HEAD, the console's own
   * Origin. Refusals are plain text saying why.
   */
  readonly guard: MiddlewareHandler = async (c, next) => {
    const host = (c.req.header("host") ?? "").toLowerCase();
    if (!this.hosts.has(host))
      return c.text(`refused: the console does not serve host ${JSON.stringify(host)}`, 421);
    const method = c.req.method;
    if (method !== "GET" && method !== "HEAD") {
      const origin = c.req.header("origin");
      if (origin !== this.origin(host))
        return c.text(
          `refused: a change must come from the console's own page (origin ${JSON.stringify(origin ?? null)})`,
          403,
        );
    }
    await next();
  };

  /** Needs a session; for a state change also its CSRF token in the `x-csrf-token` header. */
  readonly signedIn: MiddlewareHandler = async (c, next) => {
    // Only the header counts: a cookie (which any loopback port receives) is never looked at.
    const session = this.sessions.find(c.req.header(SESSION_HEADER));
    if (!session) return c.json({ error: "not signed in: present the console's token at /login" }, 401);
    // Set before the CSRF check: its refusal is sealed too (console/seal.ts), so the page can tell it is ours.
    c.set("session" as never, session as never);
    const method = c.req.method;
    if (method !== "GET" && method !== "HEAD") {
      const sent = c.req.header(CSRF_HEADER) ?? "";
      if (!timingSafeEqual(digest(sent), digest(session.csrf)))
        return c.json({ error: "refused: missing or wrong CSRF token" }, 403);
    }
    await next();
  };
}

/** The headers every response carries: a strict CSP (no inline script or style), no framing, no caching. */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.header(
    "Content-Security-Policy",
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  c.header("X-Content-Type-Options", "nosniff");
  c.header("X-Frame-Options", "DENY");
  // Not no-referrer: with it Chromium sends `Origin: null` on the page's own form posts, which the Origin check refuses.
  c.header("Referrer-Policy", "same-origin");
  c.header("Cross-Origin-Opener-Policy", "same-origin");
  c.header("Cross-Origin-Resource-Policy", "same-origin");
  c.header("Cache-Control", "no-store");
};
