/**
 * @module mcp/sdk
 * The MCP SDK, loaded on first use. Every other module of `mcp/` imports only its types, so importing the
 * mcp front door (or the agents one, which builds on it) loads no SDK: a plain `toolgate call read_file`
 * does not pay for it, and folders reach `mcp/` through its front door.
 */

/** `load` run once; a failed load is not kept, so the next caller tries again. */
function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    if (pending) return pending;
    const started = load();
    pending = started;
    started.catch(() => {
      if (pending === started) pending = undefined;
    });
    return started;
  };
}

/** The client side: the client, its HTTP and SSE transports, the stdio environment, the message types. */
export const clientSdk = loadOnce(async () => {
  const [index, sse, http, stdio, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  return {
    Client: index.Client,
    SSEClientTransport: sse.SSEClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
    types,
  };
});

/** The server side: the protocol server, the streamable HTTP transport, the message types. */
export const serverSdk = loadOnce(async () => {
  const [index, http, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  return { Server: index.Server, StreamableHTTPServerTransport: http.StreamableHTTPServerTransport, types };
});
