/**
 * @module bench/noop-gate
 * The gate the audit benches time: one allowed no-op tool, no built-ins, no policy (every call allowed), so
 * what is left of a call is the pipeline and its audit record. Each bench picks the audit (fleet mode's Redis
 * stream, the JSONL file, memory).
 */
import { defineTool, okResult, type Tool } from "../core/index.js";
import { createToolgate, type Toolgate, type ToolgateOptions } from "../toolgate.js";

/** The call every audit bench makes. */
export const NOOP_CALL = { name: "noop", args: { text: "x" } };

/** A tool that returns its text and does nothing else. */
export function noopTool(): Tool {
  return defineTool<{ text: string }>({
    name: "noop",
    description: "Does nothing",
    kind: "think",
    risk: "low",
    parameters: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
      additionalProperties: false,
    },
    run: async (params) => okResult(params.text),
  });
}

/**
 * A gate over `root` with the no-op tool only, every call allowed, warnings dropped; `audit` and `config`
 * choose where records go. Checks one call is allowed before handing it back.
 */
export async function noopGate(
  root: string,
  more: Pick<ToolgateOptions, "audit" | "config"> = {},
): Promise<Toolgate> {
  const gate = await createToolgate({
    roots: [root],
    builtins: false,
    tools: [noopTool()],
    policy: false,
    logger: { warn: () => undefined },
    ...more,
  });
  const r = await gate.execute(NOOP_CALL);
  if (!r.ok || r.decision !== "allow") throw new Error(`the no-op call was not allowed: ${r.llmContent}`);
  return gate;
}
