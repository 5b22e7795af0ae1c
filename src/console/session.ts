/**
 * @module console/session
 * The console's sessions: a secret the sign-in hands to the page, which keeps it in `sessionStorage` (scoped
 * to the console's own origin, port included) and sends it in `Authorization: Bearer …` on every request.
 * There is no session cookie: browsers send a cookie for 127.0.0.1 to every port of it, so any server another
 * local user runs on loopback would receive one; a header set by our own script reaches our own origin only.
 * Secrets are kept as SHA-256 digests, and looked up by digest, so a lookup's timing says nothing of a secret.
 */
import { createHash, randomBytes } from "node:crypto";

/** The request header a session travels in (`Bearer <secret>`). */
export const SESSION_HEADER = "authorization";
/** The header a state change carries its CSRF token in. */
export const CSRF_HEADER = "x-csrf-token";

/** One signed-in page. */
export interface ConsoleSession {
  /** Who answers from it (the sign-in form's name). */
  name: string;
  csrf: string;
  /** The key the console seals its answers with (console/seal.ts); the page never sends it back. */
  key: string;
  expiresAt: number;
}

/**
 * What the sign-in returns to the page: the secret to send back, the CSRF token, the key that proves the
 * console's answers, the name.
 */
export interface SessionGrant {
  session: string;
  csrf: string;
  key: string;
  name: string;
  expiresAt: number;
}

const hexDigest = (text: string) => createHash("sha256").update(text).digest("hex");
const BEARER = /^Bearer ([A-Za-z0-9_-]{43})$/;

/** The sessions of one console, in its memory (restarting the console ends them). */
export class SessionTable {
  private readonly byDigest = new Map<string, ConsoleSession>();

  constructor(
    private readonly sessionMs: number,
    private readonly now: () => number,
  ) {}

  /** Starts a session for `name`: 32 random bytes each of secret, CSRF token and sealing key, base64url. */
  start(name: string): SessionGrant {
    this.prune();
    const secret = randomBytes(32).toString("base64url");
    const session = {
      name,
      csrf: randomBytes(32).toString("base64url"),
      key: randomBytes(32).toString("base64url"),
      expiresAt: this.now() + this.sessionMs,
    };
    this.byDigest.set(hexDigest(secret), session);
    return { session: secret, ...session };
  }

  /** The live session an `Authorization` header names, if any; anything but `Bearer <secret>` names none. */
  find(header: string | undefined): ConsoleSession | undefined {
    const secret = header === undefined ? undefined : BEARER.exec(header)?.[1];
    if (secret === undefined) return undefined;
    const key = hexDigest(secret);
    const session = this.byDigest.get(key);
    if (!session) return undefined;
    if (this.now() >= session.expiresAt) {
      this.byDigest.delete(key);
      return undefined;
    }
    return session;
  }

  /** Ends the session an `Authorization` header names (signing out); whether there was one. */
  end(header: string | undefined): boolean {
    const secret = header === undefined ? undefined : BEARER.exec(header)?.[1];
    return secret !== undefined && this.byDigest.delete(hexDigest(secret));
  }

  private prune(): void {
    const now = this.now();
    for (const [key, session] of this.byDigest) if (now >= session.expiresAt) this.byDigest.delete(key);
  }
}
