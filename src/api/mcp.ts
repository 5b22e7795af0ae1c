/**
 * @module api/mcp
 * `toolgate/mcp`: the client pool for external MCP servers and its config loader (`.mcp.json` and other
 * hosts' files), and `serveMcp` / `serveMcpHttp`, which serve a gate as an MCP server. This file is the whole
 * public list of the subpath (a test pins it; docs/public-api.md is generated from it): a name added here is
 * public, the mcp and mcp-client folders' own front doors are not.
 */

export {
  McpHttpOptionsError,
  type McpHttpServing,
  type McpServeTarget,
  type McpServing,
  type McpTransport,
  type PolicyVerdict,
  type ServeMcpHttpOptions,
  type ServeMcpOptions,
  serveMcp,
  serveMcpHttp,
} from "../mcp/index.js";
export {
  type HttpServerConfig,
  loadMcpConfig,
  McpClientPool,
  type McpClientPoolOptions,
  type McpConfigFile,
  type McpConfigProblem,
  type McpDiscovery,
  type McpRoute,
  type McpServerConfig,
  type McpServerStatus,
  mcpConfigPath,
  parseMcpConfig,
  type RoutingTable,
  type StdioServerConfig,
} from "../mcp-client/index.js";
