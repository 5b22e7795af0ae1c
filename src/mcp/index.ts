/**
 * @module mcp
 * Public surface of the MCP folder: the client pool for external servers (`.mcp.json` and other hosts' files), tool naming and
 * routing, and toolgate as an MCP server. Anything added here is public.
 */

export {
  McpClientPool,
  type McpClientPoolOptions,
  type McpDiscovery,
  type McpServerStatus,
} from "./client-pool.js";
export {
  DEFAULT_MCP_TIMEOUT_MS,
  expandVars,
  type HttpServerConfig,
  hashBytes,
  loadMcpConfig,
  type McpConfigFile,
  type McpConfigNote,
  type McpConfigProblem,
  type McpConfigSource,
  type McpServerConfig,
  mcpConfigHash,
  mcpConfigPath,
  mcpConfigPaths,
  mcpConfigStamp,
  type NormalizeOptions,
  normalizeServerConfig,
  type ParsedMcpConfig,
  type ParseOptions,
  parseMcpConfig,
  type SseServerConfig,
  type StdioServerConfig,
} from "./config.js";
export {
  type ConnectionOptions,
  McpConnection,
  type McpServerState,
  type McpToolInfo,
} from "./connection.js";
export {
  type ContentLimits,
  DEFAULT_CONTENT_LIMITS,
  type McpCallResult,
  mcpResultToToolResult,
} from "./content.js";
export { type ExpandContext, ExpandError, expandValue } from "./expand.js";
export { MCP_HOST_FILES, type McpHostFile, TRUST_GRANTING_KEYS } from "./hosts.js";
export {
  isLoopbackHost,
  McpHttpOptionsError,
  type McpHttpServing,
  type ServeMcpHttpOptions,
  serveMcpHttp,
} from "./http-server.js";
export { describeMcpSources, type McpServerProvenance, serverProvenance } from "./list-report.js";
export { createMcpTool, type McpCaller, normalizeInputSchema, riskFromAnnotations } from "./mcp-tool.js";
export { assignPublicNames, type McpRoute, type RoutingTable, sanitizeNamePart } from "./naming.js";
export {
  elicitationMessage,
  type McpServeTarget,
  type McpServing,
  type ServeMcpOptions,
  serveMcp,
  toCallToolResult,
  toMcpTool,
} from "./server.js";
