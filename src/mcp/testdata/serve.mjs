/**
 * `node serve.mjs ROOT [--pool]`: toolgate as an MCP server over stdio, built from `dist/` (what users run).
 * With `--pool`, the project's pool (built-ins + `.mcp.json` servers) is served instead of the gate's registry,
 * through the same pipeline: `executeCall` with the pool's registry, the gate's policy engine and bus.
 * Stands in for `toolgate mcp` until the CLI wires it.
 */

import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { policyVerdict } from "../../../dist/cli/commands/mcp.js";
import { executeCall } from "../../../dist/core/execute.js";
import { createToolgate, defineTool, okResult } from "../../../dist/index.js";
import { serveMcp } from "../../../dist/mcp/server.js";
import { builtinDefaultPolicy, PolicyEngine } from "../../../dist/policy/index.js";
import { ToolSource } from "../../../dist/tool-source.js";

const root = process.argv[2];
/** Two host tools, so the test does not depend on which built-ins exist: one reads, one writes. */
const hostTools = [
  defineTool({
    name: "note_read",
    description: "Reads a note",
    parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    kind: "read",
    risk: "low",
    // The workspace's own notes (docs/injection.md: an undeclared host tool counts as untrusted and private).
    label: { integrity: "trusted", confidentiality: "private" },
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
    // Its result only names the note it wrote.
    label: { integrity: "trusted", confidentiality: "public" },
    run: async ({ name, text }) => {
      await writeFile(join(root, name), text);
      return okResult(`wrote ${name}`);
    },
  }),
];
const logger = { warn: (m) => process.stderr.write(`${m}\n`) };
const gate = await createToolgate({ roots: [root], policy: false, tools: hostTools, logger });
// Listings no looser than the policy, as `toolgate mcp` serves them.
let target = {
  registry: gate.registry,
  execute: (call, options) => gate.execute(call, options),
  verdict: (tool) => policyVerdict(gate.policy, tool),
};
let source;
if (process.argv.includes("--pool")) {
  // The test's own configuration trusts its workspace; the fixture takes the project's files as they are.
  source = new ToolSource({
    host: gate.registry,
    root,
    mcp: true,
    trusted: () => true,
    admit: () => {},
    logger,
  });
  const policy = await builtinDefaultPolicy();
  const decider = new PolicyEngine({ policy, roots: gate.roots });
  const registry = async () => (await source.full()).registry;
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
  await source?.close();
  await gate.close();
  process.exit(0);
});
