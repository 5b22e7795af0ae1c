/**
 * @module planner/plan
 * The cascade for one planning step: routing fan-out → native calls → structured calls in the text
 * (model autonomy) → guarded text extraction → the default call on a first round. The result
 * names the step that produced the calls, says why, and lists every tool left out with its reason.
 */

import { canonicalJson } from "../utils/index.js";
import { type BuildContext, buildCall } from "./build-call.js";
import { mentionedTools } from "./mentions.js";
import { parseNativeCalls } from "./parse-native.js";
import { parseStructuredCalls } from "./parse-text.js";
import { DEFAULT_PROFILE } from "./profile.js";
import { splitThinking } from "./strip-think.js";
import type { PlanInput, PlannedCall, PlannerProfile, PlanResult, SkippedCall } from "./types.js";

/** Calls without duplicates (same name, same arguments), and skips without repeats. */
class Collector {
  readonly calls: PlannedCall[] = [];
  readonly skipped: SkippedCall[] = [];
  private readonly seen = new Set<string>();

  add(outcome: PlannedCall | SkippedCall): void {
    if ("args" in outcome) {
      const key = `${outcome.name}\u0000${canonicalJson(outcome.args)}`;
      if (this.seen.has(key)) return;
      this.seen.add(key);
      this.calls.push(outcome);
    } else this.skip(outcome);
  }

  skip(skip: SkippedCall): void {
    if (!this.skipped.some((s) => s.name === skip.name && s.reason === skip.reason)) this.skipped.push(skip);
  }
}

function cleanList(list: readonly unknown[] | undefined): string[] {
  return [...new Set((list ?? []).filter((x): x is string => typeof x === "string" && x.trim() !== ""))].map(
    (x) => x.trim(),
  );
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** Everything the steps share. */
interface Step {
  input: PlanInput;
  profile: PlannerProfile;
  scope: ReadonlySet<string>;
  subQuestions: string[];
  whitelist: string[];
  ctx: BuildContext;
  out: Collector;
  notes: string[];
}

/** Builds `name` once per sub-question (or once for the query), into the collector. */
function buildForUnits(step: Step, name: string, template?: PlanInput["defaultCall"]): void {
  const rule = template?.args ? { args: template.args } : step.profile.tools[name];
  const units = step.subQuestions.length > 0 ? step.subQuestions : [undefined];
  for (const unit of units)
    step.out.add(buildCall(name, rule, unit ? { ...step.ctx, subQuestion: unit } : step.ctx));
}

/** one call per sub-question × suggested tool, without looking at the model's reply. */
function routingFanOut(step: Step): PlanResult | undefined {
  const { input, whitelist, subQuestions, out } = step;
  if (subQuestions.length === 0 || input.fanOut === false) return undefined;
  if ((input.round ?? 0) > 0 || input.hasContext) return undefined;
  if (whitelist.length === 0) {
    step.notes.push("the routing plan has sub-questions but no suggested tools, so there was no fan-out");
    return undefined;
  }
  for (const name of whitelist) {
    if (step.scope.has(name)) buildForUnits(step, name);
    else out.skip({ name, reason: "suggested by the routing plan but not in the caller's scope" });
  }
  if (out.calls.length === 0) {
    step.notes.push("the routing fan-out produced no call");
    return undefined;
  }
  const reason = `first round without context: ${plural(subQuestions.length, "sub-question")} × ${plural(whitelist.length, "suggested tool")} from the routing plan; the model's reply was not used`;
  return { method: "routing", calls: out.calls, reason, skipped: out.skipped };
}

/** calls the model made in a structured way are passed on as given (the pipeline still checks them). */
function structuredCalls(step: Step): PlanResult | undefined {
  const { input, out } = step;
  const native = input.reply?.toolCalls?.length ? parseNativeCalls(input.reply.toolCalls) : undefined;
  if (native) {
    for (const problem of native.problems) out.skip(problem);
    if (native.calls.length > 0) {
      for (const call of native.calls) out.add(call);
      const reason = `the reply carried ${plural(native.calls.length, "native tool call")}`;
      return { method: "native", calls: out.calls, reason, skipped: out.skipped };
    }
  }
  const parsed = input.reply?.text
    ? parseStructuredCalls(input.reply.text, { strict: input.strictText === true })
    : undefined;
  if (!parsed) return undefined;
  for (const problem of parsed.problems) out.skip(problem);
  if (parsed.calls.length === 0) return undefined;
  for (const call of parsed.calls) out.add(call);
  const reason = `${plural(parsed.calls.length, "structured tool call")} in the reply (${parsed.format})`;
  return { method: "json", calls: out.calls, reason, skipped: out.skipped };
}

/** tools named in the prose, filtered by scope, whitelist, negation and applicability. */
function guardedText(step: Step): PlanResult | undefined {
  const { input, profile, scope, whitelist, out } = step;
  const text = input.reply?.text ?? "";
  if (text.trim() === "" || input.strictText) return undefined;
  const candidates = [...new Set([...scope, ...Object.keys(profile.tools), ...whitelist])];
  const { visible, thinking } = splitThinking(text);
  // The visible answer decides; the thinking only when there is no visible answer at all (a hedged
  // "maybe read_file would help" while thinking must not replace an answer).
  let source = "reply";
  let found = mentionedTools(visible, candidates);
  if (visible.trim() === "" && thinking) {
    source = "thinking";
    found = mentionedTools(thinking, candidates);
  }
  for (const name of found.negated) out.skip({ name, reason: "mentioned only in a negated clause" });
  for (const name of found.positive) {
    if (!scope.has(name)) out.skip({ name, reason: "not in the caller's scope" });
    else if (whitelist.length > 0 && !whitelist.includes(name))
      out.skip({ name, reason: "not in the routing plan's suggested_tools" });
    else buildForUnits(step, name);
  }
  if (out.calls.length === 0) {
    if (found.positive.length > 0) step.notes.push(`no tool named in the ${source} passed the guard`);
    return undefined;
  }
  const names = [...new Set(out.calls.map((c) => c.name))].join(", ");
  const reason = `no structured call; tools named in the ${source} text that passed the guard: ${names}`;
  return { method: "text", calls: out.calls, reason, skipped: out.skipped };
}

/** On a first round with nothing found: the configured default call, within scope and whitelist. */
function defaultCall(step: Step): PlanResult | undefined {
  const { input, profile, scope, whitelist, out } = step;
  if ((input.round ?? 0) > 0) return undefined;
  const configured = input.defaultCall ? [input.defaultCall.name] : (profile.fallback ?? []);
  const candidates =
    whitelist.length > 0 ? [...configured.filter((n) => whitelist.includes(n)), ...whitelist] : configured;
  for (const name of new Set(candidates)) {
    if (!scope.has(name)) continue;
    const before = out.calls.length;
    buildForUnits(step, name, input.defaultCall?.name === name ? input.defaultCall : undefined);
    if (out.calls.length > before) {
      const reason = `first round and no tool call found; default call ${name}`;
      return { method: "fallback", calls: out.calls, reason, skipped: out.skipped };
    }
  }
  return undefined;
}

/**
 * Plans one step: which tool calls to make for this reply.
 * @example
 * plan({ query: "PROJ-123 的状态是什么？", reply: { text: "I should use jira_fetch." }, scope: ["jira_fetch"] })
 * // { method: "text", calls: [{ name: "jira_fetch", args: { issue_key: "PROJ-123" } }], ... }
 */
export function plan(input: PlanInput): PlanResult {
  const profile = input.profile ?? DEFAULT_PROFILE;
  const scope = new Set(input.scope);
  const step: Step = {
    input,
    profile,
    scope,
    subQuestions: cleanList(input.routing?.sub_questions),
    whitelist: cleanList(input.routing?.suggested_tools),
    ctx: {
      query: input.query,
      replyText: splitThinking(input.reply?.text ?? "").visible,
      toolNames: [...new Set([...scope, ...Object.keys(profile.tools)])],
      ...(input.jiraProjectKeys ? { jira: { projectKeys: input.jiraProjectKeys } } : {}),
    },
    out: new Collector(),
    notes: [],
  };
  const result = routingFanOut(step) ?? structuredCalls(step) ?? guardedText(step) ?? defaultCall(step);
  if (result) return result;
  const round = input.round ?? 0;
  const why =
    round > 0
      ? `no tool call found (round ${round}: no default call after the first round)`
      : "no tool call found and no default call in scope";
  const reason = [why, ...step.notes].join("; ");
  return { method: "none", calls: [], reason, skipped: step.out.skipped };
}
