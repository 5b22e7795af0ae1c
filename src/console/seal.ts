/**
 * @module console/seal
 * Every answer the console gives a signed-in page carries a seal: HMAC-SHA256, keyed with a secret the
 * sign-in handed to that page and that the page never sends back, over the page's one-time nonce for the
 * request, the status and the body (a live stream: each event, numbered). Whoever holds the console's port
 * after the console stopped receives the page's requests — the session and CSRF token included, which name
 * a session that died with the console's process — but never the key, so it cannot make an answer the page
 * accepts; the page refuses it, says so, and sends nothing more (page/session.ts; red team F5).
 */
import { createHmac } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { ConsoleSession } from "./session.js";

/** The request header holding the page's nonce for this request. */
export const NONCE_HEADER = "x-console-nonce";
/** The response header holding the seal. */
export const SEAL_HEADER = "x-console-seal";

const NONCE = /^[A-Za-z0-9_-]{16,64}$/;

/** The nonce a request carries, or "" when it carries none (or not one of the page's shape). */
export function nonceOf(header: string | undefined): string {
  return header !== undefined && NONCE.test(header) ? header : "";
}

/**
 * The seal of `parts` (joined by newlines) under the session's key, base64url.
 * @example sealOf(session.key, [nonce, 200, body])
 */
export function sealOf(key: string, parts: readonly (string | number)[]): string {
  return createHmac("sha256", Buffer.from(key, "base64url")).update(parts.join("\n")).digest("base64url");
}

/**
 * Seals the answers to signed-in requests: `[nonce, status, body]` in `X-Console-Seal`. A live stream is
 * left to seal its events one by one (console/app.ts). An answer with no session (not signed in) has no key
 * to seal with: the page refuses it like any unsealed one.
 */
export const sealAnswers: MiddlewareHandler = async (c, next) => {
  await next();
  const session = c.get("session" as never) as ConsoleSession | undefined;
  if (!session) return;
  if (c.res.headers.get("content-type")?.startsWith("text/event-stream")) return;
  const body = await c.res.text();
  const nonce = nonceOf(c.req.header(NONCE_HEADER));
  const sealed = new Response(body, c.res);
  sealed.headers.set(SEAL_HEADER, sealOf(session.key, [nonce, c.res.status, body]));
  c.res = sealed;
};

/** One live-stream event as the page reads it, sealed over `[nonce, seq, event, data]`. */
export function sealedEvent(key: string, nonce: string, seq: number, event: string, data: string): string {
  return `event: ${event}\ndata: ${data}\nseal: ${seq}.${sealOf(key, [nonce, seq, event, data])}\n\n`;
}
