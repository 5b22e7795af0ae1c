/**
 * @module cli/commands/mcp
 * `toolgate mcp [--pool]` serves the workspace's tools as an MCP server over stdio — every call through the
 * same pipeline and policy, `ask` as an elicitation to the client. `--pool` also serves the tools of the
 * servers in `.mcp.json`. `toolgate mcp list` shows the configured servers, their status and tool counts.
 */

import { parseArgs } from "node:util";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ToolPools } from "../../agents/index.js";
import { serveMcp } from "../../mcp/index.js";
import type { CliContext } from "../context.js";
import { EXIT, type ExitCode, UsageError } from "../exit-codes.js";
import { runMcpList } from "./project.js";

export const usage = "toolgate mcp [--pool] | toolgate mcp list";

export async function runMcp(argv: string[], ctx: CliContext): Promise<ExitCode> {
  if (argv[0] === "list") {
    if (argv.length > 1) throw new UsageError(`usage: ${usage}`);
    return runMcpList(ctx);
  }
  const { values, positionals } = parseArgs({
    args: argv,
    options: { pool: { type: "boolean" } },
    allowPositionals: true,
  });
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
