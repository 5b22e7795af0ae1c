/**
 * @module console/signin
 * The console's sign-in routes: the login page and its script, `POST /login` (the token, checked no more
 * often than console/signin-limit.ts allows, for a session secret and CSRF token returned as JSON — the page
 * keeps them in sessionStorage; nothing is set as a cookie), `GET /api/session` (who the page is signed in
 * as) and `POST /api/sign-out`.
 */
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context, Hono } from "hono";
import { displaySafe } from "../core/index.js";
import type { ConsoleAccess } from "./access.js";
import { loginPage } from "./pages.js";
import { SESSION_HEADER } from "./session.js";
import { PEER_BINDING, signInKey } from "./signin-limit.js";

const MAX_NAME = 64;

/** A signed-in person's name as recorded (`by`): display-safe, one line, at most 64 characters. */
export function deciderName(raw: unknown): string {
  const name = typeof raw === "string" ? displaySafe(raw.trim(), false).slice(0, MAX_NAME) : "";
  return name === "" ? "console" : name;
}

/**
 * Whose sign-in this is, as console/signin-limit.ts counts it: the peer console/serve.ts verified, or
 * (an app served some other way) the TCP peer's address — a proxy's header is not believed.
 */
function peerKey(c: Context): string {
  const verified = (c.env as Record<string, unknown> | undefined)?.[PEER_BINDING];
  if (typeof verified === "string") return verified;
  try {
    return signInKey({ remote: getConnInfo(c).remote.address ?? "unknown" });
  } catch {
    return "unknown";
  }
}

/**
 * Adds the sign-in routes to `app` (before the API's own routes).
 * @example mountSignIn(app, access, loginScript)
 */
export function mountSignIn(app: Hono, access: ConsoleAccess, script: string): void {
  app.get("/login", (c) => c.html(loginPage()));
  app.get("/login.js", (c) => c.body(script, 200, { "Content-Type": "text/javascript; charset=utf-8" }));

  app.post("/login", async (c) => {
    const peer = peerKey(c);
    const wait = access.limit.waitMs(peer);
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      c.header("Retry-After", String(seconds));
      return c.json({ error: `refused: too many wrong tokens; try again in ${seconds} s` }, 429);
    }
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const token = typeof form.token === "string" ? form.token : "";
    if (!access.tokenMatches(token)) {
      access.limit.failed(peer);
      return c.json({ error: "That is not the console's token." }, 401);
    }
    access.limit.succeeded(peer);
    return c.json(access.startSession(deciderName(form.name)));
  });

  app.get("/api/session", access.signedIn, (c) => {
    const { name, expiresAt } = c.get("session" as never) as { name: string; expiresAt: number };
    return c.json({ name, expiresAt });
  });
  app.post("/api/sign-out", access.signedIn, (c) => {
    access.endSession(c.req.header(SESSION_HEADER));
    return c.json({ ok: true });
  });
}
