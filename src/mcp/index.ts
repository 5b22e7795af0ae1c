/**
 * @module mcp
 * Front door of the MCP folder, published as `toolgate/mcp`: the client pool for external servers
 * (`.mcp.json` and other hosts' files), its config loader, the routing table from public names to servers, and `serveMcp`, which
 * serves a gate (or any registry + pipeline) as an MCP server over stdio or, with `serveMcpHttp`, streamable HTTP. Everything exported here is public (a test
 * pins the list).
 */

export type { PolicyVerdict } from "./annotations.js";
export {
  McpClientPool,
  type McpClientPoolOptions,
  type McpDiscovery,
  type McpServerStatus,
} from "./client-pool.js";
export {
  type HttpServerConfig,
  hashBytes,
  loadMcpConfig,
  type McpConfigFile,
  type McpConfigProblem,
  type McpServerConfig,
  mcpConfigHash,
  mcpConfigPath,
  mcpConfigStamp,
  normalizeServerConfig,
  parseMcpConfig,
  type StdioServerConfig,
} from "./config.js";
export { type GenerationWatchOptions, watchGenerations } from "./generation-watch.js";
export {
  isLoopbackHost,
  McpHttpOptionsError,
  type McpHttpServing,
  type ServeMcpHttpOptions,
  serveMcpHttp,
} from "./http-server.js";
export { describeMcpSources, type McpServerProvenance, serverProvenance } from "./list-report.js";
export { type McpRoute, type RoutingTable, sanitizeNamePart } from "./naming.js";
export {
  filesUnchanged,
  type ProjectServers,
  type ProjectServersOptions,
  readProjectServers,
  serversFor,
} from "./project-servers.js";
export {
  type McpServeTarget,
  type McpServing,
  type McpTransport,
  type ServeMcpOptions,
  serveMcp,
} from "./server.js";
export { type McpFileSummary, type McpServerSummary, summarizeMcpFile } from "./trust-summary.js";
