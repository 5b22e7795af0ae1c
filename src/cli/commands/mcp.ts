/**
 * @module cli/commands/mcp
 * `toolgate mcp [--pool]` serves the workspace's tools as an MCP server over stdio — every call through the
 * same pipeline and policy, `ask` as an elicitation to the client. `--pool` also serves the tools of the
 * servers in `.mcp.json`. `toolgate mcp list` shows the configured servers, their status and tool counts.
 */

import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ToolPools } from "../../agents/index.js";
import { serveMcp } from "../../mcp/index.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";
import { type CommandHelp, parseOptions } from "../options.js";
import { runMcpList } from "./mcp-list.js";

export const usage = "toolgate mcp [--pool] | toolgate mcp list";

const OPTIONS = {
  pool: { type: "boolean", description: "also serve the tools of the servers in .mcp.json" },
} as const;

export const help: CommandHelp = {
  summary:
    "Serves the workspace's tools as an MCP server over stdio, every call through the same pipeline and policy (an ask becomes an elicitation to the client). list: the servers in .mcp.json, their state and tool counts.",
  options: OPTIONS,
  examples: ["toolgate mcp --workspace ~/src/project", "toolgate mcp list --json"],
};

export async function runMcp(argv: string[], ctx: CliContext): Promise<ExitCode> {
  if (argv[0] === "list") {
    if (parseOptions("toolgate mcp list", argv.slice(1), {}).positionals.length > 0)
      throw new UsageError(`usage: ${usage}`);
    return runMcpList(ctx);
  }
  const { values, positionals } = parseOptions("toolgate mcp", argv, OPTIONS);
  if (positionals.length > 0) throw new UsageError(`usage: ${usage}`);
  const gate = await ctx.gate();
  // No terminal approver here: stdin/stdout carry the protocol; approvals go to the client as elicitations.
  let target: Parameters<typeof serveMcp>[0] = gate;
  let pools: ToolPools | undefined;
  if (values.pool) {
    const poolSet = new ToolPools({
      builtins: gate.registry,
      trusted: () => gate.workspaceTrusted,
      logger: { warn: (m) => ctx.io.stderr(`toolgate: ${m}\n`) },
    });
    pools = poolSet;
    const registry = async () => (await poolSet.get(ctx.root)).registry;
    target = {
      registry,
      bus: gate.bus,
      execute: async (call, options) => gate.execute(call, { ...options, registry: await registry() }),
    };
  }
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await serveMcp(target, transport);
  await closed;
  await pools?.close();
  return EXIT.ok;
}
