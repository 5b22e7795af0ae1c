/**
 * @module mcp-client
 * Front door of the MCP client: a project's servers from its files (`.mcp.json` and other hosts' files) with
 * their trust, the client pool and its connections, the routing table from public names to servers, and the
 * tools made from a server's listing. The MCP SDK is loaded on first use (`sdk.ts`), so importing this loads
 * none of it. Internal: `toolgate/mcp` (src/api/mcp.ts) lists what of it is public.
 */

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
export { describeMcpSources, type McpServerProvenance, serverProvenance } from "./list-report.js";
export { upstreamToolInfo } from "./mcp-tool.js";
export { type McpRoute, type RoutingTable, sanitizeNamePart } from "./naming.js";
export {
  filesUnchanged,
  type ProjectServers,
  type ProjectServersOptions,
  readProjectServers,
  serversFor,
} from "./project-servers.js";
export { type McpFileSummary, type McpServerSummary, summarizeMcpFile } from "./trust-summary.js";
