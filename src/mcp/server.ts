/**
 * @module mcp/server
 * toolgate as an MCP server: lists a registry's tools (annotations from our kinds and risk levels; a
 * proxied MCP tool as its server listed it) and runs every `tools/call` through the pipeline and its policy;
 * a proxied tool's result is passed on as its server sent it. An `ask` becomes an elicitation request to the
 * MCP client when it supports elicitation (the person approves in their MCP host), and a deny otherwise.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { CallResult, ExecuteOptions, ToolRegistry } from "../core/index.js";
import {
  argsDigest,
  type ConfirmationDetails,
  type ConfirmationRequest,
  type ConfirmationResponse,
  confirmationFields,
  DEFAULT_CONFIRM_TIMEOUT_MS,
  FlowSession,
  type Logger,
  READ_ONLY_KINDS,
  type Tool,
  type ToolCall,
  type ToolScope,
} from "../core/index.js";
import { upstreamToolInfo } from "../mcp-client/index.js";
import { TOOLGATE_VERSION } from "../utils/index.js";
import { type PolicyVerdict, stricterAnnotations } from "./annotations.js";
import { serverSdk } from "./sdk.js";

/** What `serveMcp` needs: a gate, or anything shaped like one. */
export interface McpServeTarget {
  /** The tools to serve. A function is asked on every listing and call (a pool that rebuilds). */
  registry: ToolRegistry | (() => ToolRegistry | Promise<ToolRegistry>);
  /**
   * Runs one call through the pipeline (`gate.execute`). Each call brings its own `confirm`: the server
   * answers that call's `ask` by elicitation to the client that made it.
   */
  execute(call: ToolCall, options?: ExecuteOptions): Promise<CallResult>;
  /**
   * What the policy says about a tool as such (see `policyVerdict` in the CLI): its listing is made no
   * looser than that — a tool the policy asks about or denies is not advertised as read-only. Without it,
   * the tool's own annotations are advertised.
   */
  verdict?(tool: Tool): PolicyVerdict | undefined;
  /**
   * For a `registry` function: calls `changed` whenever the tools it gives may differ (a new generation);
   * returns a function that stops. The server then sends `notifications/tools/list_changed`.
   */
  watch?(changed: () => void): () => void;
  /**
   * "Always" for an asked call (the CLI's `gateOffer`): the rule that would allow exactly this call and the
   * policy file it would go to — shown in the elicitation, written when the person ticks "always" — or why
   * there is none. Without it, an elicitation asks yes or no only.
   */
  offerAlways?(request: ConfirmationRequest): Promise<AlwaysOffer>;
}

/** A rule "always" would add (see `McpServeTarget.offerAlways`), or why there is none. */
export type AlwaysOffer =
  | { rule: string; file: string; write(): Promise<{ written: true } | { failed: string }> }
  | { refused: string };

/**
 * Exact calls (tool and argument digest) whose rule "always" wrote, per target: the running gate compiled its
 * policy before the rule was added, so the server allows them itself until the next start reads the rule.
 */
const ruledCalls = new WeakMap<McpServeTarget, Set<string>>();
const callKey = (call: ToolCall) => `${call.name}\u0000${argsDigest(call.args ?? {})}`;

export interface ServeMcpOptions {
  /** Only these tools are listed and callable. */
  scope?: ToolScope;
  logger?: Logger;
  /** Server name and version announced to clients. */
  name?: string;
  version?: string;
  /** Tools per `tools/list` page. Default 200. */
  pageSize?: number;
  /** How long an elicitation waits for the person (ms). Default `DEFAULT_CONFIRM_TIMEOUT_MS` (5 minutes). */
  elicitationTimeoutMs?: number;
}

/**
 * An MCP transport: the SDK's `StdioServerTransport`, `StreamableHTTPServerTransport`, or an
 * `InMemoryTransport`. Written structurally so toolgate's published types do not pull in the SDK's
 * declaration files (they name DOM-only types a Node project's strict type check rejects).
 */
export interface McpTransport {
  start(): Promise<void>;
  send(message: unknown, options?: unknown): Promise<void>;
  close(): Promise<void>;
  // Methods, not function-typed properties: the SDK's handlers take its own message types.
  onclose?(): void;
  onerror?(error: Error): void;
  onmessage?(message: unknown, extra?: unknown): void;
  sessionId?: string | undefined;
}

/** A running server. */
export interface McpServing {
  /**
   * This client session's context label (docs/injection.md): every call of the session is decided with it
   * and its results join it. One per `serveMcp`: per process over stdio, per session over HTTP.
   */
  readonly session: FlowSession;
  /** Tells the client the tool list changed (call after registering or removing tools). */
  notifyToolsChanged(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The message a person sees in their MCP host: toolgate's question, then each field of the call quoted
 * (display-safe text on one line; a diff or a script line by line behind `│`), and the sandbox line last, in
 * toolgate's own words. No text from the call can start a line, so none can pass for toolgate's.
 */
export function elicitationMessage(details: ConfirmationDetails): string {
  const lines = [`toolgate asks: allow ${details.toolName}? (risk: ${details.risk})`];
  for (const field of confirmationFields(details)) {
    if (field.multiline) lines.push(`${field.label}:`, ...field.text.split("\n").map((l) => `  │ ${l}`));
    else lines.push(`${field.label}: “${field.text}”`);
  }
  lines.push(`sandbox: ${details.sandbox}`);
  return lines.join("\n");
}

/**
 * The elicitation's lines on "always": the rule and its file, or why there is none. The rule names the
 * call's arguments, so each of its lines is quoted behind the gutter, like the call's own text.
 */
function alwaysLines(offer: AlwaysOffer): string {
  const quote = (text: string) => text.split("\n").map((l) => `  │ ${l}`);
  if ("rule" in offer)
    return [
      `always: adds this rule to ${offer.file}, allowing exactly this call from now on:`,
      ...quote(offer.rule),
    ].join("\n");
  return ["always: not offered, no rule can be added to the policy:", ...quote(offer.refused)].join("\n");
}

/**
 * What a client learns about a tool: the schema, and annotations from our kind and risk. A tool from an
 * upstream MCP server keeps its listing — title, annotations, outputSchema, `_meta`, anything else — under
 * its public name, with the schema toolgate validates against. Either way the annotations are made no looser
 * than the policy's `verdict` for the tool.
 */
export function toMcpTool(tool: Tool, verdict?: PolicyVerdict): McpTool {
  const listing = ownListing(tool);
  const annotations = stricterAnnotations(listing.annotations, verdict);
  return annotations ? { ...listing, annotations } : listing;
}

function ownListing(tool: Tool): McpTool {
  const upstream = upstreamToolInfo(tool);
  if (upstream) {
    const { name: _name, inputSchema: _input, ...rest } = upstream;
    return { ...rest, name: tool.name, inputSchema: tool.parameters as McpTool["inputSchema"] } as McpTool;
  }
  const readOnly = READ_ONLY_KINDS.has(tool.kind);
  const destructive =
    !readOnly &&
    (tool.risk === "high" || tool.kind === "edit" || tool.kind === "delete" || tool.kind === "execute");
  return {
    name: tool.name,
    title: tool.displayName,
    description: tool.description,
    inputSchema: tool.parameters as McpTool["inputSchema"],
    annotations: {
      title: tool.displayName,
      readOnlyHint: readOnly,
      destructiveHint: destructive,
      openWorldHint: tool.kind === "fetch" || (tool.source ?? "").startsWith("mcp:"),
    },
  };
}

/**
 * Serves tools over `transport` (e.g. `new StdioServerTransport()`), every call through `target.execute`.
 * @example
 * const gate = await createToolgate({ roots: [process.cwd()] });
 * await serveMcp(gate, new StdioServerTransport());
 */
export async function serveMcp(
  target: McpServeTarget,
  transport: McpTransport,
  options: ServeMcpOptions = {},
): Promise<McpServing> {
  const { Server, types } = await serverSdk();
  const { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } = types;
  const server = new Server(
    { name: options.name ?? "toolgate", version: options.version ?? TOOLGATE_VERSION },
    { capabilities: { tools: { listChanged: true } } },
  );
  const pageSize = options.pageSize ?? 200;
  // What this client's model has read through toolgate: its calls are decided with it.
  const session = new FlowSession();
  const registry = async () => (typeof target.registry === "function" ? target.registry() : target.registry);
  const visible = async () =>
    (await registry()).list().filter((t) => !options.scope || options.scope.tools.has(t.name));

  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const tools = await visible();
    const start = request.params?.cursor === undefined ? 0 : Number(request.params.cursor);
    if (!Number.isInteger(start) || start < 0 || start > tools.length)
      throw new McpError(ErrorCode.InvalidParams, `invalid cursor ${JSON.stringify(request.params?.cursor)}`);
    const page = tools.slice(start, start + pageSize).map((t) => toMcpTool(t, target.verdict?.(t)));
    const next = start + pageSize;
    return next < tools.length ? { tools: page, nextCursor: String(next) } : { tools: page };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const call: ToolCall = { name: request.params.name, args: request.params.arguments ?? {} };
    const executeOptions: ExecuteOptions = {
      signal: extra.signal,
      ...(options.scope ? { scope: options.scope } : {}),
      confirm,
      session,
    };
    const result = await target.execute(call, executeOptions);
    // An unknown tool is a protocol error (MCP convention); every other failure is a result the model reads.
    if (result.error?.type === "tool_not_found")
      throw new McpError(ErrorCode.InvalidParams, result.error.message);
    return toCallToolResult(result);
  });

  /** Asks the person through the client that made the call (the request carries that call's signal). */
  async function confirm(request: ConfirmationRequest): Promise<ConfirmationResponse> {
    const { call, details, signal } = request;
    const ruled = ruledCalls.get(target) ?? new Set<string>();
    ruledCalls.set(target, ruled);
    if (ruled.has(callKey(call)))
      return { approved: true, reason: 'allowed by the rule "always" added', always: true };
    if (server.getClientCapabilities()?.elicitation === undefined) {
      return {
        approved: false,
        reason:
          "this MCP client cannot ask you for approval (it does not support elicitation); allow the tool in .toolgate/policy.toml to use it here",
      };
    }
    try {
      const offer = target.offerAlways ? await target.offerAlways(request) : undefined;
      const rule = offer && "rule" in offer ? offer : undefined;
      const answer = await server.elicitInput(
        {
          message: `${elicitationMessage(details)}${offer ? `\n${alwaysLines(offer)}` : ""}`,
          requestedSchema: {
            type: "object",
            properties: {
              approve: {
                type: "boolean",
                title: `Allow ${details.toolName}`,
                // The question is in the message; the field repeats no text of the call.
                description: `Approve the ${details.toolName} call described above`,
              },
              ...(rule
                ? {
                    always: {
                      type: "boolean",
                      title: "Always allow exactly this call",
                      description: `Also add the rule shown above to ${rule.file}`,
                    },
                  }
                : {}),
            },
            required: ["approve"],
          },
        },
        { signal, timeout: options.elicitationTimeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS },
      );
      if (answer.action === "accept" && answer.content?.approve === true) {
        if (!rule || answer.content?.always !== true) return { approved: true };
        const written = await rule.write();
        if ("failed" in written) {
          options.logger?.warn(`the rule "always" asked for was not added: ${written.failed}`);
          return { approved: true, reason: `approved once; the rule was not added: ${written.failed}` };
        }
        ruled.add(callKey(call));
        return { approved: true, reason: `approved; the rule was added to ${rule.file}`, always: true };
      }
      return {
        approved: false,
        reason: answer.action === "cancel" ? "cancelled in the MCP client" : "declined in the MCP client",
      };
    } catch (error) {
      return { approved: false, reason: `the approval request failed (${(error as Error).message})` };
    }
  }

  let pending = false;
  const changed = () => {
    if (pending) return;
    pending = true;
    queueMicrotask(() => {
      pending = false;
      server.sendToolListChanged().catch(() => {});
    });
  };
  const unwatch =
    typeof target.registry !== "function" ? target.registry.onChange(changed) : target.watch?.(changed);

  // The SDK transports match McpTransport; the SDK's own type is the exact one.
  await server.connect(transport as Transport);
  return {
    session,
    notifyToolsChanged: () => server.sendToolListChanged(),
    async close() {
      unwatch?.();
      await server.close();
    },
  };
}

/**
 * Our result as an MCP result: the model text, then images and resources. A result an upstream MCP server
 * produced is passed on as it came (every block, structuredContent, `_meta`, isError).
 */
export function toCallToolResult(result: CallResult): CallToolResult {
  if (result.upstream) {
    const { content, structuredContent, isError, _meta } = result.upstream;
    const out = { content: [...content] } as CallToolResult;
    if (structuredContent !== undefined) out.structuredContent = structuredContent as Record<string, unknown>;
    if (isError) out.isError = true;
    if (_meta) out._meta = _meta;
    return out;
  }
  const content: CallToolResult["content"] = [{ type: "text", text: result.llmContent }];
  for (const a of result.attachments ?? []) {
    if ((a.type === "image" || a.type === "audio") && a.data)
      content.push({ type: a.type, data: a.data, mimeType: a.mimeType });
    else if (a.type === "resource" && a.uri) {
      if (a.data)
        content.push({ type: "resource", resource: { uri: a.uri, mimeType: a.mimeType, blob: a.data } });
      else content.push({ type: "resource_link", uri: a.uri, name: a.uri, mimeType: a.mimeType });
    }
  }
  return result.ok ? { content } : { content, isError: true };
}
