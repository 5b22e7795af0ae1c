/**
 * @module console/page/session
 * The page's side of the console session (server side: console/session.ts). The sign-in returns a secret,
 * a CSRF token and a sealing key, kept in sessionStorage — which only this origin (scheme, host and port) can
 * read, unlike a cookie, which the browser would also send to every other port of 127.0.0.1. Every request
 * sends the secret and the token as headers, with a fresh nonce; every answer must carry the console's seal
 * over that nonce, its status and its body (each event of the live stream: over its number too), made with
 * the key the page never sends (console/seal.ts). An answer without it did not come from the console that
 * signed this tab in — it stopped, and another program holds its port (red team F5), or it restarted: the
 * page then says so, stops, and sends nothing more, whatever the answer was (a 401 included: it never leads
 * to a sign-in form served by whoever answered). The live stream is read with fetch (EventSource cannot send
 * headers).
 */

const KEY = "toolgate-console-session";

/** What the sign-in returned. */
export interface StoredSession {
  session: string;
  csrf: string;
  /** The key the console seals its answers with (never sent). */
  key: string;
  name: string;
  expiresAt: number;
}

/** The stored session, or none (not signed in in this tab, or expired). */
export function storedSession(): StoredSession | undefined {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) ?? "null") as StoredSession | null;
    if (
      value &&
      typeof value.session === "string" &&
      typeof value.key === "string" &&
      Date.now() < value.expiresAt
    )
      return value;
  } catch {
    // Not JSON: treated as no session.
  }
  return undefined;
}

export function storeSession(value: StoredSession): void {
  sessionStorage.setItem(KEY, JSON.stringify(value));
}

/** Forgets the session and goes to the sign-in page. */
export function signedOut(): never {
  sessionStorage.removeItem(KEY);
  location.replace("/login");
  throw new Error("not signed in");
}

/** The session, or off to the sign-in page. */
export function requireSession(): StoredSession {
  return storedSession() ?? signedOut();
}

/** Why the page stopped talking to the server, once it has (see {@link refuse}). */
let stopped: string | undefined;
const stopListeners: ((reason: string) => void)[] = [];

/** Calls `listener` with the reason when the page stops (at once if it already has). */
export function onStop(listener: (reason: string) => void): void {
  if (stopped !== undefined) listener(stopped);
  else stopListeners.push(listener);
}

/** The page's words when an answer is not the console's. */
export const NOT_THE_CONSOLE =
  "The server answering at this address is not the console this tab signed in to: its answer does not carry that console's seal. The console stopped (and another program may now hold its port) or was restarted. Nothing more is sent to it.";

/** Stops the page for good: nothing is sent again; every stop listener hears why (once). */
export function refuse(reason: string): Error {
  if (stopped === undefined) {
    stopped = reason;
    for (const listener of stopListeners.splice(0)) listener(reason);
  }
  return new Error(reason);
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const plain = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(plain, (c) => c.charCodeAt(0));
}

let hmacKey: Promise<CryptoKey> | undefined;

/** The session's key for WebCrypto (there in every secure context: loopback, https). */
function sealingKey(key: string): Promise<CryptoKey> {
  if (!globalThis.crypto?.subtle)
    throw refuse(
      "This page cannot check that answers come from the console: the browser offers no cryptography to a plain-HTTP page served over the network. Serve the console with --tls-cert and --tls-key.",
    );
  hmacKey ??= crypto.subtle.importKey("raw", fromBase64url(key), { name: "HMAC", hash: "SHA-256" }, false, [
    "verify",
  ]);
  return hmacKey;
}

/** Whether `seal` is the console's seal of `parts` (joined by newlines) under the session's key. */
async function sealed(
  key: string,
  seal: string | null,
  parts: readonly (string | number)[],
): Promise<boolean> {
  if (!seal || !/^[A-Za-z0-9_-]{43}$/.test(seal)) return false;
  const data = new TextEncoder().encode(parts.join("\n"));
  return crypto.subtle.verify("HMAC", await sealingKey(key), fromBase64url(seal), data);
}

/** A fresh nonce for one request. */
const newNonce = () => base64url(crypto.getRandomValues(new Uint8Array(18)));

/** Sends `path` with the session's headers (and the CSRF token on changes) and a new nonce; nothing once stopped. */
async function send(path: string, init: RequestInit): Promise<{ response: Response; nonce: string }> {
  if (stopped !== undefined) throw new Error(stopped);
  const { session, csrf, key } = requireSession();
  await sealingKey(key);
  const nonce = newNonce();
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${session}`);
  headers.set("X-Console-Nonce", nonce);
  const method = (init.method ?? "GET").toUpperCase();
  if (method !== "GET" && method !== "HEAD") headers.set("X-CSRF-Token", csrf);
  // Never a cookie, never a cached answer.
  const response = await fetch(path, { ...init, headers, credentials: "omit", cache: "no-store" });
  return { response, nonce };
}

/**
 * `fetch` with the session's headers; the answer's body once its seal is checked. An answer without the
 * console's seal stops the page ({@link refuse}) and rejects.
 */
export async function authFetch(
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: string }> {
  const { response, nonce } = await send(path, init);
  const body = await response.text();
  if (
    !(await sealed(requireSession().key, response.headers.get("X-Console-Seal"), [
      nonce,
      response.status,
      body,
    ]))
  )
    throw refuse(NOT_THE_CONSOLE);
  return { status: response.status, body };
}

/** Handlers of a live stream: one per event name, and the connection's state for the status line. */
export interface StreamHandlers {
  events: Record<string, (data: string) => void>;
  status: (state: "live" | "reconnecting" | "stopped") => void;
}

/**
 * Reads the server-sent events at `path` with the session's headers, each event's seal checked (its
 * number must be the next), reconnecting (1 s, doubling to 30 s) when the connection ends; `live` is
 * reported once the first event arrives. An unsealed answer or event stops it for good.
 */
export function openStream(path: string, handlers: StreamHandlers): void {
  let delay = 1_000;
  const connect = async () => {
    try {
      const { response, nonce } = await send(path, { headers: { Accept: "text/event-stream" } });
      const stream = response.headers.get("Content-Type")?.startsWith("text/event-stream");
      if (!response.ok || !response.body || !stream) {
        // The console's refusals are sealed: one that is not is someone else's.
        const body = await response.text();
        const { key } = requireSession();
        if (!(await sealed(key, response.headers.get("X-Console-Seal"), [nonce, response.status, body])))
          throw refuse(NOT_THE_CONSOLE);
        throw new Error(`status ${response.status}`);
      }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      let seq = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        // Events end with a blank line; a trailing partial one waits for more.
        const frames = buffer.replace(/\r\n?/g, "\n").split("\n\n");
        buffer = frames.pop() ?? "";
        for (const frame of frames) {
          const event = parseFrame(frame);
          if (!event) continue;
          const seal = event.seal.startsWith(`${seq}.`) ? event.seal.slice(`${seq}.`.length) : null;
          if (!(await sealed(requireSession().key, seal, [nonce, seq, event.name, event.data]))) {
            await reader.cancel().catch(() => undefined);
            throw refuse(NOT_THE_CONSOLE);
          }
          seq++;
          delay = 1_000;
          handlers.status("live");
          handlers.events[event.name]?.(event.data);
        }
      }
    } catch {
      // Network gone or the console restarted: try again below, unless the page stopped.
    }
    if (stopped !== undefined) {
      handlers.status("stopped");
      return;
    }
    handlers.status("reconnecting");
    setTimeout(() => void connect(), delay);
    delay = Math.min(delay * 2, 30_000);
  };
  void connect();
}

/** One server-sent event's name, data and seal (`event:`, `data:`, `seal:` lines; `:` comments ignored). */
function parseFrame(frame: string): { name: string; data: string; seal: string } | undefined {
  let name = "message";
  let seal = "";
  const data: string[] = [];
  for (const line of frame.split("\n")) {
    const colon = line.indexOf(":");
    if (colon === 0) continue;
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") name = value;
    else if (field === "data") data.push(value);
    else if (field === "seal") seal = value;
  }
  return data.length === 0 ? undefined : { name, data: data.join("\n"), seal };
}
