/**
 * @module mcp-client/mcp-tool
 * One tool of an external MCP server as a toolgate {@link Tool}: its schema made acceptable to the registry,
 * its risk read from annotations (hints only: the kind stays "other", so no policy allows it by kind), and
 * its calls routed by the routing table's (server, original name), never by parsing the public name. The
 * tool as the server listed it stays attached (`upstreamToolInfo`), so serving it again passes it on.
 */
import {
  type ArgKind,
  callDetails,
  type JsonSchema,
  type RiskLevel,
  type Tool,
  type ToolInvocation,
  type ToolResult,
} from "../core/index.js";
import type { McpToolInfo } from "./connection.js";
import type { McpRoute } from "./naming.js";

/** Calls a routed tool; never throws (failures are results). */
export type McpCaller = (
  route: McpRoute,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<ToolResult>;

/** The schema accepted by every object-schema consumer: `$schema` removed, `type: "object"` ensured. */
export function normalizeInputSchema(schema: unknown): JsonSchema {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return { type: "object" };
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  if (rest.type !== "object") rest.type = "object";
  return rest;
}

/**
 * Risk from annotations. An untrusted server's hints can lower how loudly a call is shown, never whether
 * it is asked: `readOnlyHint` (and not destructive) → low; explicitly non-destructive → medium; else high.
 */
export function riskFromAnnotations(annotations: McpToolInfo["annotations"]): RiskLevel {
  if (!annotations) return "high";
  if (annotations.destructiveHint === true) return "high";
  if (annotations.readOnlyHint === true) return "low";
  if (annotations.destructiveHint === false) return "medium";
  return "high";
}

/** Argument names that hold a file path, a URL or a shell command in the tools MCP servers publish. */
const PATH_NAMES =
  /^(path|paths|file|files|filepath|file_path|filename|dir|directory|folder|source|destination|target|cwd)$/i;
const URL_NAMES = /^(url|urls|uri|href|link)$/i;
const COMMAND_NAMES = /^(command|cmd|script)$/i;

/**
 * The policy kind of a server's arguments, inferred from their names and types: string (or string-array)
 * arguments named like paths, URLs or commands. So a `tool = "*"` rule with `when.path` compares canonical
 * paths for MCP tools too, instead of raw text a model could disguise (`./secrets/x`, `SECRETS/x`).
 */
export function inferArgKinds(schema: JsonSchema): Record<string, ArgKind> {
  const kinds: Record<string, ArgKind> = {};
  const properties = schema.properties;
  if (properties === null || typeof properties !== "object") return kinds;
  for (const [name, raw] of Object.entries(properties as Record<string, unknown>)) {
    const prop = raw as { type?: unknown; items?: { type?: unknown } } | null;
    const stringy = prop?.type === "string" || (prop?.type === "array" && prop.items?.type === "string");
    if (!stringy) continue;
    if (PATH_NAMES.test(name)) kinds[name] = "path";
    else if (URL_NAMES.test(name)) kinds[name] = "url";
    else if (COMMAND_NAMES.test(name) && prop?.type === "string") kinds[name] = "command";
  }
  return kinds;
}

/** The tool as its server listed it, for tools made by {@link createMcpTool}. */
const listed = new WeakMap<Tool, McpToolInfo>();

/** The upstream listing of a Tool made from an MCP server's tool (title, annotations, outputSchema, `_meta`). */
export function upstreamToolInfo(tool: Tool): McpToolInfo | undefined {
  return listed.get(tool);
}

/**
 * Creates the Tool for one MCP tool.
 * @param name the public name (from the routing table)
 * @param route where calls go
 * @param info the tool as the server listed it
 * @param call performs the call
 * @param parameters the schema to expose (default: the normalized `inputSchema`)
 */
export function createMcpTool(
  name: string,
  route: McpRoute,
  info: McpToolInfo,
  call: McpCaller,
  parameters: JsonSchema = normalizeInputSchema(info.inputSchema),
): Tool {
  const risk = riskFromAnnotations(info.annotations);
  const title = info.title ?? info.annotations?.title ?? route.tool;
  const displayName = `${title} (${route.server})`;
  const description = info.description?.trim() || `${route.tool} from the MCP server ${route.server}`;
  const tool: Tool = {
    name,
    displayName,
    description,
    parameters,
    kind: "other",
    risk,
    argKinds: inferArgKinds(parameters),
    source: `mcp:${route.server}`,
    // Open-world unless the server says otherwise (MCP's default); only a trusted server's word counts (docs/injection.md).
    sendsOut: info.annotations?.openWorldHint !== false,
    build(params: Record<string, unknown>): ToolInvocation {
      // A person approving the call must see what it will do: the arguments, shortened (made when asked).
      let summary: string | undefined;
      const invocation: ToolInvocation = {
        params,
        describe: () => {
          summary ??= `${route.tool} on MCP server ${route.server} with ${argumentsPreview(params)}`;
          return summary;
        },
        locations: () => [],
        riskFor: () => risk,
        // The details have one owner (core/confirmation): the call's basics, typed "mcp" by the tool's source.
        confirmation: async () => callDetails(tool, invocation),
        run: (signal: AbortSignal) => call(route, params, signal),
      };
      return invocation;
    },
  };
  listed.set(tool, info);
  return tool;
}

/** The arguments as JSON, cut to a readable length (the confirmation step makes hidden characters visible). */
export function argumentsPreview(params: Record<string, unknown>, max = 500): string {
  const json = JSON.stringify(params) ?? "{}";
  return json.length <= max ? json : `${json.slice(0, max)}… (${json.length - max} more characters)`;
}
