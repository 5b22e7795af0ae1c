/**
 * @module console/access
 * Who may use the console, checked before any route: the Host must be one the console serves (a page on
 * another site that re-points its DNS at 127.0.0.1 is refused), a state change must come from the console's
 * own Origin and carry the session's CSRF token, and everything but the login page needs the session cookie
 * got by presenting the token. Sessions live in this process's memory; restarting the console ends them.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";

/** The session cookie's name (`__Host-` when served over TLS: Secure, Path=/, no Domain). */
export const SESSION_COOKIE = "toolgate_console";
/** The header a state change carries its CSRF token in. */
export const CSRF_HEADER = "x-csrf-token";

/** One signed-in browser. */
export interface ConsoleSession {
  /** Who answers from it (the login form's name). */
  name: string;
  csrf: string;
  expiresAt: number;
}

/** Options of {@link ConsoleAccess}. */
export interface ConsoleAccessOptions {
  /** The secret a person presents once to sign in. */
  token: string;
  /** `host:port` values the Host header may hold (more with `allowHost`). */
  hosts?: readonly string[];
  /** Whether the console is served over TLS (the cookie is then Secure). */
  tls: boolean;
  /** How long a session lasts (default 12 hours). */
  sessionMs?: number;
  now?: () => number;
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/** A fresh token: 32 random bytes, base64url. */
export function newConsoleToken(): string {
  return randomBytes(32).toString("base64url");
}

/** The checks and the sessions of one console. */
export class ConsoleAccess {
  private readonly sessions = new Map<string, ConsoleSession>();
  private readonly tokenDigest: Buffer;
  private readonly hosts: Set<string>;
  private readonly sessionMs: number;
  private readonly now: () => number;
  readonly tls: boolean;
  readonly cookieName: string;

  constructor(options: ConsoleAccessOptions) {
    if (options.token.length < 16) throw new Error("the console token must be at least 16 characters");
    this.tokenDigest = digest(options.token);
    this.hosts = new Set((options.hosts ?? []).map((h) => h.toLowerCase()));
    this.tls = options.tls;
    this.sessionMs = options.sessionMs ?? 12 * 3_600_000;
    this.now = options.now ?? Date.now;
    this.cookieName = options.tls ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE;
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

  /** Starts a session for `name`; returns its id (the cookie's value) and the session. */
  startSession(name: string): { id: string; session: ConsoleSession } {
    const id = randomBytes(32).toString("base64url");
    const session = {
      name,
      csrf: randomBytes(32).toString("base64url"),
      expiresAt: this.now() + this.sessionMs,
    };
    this.sessions.set(id, session);
    return { id, session };
  }

  /** The request's live session, if its cookie names one. */
  session(c: Context): ConsoleSession | undefined {
    const id = getCookie(c, this.cookieName);
    const session = id === undefined ? undefined : this.sessions.get(id);
    if (!session) return undefined;
    if (this.now() >= session.expiresAt) {
      this.sessions.delete(id as string);
      return undefined;
    }
    return session;
  }

  /** The Set-Cookie value that hands `id` to the browser. */
  cookie(id: string): string {
    const secure = this.tls ? "; Secure" : "";
    return `${this.cookieName}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(this.sessionMs / 1000)}${secure}`;
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
    const session = this.session(c);
    if (!session) return c.json({ error: "not signed in: present the console's token at /login" }, 401);
    const method = c.req.method;
    if (method !== "GET" && method !== "HEAD") {
      const sent = c.req.header(CSRF_HEADER) ?? "";
      if (!timingSafeEqual(digest(sent), digest(session.csrf)))
        return c.json({ error: "refused: missing or wrong CSRF token" }, 403);
    }
    c.set("session" as never, session as never);
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
