/**
 * @module mcp/sdk
 * The MCP SDK's server side, loaded on first use. Every other module of `mcp/` imports only its types, so
 * importing the front door loads no SDK until a gate is served.
 */
import { loadOnce } from "../utils/index.js";

/** The server side: the protocol server, the streamable HTTP transport, the message types. */
export const serverSdk = loadOnce(async () => {
  const [index, http, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  return { Server: index.Server, StreamableHTTPServerTransport: http.StreamableHTTPServerTransport, types };
});
