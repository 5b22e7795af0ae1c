/**
 * @module cli/always-console
 * "Always" for asks answered elsewhere (the approval console): the asking process makes the offer with the
 * one rule writer (`always-rule.ts`, as chat's terminal does), publishes what it would add — the rule, the
 * file, one call the rule matches and one it does not, both checked by the policy engine against the rule
 * alone — and writes exactly that rule when the console's answer is "always". A refused offer (a deny
 * shadows the rule, no policy file, …) is published as its reason, and the console then cannot answer
 * "always" at all.
 */
import type { AlwaysOffered, OfferAlwaysRule, RiskLevel, Tool, ToolCall } from "../core/index.js";
import { displaySafeJson } from "../core/index.js";
import { type CompiledPolicy, PolicyEngine, parsePolicy } from "../policy/index.js";
import { type OfferAlways, writtenLine } from "./always-rule.js";

/** Longest argument value an example shows; the rest is counted. */
const EXAMPLE_VALUE_CHARS = 200;

/**
 * The console's offer, made by `offer` (the gate's `gateOffer`); the write's outcome is reported on `report`.
 * @example gate.execute(call, { offerAlways: consoleOffer(gateOffer(() => ctx.gate(), root), gate, say) })
 */
export function consoleOffer(
  offer: OfferAlways,
  gate: () => Promise<{ policy: CompiledPolicy; registry: { get(name: string): Tool | undefined } }>,
  root: string,
  report: (line: string) => void,
): OfferAlwaysRule {
  return async (request) => {
    const made = await offer(request);
    if ("refused" in made) return { shown: { refused: made.refused } };
    const g = await gate();
    const examples = await ruleExamples(made.rule, request.call, request.details.risk, {
      policy: g.policy,
      tool: g.registry.get(request.call.name),
      root,
    });
    if ("refused" in examples) return { shown: examples };
    return {
      shown: { rule: made.rule, file: made.file, ...examples },
      write: async () => report(writtenLine(made, await made.write())),
    };
  };
}

/**
 * One call `rule` matches (the asked call) and one it does not (the call with one named argument changed),
 * each checked by the policy engine against a policy holding the rule alone.
 */
export async function ruleExamples(
  rule: string,
  call: ToolCall,
  risk: RiskLevel,
  ctx: { policy: CompiledPolicy; tool: Tool | undefined; root: string },
): Promise<{ matches: string; notMatches: string } | Extract<AlwaysOffered, { refused: string }>> {
  const { tool } = ctx;
  if (!tool) return { refused: `there is no tool called ${call.name}` };
  const alone = await parsePolicy(rule, ctx.policy.source, {
    plugins: ctx.policy.plugins,
    roots: [ctx.root],
    tools: [tool],
  });
  const engine = new PolicyEngine({ policy: alone, roots: [ctx.root] });
  const decides = async (args: Record<string, unknown>) => {
    // The engine reads only the tool, the arguments and the risk; the invocation is the pipeline's.
    const decision = await engine.decide({ tool, invocation: undefined as never, args, risk });
    return decision.decision === "allow" && decision.rule?.id === alone.rules[0]?.ref.id;
  };
  const args = (call.args ?? {}) as Record<string, unknown>;
  if (!(await decides(args))) return { refused: "the rule would not match the call it was made for" };
  for (const [name, value] of Object.entries(args)) {
    const changed = { ...args, [name]: variant(value) };
    if (changed[name] === undefined || (await decides(changed))) continue;
    return { matches: shownCall(call.name, args), notMatches: shownCall(call.name, changed) };
  }
  return { refused: "no call differing from this one could be shown that the rule does not match" };
}

/** A value unlike `value` of the same type (`-other` appended; a number plus one; a flag flipped). */
function variant(value: unknown): unknown {
  if (typeof value === "string") return `${value}-other`;
  if (typeof value === "number") return value + 1;
  if (typeof value === "boolean") return !value;
  return undefined;
}

/** `tool {"arg":"value",…}`, display-safe, each long value cut. */
function shownCall(name: string, args: Record<string, unknown>): string {
  const cut = Object.fromEntries(
    Object.entries(args).map(([k, v]) => {
      const text = typeof v === "string" ? v : JSON.stringify(v);
      if (text === undefined || text.length <= EXAMPLE_VALUE_CHARS) return [k, v];
      return [
        k,
        `${text.slice(0, EXAMPLE_VALUE_CHARS)}… (${text.length - EXAMPLE_VALUE_CHARS} more characters)`,
      ];
    }),
  );
  return `${name} ${displaySafeJson(cut)}`;
}
