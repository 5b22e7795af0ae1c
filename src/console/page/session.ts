/**
 * @module console/page/session
 * The page's side of the console session (server side: console/session.ts). The sign-in returns a secret
 * and a CSRF token, kept in sessionStorage — which only this origin (scheme, host and port) can read, unlike
 * a cookie, which the browser would also send to every other port of 127.0.0.1. Every request sends them as
 * headers; the live stream is read with fetch (EventSource cannot send headers). A 401 ends the session and
 * goes back to the sign-in page.
 */

const KEY = "toolgate-console-session";

/** What the sign-in returned. */
export interface StoredSession {
  session: string;
  csrf: string;
  name: string;
  expiresAt: number;
}

/** The stored session, or none (not signed in in this tab, or expired). */
export function storedSession(): StoredSession | undefined {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) ?? "null") as StoredSession | null;
    if (value && typeof value.session === "string" && Date.now() < value.expiresAt) return value;
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

/** `fetch` with the session's headers (and the CSRF token on changes); a 401 signs out. */
export async function authFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const { session, csrf } = requireSession();
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${session}`);
  const method = (init.method ?? "GET").toUpperCase();
  if (method !== "GET" && method !== "HEAD") headers.set("X-CSRF-Token", csrf);
  // Never a cookie, never a cached answer.
  const response = await fetch(path, { ...init, headers, credentials: "omit", cache: "no-store" });
  if (response.status === 401) signedOut();
  return response;
}

/** Handlers of a live stream: one per event name, and the connection's state for the status line. */
export interface StreamHandlers {
  events: Record<string, (data: string) => void>;
  status: (state: "live" | "reconnecting") => void;
}

/**
 * Reads the server-sent events at `path` with the session's headers, reconnecting (1 s, doubling to 30 s)
 * when the connection ends; `live` is reported once the first event arrives.
 */
export function openStream(path: string, handlers: StreamHandlers): void {
  let delay = 1_000;
  const connect = async () => {
    try {
      const response = await authFetch(path, { headers: { Accept: "text/event-stream" } });
      if (!response.ok || !response.body) throw new Error(`status ${response.status}`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
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
          delay = 1_000;
          handlers.status("live");
          handlers.events[event.name]?.(event.data);
        }
      }
    } catch {
      // Network gone or the console restarted: try again below.
    }
    handlers.status("reconnecting");
    setTimeout(() => void connect(), delay);
    delay = Math.min(delay * 2, 30_000);
  };
  void connect();
}

/** One server-sent event's name and data (`event:` and `data:` lines; `:` comments ignored). */
function parseFrame(frame: string): { name: string; data: string } | undefined {
  let name = "message";
  const data: string[] = [];
  for (const line of frame.split("\n")) {
    const colon = line.indexOf(":");
    if (colon === 0) continue;
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") name = value;
    else if (field === "data") data.push(value);
  }
  return data.length === 0 ? undefined : { name, data: data.join("\n") };
}
