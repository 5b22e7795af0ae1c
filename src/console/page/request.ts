/**
 * @module console/page/request
 * The page's one way to reach the console's API: every GET and POST goes through {@link request}, which sends
 * the session (and, on a change, the CSRF token) through `authFetch` (page/session.ts).
 */
import { authFetch } from "./session.js";

/**
 * GETs `path`, or POSTs `body` as JSON to it; resolves with the parsed JSON reply (any status) once its seal
 * is checked (page/session.ts); rejects when the page has stopped or the answer is not the console's.
 * @example await request("/api/approvals/batch", { ids, decision: "deny", reason })
 */
export async function request<T>(path: string, body?: unknown): Promise<T> {
  const response = await authFetch(
    path,
    body === undefined
      ? {}
      : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) },
  );
  return JSON.parse(response.body) as T;
}
