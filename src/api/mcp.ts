/**
 * @module api/mcp
 * `toolgate/mcp`: the client pool for external MCP servers and its config loader (`.mcp.json` and other
 * hosts' files), and `serveMcp` / `serveMcpHttp`, which serve a gate as an MCP server. This file is the whole
 * public list of the subpath (a test pins it; docs/public-api.md is generated from it): a name added here is
 * public, the mcp folder's own front door is not.
 */
export {
  type HttpServerConfig,
  loadMcpConfig,
  McpClientPool,
  type McpClientPoolOptions,
  type McpConfigFile,
  type McpConfigProblem,
  type McpDiscovery,
  McpHttpOptionsError,
  type McpHttpServing,
  type McpRoute,
  type McpServerConfig,
  type McpServerStatus,
  type McpServeTarget,
  type McpServing,
  type McpTransport,
  mcpConfigPath,
  type PolicyVerdict,
  parseMcpConfig,
  type RoutingTable,
  type ServeMcpHttpOptions,
  type ServeMcpOptions,
  type StdioServerConfig,
  serveMcp,
  serveMcpHttp,
} from "../mcp/index.js";
