/**
 * A small MCP server (official SDK) for toolgate's tests: pagination, list_changed, crashes, hangs, huge
 * results, rich content. `node test-server.mjs [--tools N] [--page-size P] [--prefix X]` serves over stdio;
 * tests that need streamable HTTP import `createTestServer` and serve it on 127.0.0.1.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const objectSchema = { type: "object", properties: {} };

/** The fixed tools, besides the generated `<prefix><i>` ones. */
function fixedTools() {
  return [
    {
      name: "echo",
      description: "Echoes text",
      inputSchema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
      },
      annotations: { readOnlyHint: true },
    },
    { name: "image", description: "Returns an image", inputSchema: objectSchema },
    { name: "resource", description: "Returns an embedded resource", inputSchema: objectSchema },
    {
      name: "structured",
      description: "Returns structured content",
      inputSchema: objectSchema,
      outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    },
    { name: "fail", description: "Reports an error", inputSchema: objectSchema },
    { name: "crash", description: "Exits mid-call", inputSchema: objectSchema },
    { name: "hang", description: "Never answers", inputSchema: objectSchema },
    { name: "block", description: "Blocks the event loop forever", inputSchema: objectSchema },
    {
      name: "big",
      description: "Returns a huge text",
      inputSchema: { type: "object", properties: { mb: { type: "number" } } },
    },
    { name: "add_tool", description: "Adds a tool and notifies", inputSchema: objectSchema },
    {
      name: "env",
      description: "Returns an environment variable",
      inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    },
    { name: "stderr", description: "Writes to stderr", inputSchema: objectSchema },
    { name: "pid", description: "Returns the process id", inputSchema: objectSchema },
    {
      name: "danger",
      description: "Destructive",
      inputSchema: objectSchema,
      annotations: { destructiveHint: true, readOnlyHint: true },
    },
  ];
}

/**
 * Builds a server. `count` generated tools named `${prefix}${i}` are listed after the fixed ones,
 * `pageSize` per page; `fixed: false` serves only the generated tools.
 */
export function createTestServer({ count = 0, pageSize = 1000, prefix = "tool_", fixed = true } = {}) {
  const server = new Server(
    { name: "toolgate-test", version: "1.0.0" },
    { capabilities: { tools: { listChanged: true } } },
  );
  const tools = fixed ? fixedTools() : [];
  for (let i = 0; i < count; i++) {
    tools.push({
      name: `${prefix}${i}`,
      description: `Generated tool ${i}`,
      inputSchema: { type: "object", properties: { x: { type: "string" } } },
    });
  }
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const page = tools.slice(start, start + pageSize);
    const next = start + pageSize;
    return next < tools.length ? { tools: page, nextCursor: String(next) } : { tools: page };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = request.params.arguments ?? {};
    switch (request.params.name) {
      case "echo":
        return { content: [{ type: "text", text: String(args.text) }] };
      case "image":
        return {
          content: [
            { type: "text", text: "a pixel" },
            { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
          ],
        };
      case "resource":
        return {
          content: [
            { type: "resource", resource: { uri: "mem://note", mimeType: "text/plain", text: "note body" } },
            { type: "resource_link", uri: "mem://other", name: "other" },
          ],
        };
      case "structured":
        return { content: [], structuredContent: { n: 42 } };
      case "fail":
        return { content: [{ type: "text", text: "it broke" }], isError: true };
      case "crash":
        setTimeout(() => process.exit(3), 10);
        return new Promise(() => {});
      case "hang":
        return new Promise(() => {});
      case "block":
        setTimeout(() => {
          for (;;) {}
        }, 1);
        return new Promise(() => {});
      case "big":
        return { content: [{ type: "text", text: "x".repeat(Math.round((args.mb ?? 20) * 1024 * 1024)) }] };
      case "add_tool":
        tools.push({ name: `added_${tools.length}`, description: "Added later", inputSchema: objectSchema });
        await server.sendToolListChanged();
        return { content: [{ type: "text", text: "added" }] };
      case "env":
        return { content: [{ type: "text", text: String(process.env[String(args.name)] ?? "<unset>") }] };
      case "stderr":
        process.stderr.write("secret diagnostics\n");
        return { content: [{ type: "text", text: "wrote" }] };
      case "pid":
        return { content: [{ type: "text", text: String(process.pid) }] };
      case "danger":
        return { content: [{ type: "text", text: "done" }] };
      default:
        if (tools.some((t) => t.name === request.params.name)) {
          return { content: [{ type: "text", text: `${request.params.name}:${args.x ?? ""}` }] };
        }
        return { content: [{ type: "text", text: `unknown tool ${request.params.name}` }], isError: true };
    }
  });
  return server;
}

function flag(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  process.stderr.write("test server starting\n");
  const server = createTestServer({
    count: Number(flag("tools", "0")),
    pageSize: Number(flag("page-size", "1000")),
    prefix: flag("prefix", "tool_"),
    fixed: flag("fixed", "yes") !== "no",
  });
  await server.connect(new StdioServerTransport());
}
