/**
 * @module mcp-client/sdk
 * The MCP SDK's client side, loaded on first use. Every other module of `mcp-client/` imports only its types,
 * so importing the front door loads no SDK: a plain `toolgate call read_file` does not pay for it.
 */
import { loadOnce } from "../utils/index.js";

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
