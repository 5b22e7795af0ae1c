import type { Server } from "@modelcontextprotocol/sdk/server/index.js";

export function createTestServer(options?: {
  count?: number;
  pageSize?: number;
  prefix?: string;
  fixed?: boolean;
}): Server;
