/**
 * `node serve.mjs ROOT [--pool]`: toolgate as an MCP server over stdio, built from `dist/` (what users run).
 * With `--pool`, the project's pool (built-ins + `.mcp.json` servers) is served instead of the gate's registry,
 * through the same pipeline: `executeCall` with the pool's registry, the gate's policy engine and bus.
 * Stands in for `toolgate mcp` until the CLI wires it.
 */

import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createToolPools } from "../../../dist/agents/index.js";
import { policyVerdict } from "../../../dist/cli/commands/mcp.js";
import { executeCall } from "../../../dist/core/execute.js";
import { createToolgate, defineTool, okResult } from "../../../dist/index.js";
import { serveMcp } from "../../../dist/mcp/server.js";
import { builtinDefaultPolicy, PolicyEngine } from "../../../dist/policy/index.js";

const root = process.argv[2];
/** Two host tools, so the test does not depend on which built-ins exist: one reads, one writes. */
const hostTools = [
  defineTool({
    name: "note_read",
    description: "Reads a note",
    parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    kind: "read",
    risk: "low",
    run: async ({ name }) => okResult(await readFile(join(root, name), "utf8")),
  }),
  defineTool({
    name: "note_write",
    description: "Writes a note",
    parameters: {
      type: "object",
      properties: { name: { type: "string" }, text: { type: "string" } },
      required: ["name", "text"],
    },
    kind: "edit",
    risk: "medium",
    run: async ({ name, text }) => {
      await writeFile(join(root, name), text);
      return okResult(`wrote ${name}`);
    },
  }),
];
const gate = await createToolgate({
  roots: [root],
  policy: false,
  tools: hostTools,
  logger: { warn: (m) => process.stderr.write(`${m}\n`) },
});
// Listings no looser than the policy, as `toolgate mcp` serves them.
let target = {
  registry: gate.registry,
  execute: (call, options) => gate.execute(call, options),
  verdict: (tool) => policyVerdict(gate.policy, tool),
};
let pools;
if (process.argv.includes("--pool")) {
  pools = await createToolPools({ builtins: gate.registry });
  const policy = await builtinDefaultPolicy();
  const decider = new PolicyEngine({ policy, roots: gate.roots });
  const registry = async () => (await pools.get(root)).registry;
  target = {
    registry,
    bus: gate.bus,
    execute: async (call, options) =>
      executeCall({ registry: await registry(), decider, confirmer: gate.bus }, call, options),
    verdict: (tool) => policyVerdict(policy, tool),
  };
}
const serving = await serveMcp(target, new StdioServerTransport());
process.stdin.on("close", async () => {
  await serving.close();
  await pools?.close();
  await gate.close();
  process.exit(0);
});
