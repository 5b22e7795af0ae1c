/**
 * @module test-support/policy-gate
 * A real gate in a temp folder for the tests of what fronts a gate (framework adapters, the MCP servers,
 * telemetry): three tools whose calls the policy answers one way each — `greet` allow, `launch` ask,
 * `wipe` deny (the default) — an in-memory audit log, and a record of which tools actually ran.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineTool, MemoryAuditSink, okResult } from "../core/index.js";
import { createToolgate, type Toolgate } from "../toolgate.js";

/** greet → allow, launch → ask, anything else (wipe) → deny. */
export const ALLOW_ASK_DENY_POLICY = `default = "deny"
[[rules]]
tool = "greet"
decision = "allow"
[[rules]]
tool = "launch"
decision = "ask"
`;

export interface PolicyGate {
  gate: Toolgate;
  root: string;
  audit: MemoryAuditSink;
  /** `tool:what` for every call that reached a tool's code. */
  ran: string[];
  close(): Promise<void>;
}

/**
 * Creates the gate. Each tool takes `{ what: string }` and answers `"<tool> did <what>"`.
 * @param prefix names the temp folder (`toolgate-<prefix>-…`)
 */
export async function policyGate(prefix: string): Promise<PolicyGate> {
  const root = await mkdtemp(join(tmpdir(), `toolgate-${prefix}-`));
  const audit = new MemoryAuditSink();
  const ran: string[] = [];
  const tools = (["greet", "launch", "wipe"] as const).map((name) =>
    defineTool({
      name,
      description: `The ${name} tool`,
      parameters: { type: "object", properties: { what: { type: "string" } }, required: ["what"] },
      kind: name === "greet" ? "read" : name === "wipe" ? "delete" : "execute",
      risk: name === "greet" ? "low" : "high",
      run: async ({ what }) => {
        ran.push(`${name}:${what}`);
        return okResult(`${name} did ${what}`);
      },
    }),
  );
  const gate = await createToolgate({ roots: [root], policyText: ALLOW_ASK_DENY_POLICY, tools, audit });
  return {
    gate,
    root,
    audit,
    ran,
    async close() {
      await gate.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
