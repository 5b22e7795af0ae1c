/**
 * The injection benchmark's MCP server (stdio, official SDK): one tool, `get_ticket`, that returns the text
 * of the file named on the command line — the content planted for the case. `node tracker-mcp.mjs FILE`.
 */
import { readFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const file = process.argv[2];
const server = new Server({ name: "tracker", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: "get_ticket",
      description: "Reads a ticket of the team's tracker",
      inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      annotations: { readOnlyHint: true },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [{ type: "text", text: `Ticket ${request.params.arguments?.id}: ${readFileSync(file, "utf8")}` }],
}));
await server.connect(new StdioServerTransport());
