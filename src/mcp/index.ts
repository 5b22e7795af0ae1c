/**
 * @module mcp
 * Front door of the MCP server: `serveMcp` serves a gate (or any registry + pipeline) as an MCP server over
 * stdio or, with `serveMcpHttp`, streamable HTTP; a proxied tool keeps its server's annotations, made no less
 * strict than the policy's verdict. The client side (external servers) is `mcp-client/`. Internal:
 * `toolgate/mcp` (src/api/mcp.ts) lists what of it is public.
 */

export type { PolicyVerdict } from "./annotations.js";
export {
  isLoopbackHost,
  McpHttpOptionsError,
  type McpHttpServing,
  type ServeMcpHttpOptions,
  serveMcpHttp,
} from "./http-server.js";
export {
  type McpServeTarget,
  type McpServing,
  type McpTransport,
  type ServeMcpOptions,
  serveMcp,
} from "./server.js";
