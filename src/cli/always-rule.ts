/**
 * @module cli/always-rule
 * "Always" is a rule: answering "always" to an ask adds the narrowest `[[rules]]` table allowing exactly that
 * call (`allow-rule.ts`, the one builder, shared with the denial hint) to the policy file in force, so the
 * next identical call is allowed without asking — by this run and by the next. The rule is offered (and
 * shown) before the question; an offer is refused, with the reason, when
 * - no rule can name exactly this call (`allowRule` says why),
 * - no policy file is in force (the built-in default has no file to add to),
 * - the workspace's `.toolgate/policy.toml` is not trusted (its allow rules would not apply),
 * - the policy with the rule added would not allow the call: a deny (or an earlier ask) shadows it — "always"
 *   never overrides a deny.
 * Writing appends the block (the file's text and comments stay as they were), atomically; a workspace's own
 * policy file is re-trusted with exactly the bytes written (`retrustFile`). A failure leaves the file as it
 * was and says so. Once written, the policy compiled from exactly those bytes (checked before the offer was
 * made) is put in force in the running process too (`use`), so the same call in this session no longer asks;
 * a rule that was not written is never put in force.
 */
import { isAbsolute, join } from "node:path";
import type { ConfirmationRequest, RiskLevel, Tool, ToolCall } from "../core/index.js";
import { type CompiledPolicy, PolicyEngine, parsePolicy } from "../policy/index.js";
import { readPlainFile } from "../utils/index.js";
import { trustLookup, trustStorePath, writeFileAtomic } from "../workspace/index.js";
import { allowRule } from "./allow-rule.js";

/** What "always" needs to know: the policy in force, the called tool, the workspace root, the trust list. */
export interface AlwaysContext {
  policy: CompiledPolicy;
  tool: Tool | undefined;
  root: string;
  /** Every tool the policy may name (its rules' examples are checked with their argument kinds). Default: `tool`. */
  tools?: readonly Tool[];
  /** Puts the policy with the rule in force in this process once written (the gate's `usePolicy`). */
  use?: (policy: CompiledPolicy) => void;
  /** The trust list's file (tests give their own). Default: the user's. */
  trustStore?: string;
}

/**
 * The outcome of writing an offered rule; `notInForce` says why a written rule could not be put in force in
 * this process (the next one loads it from the file).
 */
export type AlwaysWritten = { written: true; notInForce?: string } | { failed: string };

/** A rule "always" would add (to show before asking, then write on "always"), or why there is none. */
export type AlwaysOffer =
  | {
      /** The `[[rules]]` table, as it will be written. */
      rule: string;
      /** The policy file it goes to, as shown (relative to the root when inside it). */
      file: string;
      write(): Promise<AlwaysWritten>;
    }
  | { refused: string };

const WORKSPACE_POLICY = ".toolgate/policy.toml";

/**
 * The rule "always" would add for this call, checked against the policy it would join.
 * @example const offer = await alwaysOffer(call, "medium", { policy: gate.policy, tool, root });
 * if ("rule" in offer) (await offer.write())
 */
export async function alwaysOffer(call: ToolCall, risk: RiskLevel, ctx: AlwaysContext): Promise<AlwaysOffer> {
  const path = ctx.policy.source;
  if (!isAbsolute(path) || ctx.policy.layers !== undefined)
    return {
      refused:
        ctx.policy.layers !== undefined
          ? "the workspace's policy file is not trusted, so an allow rule added to it would not apply (`toolgate trust` shows it and trusts it)"
          : "no policy file is in force, so there is nowhere to add a rule (`toolgate init` writes .toolgate/policy.toml)",
    };
  const tool = ctx.tool;
  if (tool === undefined) return { refused: `there is no tool called ${call.name}` };
  const rule = await allowRule(call, ctx);
  if ("refused" in rule) return rule;
  let before: Buffer;
  try {
    before = await readPlainFile(path);
  } catch (error) {
    return { refused: `the policy file ${path} cannot be read (${(error as Error).message})` };
  }
  const store = ctx.trustStore ?? trustStorePath();
  const inWorkspace = path === join(ctx.root, WORKSPACE_POLICY);
  if (inWorkspace && trustLookup(store).file(path, before).state !== "trusted")
    return {
      refused:
        "the workspace's policy file changed since it was trusted, so an allow rule added to it would not apply (`toolgate trust` shows it and trusts it)",
    };
  const text = withRule(before.toString("utf8"), rule.text);
  const checked = await withRuleChecked(text, call, risk, { ...ctx, tool });
  if ("refused" in checked) return checked;
  const shown = inWorkspace ? WORKSPACE_POLICY : path;
  return {
    rule: rule.text,
    file: shown,
    write: async () => {
      const written = await writeRule(
        path,
        before,
        text,
        inWorkspace ? { root: ctx.root, store } : undefined,
      );
      return "written" in written ? inForce(checked.policy, ctx.use) : written;
    },
  };
}

/** Puts the written policy in force here; a refusal leaves the one in force and is said, never thrown. */
function inForce(policy: CompiledPolicy, use: AlwaysContext["use"]): AlwaysWritten {
  if (!use) return { written: true };
  try {
    use(policy);
    return { written: true };
  } catch (error) {
    return { written: true, notInForce: (error as Error).message };
  }
}

/** The file's text with the rule appended as its own block; nothing of the text before is changed. */
function withRule(text: string, rule: string): string {
  const sep = text === "" ? "" : text.endsWith("\n") ? "\n" : "\n\n";
  return `${text}${sep}# added by toolgate: "always" for exactly one call\n${rule}\n`;
}

/**
 * The policy with the rule added, compiled as the file will load (every tool, so the other rules' examples
 * are checked with their argument kinds), when the new rule is what decides the call; else why not (it does
 * not load, a deny or a rule checked first decides the call).
 */
async function withRuleChecked(
  text: string,
  call: ToolCall,
  risk: RiskLevel,
  ctx: AlwaysContext & { tool: Tool },
): Promise<{ policy: CompiledPolicy } | { refused: string }> {
  let policy: CompiledPolicy;
  try {
    policy = await parsePolicy(text, ctx.policy.source, {
      plugins: ctx.policy.plugins,
      roots: [ctx.root],
      tools: ctx.tools ?? [ctx.tool],
    });
  } catch (error) {
    return { refused: `the policy file would not load with the rule added (${(error as Error).message})` };
  }
  const added = policy.rules.at(-1)!.ref.id;
  const engine = new PolicyEngine({ policy, roots: [ctx.root] });
  const args = (call.args ?? {}) as Record<string, unknown>;
  // The engine reads only the tool, the arguments and the risk; the invocation is the pipeline's.
  const decision = await engine.decide({ tool: ctx.tool, invocation: undefined as never, args, risk });
  if (decision.decision === "allow" && decision.rule?.id === added) return { policy };
  const by = decision.rule
    ? `rule ${decision.rule.id}${decision.rule.line ? ` (line ${decision.rule.line})` : ""}`
    : "";
  if (decision.decision === "deny")
    return {
      refused: `the policy denies this call${by ? ` (${by})` : ""}, and "always" never overrides a deny`,
    };
  return { refused: `${by || "the policy"} decides this call before the rule would (${decision.decision})` };
}

async function writeRule(
  path: string,
  before: Buffer,
  text: string,
  trusted: { root: string; store: string } | undefined,
): Promise<AlwaysWritten> {
  try {
    const now = await readPlainFile(path);
    if (!now.equals(before))
      return { failed: `${path} changed since the rule was shown; nothing was written` };
    await writeFileAtomic(path, text);
  } catch (error) {
    return { failed: `could not write ${path} (${(error as Error).message}); it is as it was` };
  }
  if (trusted === undefined) return { written: true };
  try {
    // Loaded on use: the trust front door reads MCP files, and a plain `call` must not load the MCP SDK.
    const { retrustFile } = await import("../trust/index.js");
    await retrustFile(trusted.root, WORKSPACE_POLICY, text, trusted.store);
    return { written: true };
  } catch (error) {
    // Written but not re-trusted: put the trusted text back, so the file is as it was.
    const why = (error as Error).message;
    try {
      await writeFileAtomic(path, before);
      return {
        failed: `could not re-trust ${path} (${why}); the rule was taken out again, the file is as it was`,
      };
    } catch {
      return {
        failed: `could not re-trust ${path} (${why}), nor restore it: it now holds the rule but is not trusted`,
      };
    }
  }
}

/** What an offer reads of a gate: its policy in force, its tools, and how a new policy is put in force. */
export interface OfferingGate {
  policy: CompiledPolicy;
  registry: { get(name: string): Tool | undefined; list(): readonly Tool[] };
  usePolicy?(policy: CompiledPolicy): void;
}

/** Offers "always" for one asked call (the front ends' seam: chat, `toolgate call`, the MCP server). */
export type OfferAlways = (request: ConfirmationRequest) => Promise<AlwaysOffer>;

/**
 * The offer for a gate's asked calls: its policy in force and its tools. An offer that throws is a refusal.
 * @example terminalConfirm(rl, write, before, width, gateOffer(() => ctx.gate(), ctx.root))
 */
export function gateOffer(gate: () => Promise<OfferingGate>, root: string, trustStore?: string): OfferAlways {
  return async ({ call, details }) => {
    try {
      const g = await gate();
      return await alwaysOffer(call, details.risk, {
        policy: g.policy,
        tool: g.registry.get(call.name),
        tools: g.registry.list(),
        root,
        ...(g.usePolicy ? { use: (policy: CompiledPolicy) => g.usePolicy?.(policy) } : {}),
        ...(trustStore ? { trustStore } : {}),
      });
    } catch (error) {
      return { refused: `the rule could not be made (${(error as Error).message})` };
    }
  };
}

/**
 * How a terminal shows the offer under the confirmation (`renderConfirmation`'s `always`): the rule, or why
 * there is none — quoted, since both may hold the call's words. `fallback` is what "always" does without a
 * rule (chat: this session only); without one, "always" is not offered.
 */
export function alwaysBlock(offer: AlwaysOffer, fallback?: string): { lead: string; text: string } {
  if ("rule" in offer)
    return {
      lead: `always = add this rule to ${offer.file}, allowing exactly this call from now on:`,
      text: offer.rule,
    };
  return {
    lead: fallback
      ? `always = ${fallback}; no rule is added to the policy:`
      : "always is not offered: no rule can be added to the policy:",
    text: offer.refused,
  };
}

/** The line saying what came of writing the rule. */
export function writtenLine(offer: AlwaysOffer & { file: string }, written: AlwaysWritten): string {
  if (!("written" in written)) return `  the rule was not added: ${written.failed}\n`;
  if (written.notInForce === undefined) return `  added the rule to ${offer.file}\n`;
  return `  added the rule to ${offer.file}; this session goes on without it and may ask again (${written.notInForce})\n`;
}
