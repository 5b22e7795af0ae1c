/**
 * @module llm/fetch
 * The `fetch` handed to provider clients: it ties every request to the caller's AbortSignal (the clients'
 * own abort handles do not cover the wait for response headers) and, for Ollama, turns a non-JSON error
 * body into JSON so the client reports the server's text instead of logging to the console.
 */

/** A fetch that aborts with `signal`; `jsonErrors` wraps non-JSON error bodies as `{"error": text}`. */
export function signalFetch(signal: AbortSignal, jsonErrors = false): typeof fetch {
  return async (input, init) => {
    const signals = [signal, ...(init?.signal ? [init.signal] : [])];
    const response = await fetch(input, { ...init, signal: AbortSignal.any(signals) });
    if (!jsonErrors || response.ok) return response;
    if (response.headers.get("content-type")?.includes("application/json")) return response;
    const text = await response.text().catch(() => "");
    return new Response(JSON.stringify({ error: text || `${response.status} ${response.statusText}` }), {
      status: response.status,
      statusText: response.statusText,
      headers: { "content-type": "application/json" },
    });
  };
}
