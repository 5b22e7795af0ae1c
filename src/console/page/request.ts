/**
 * @module console/page/request
 * The page's one way to reach the console's API: every GET and POST goes through {@link request}, which adds
 * what the server's access checks want on a change (the CSRF token from the page's meta tag). Swapping how
 * a session is carried means changing this function only.
 */

const csrf = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? "";

/**
 * GETs `path`, or POSTs `body` as JSON to it; resolves with the parsed JSON reply (any status).
 * @example await request("/api/approvals/batch", { ids, decision: "deny", reason })
 */
export async function request<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(
    path,
    body === undefined
      ? {}
      : {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
          body: JSON.stringify(body),
        },
  );
  return (await response.json()) as T;
}
