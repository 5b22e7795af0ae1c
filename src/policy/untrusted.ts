/**
 * @module policy/untrusted
 * A workspace's own policy before the user trusts it: it may only make the gate stricter. The result is a
 * layered policy: the trusted base (the built-in default) decides a call, the workspace file with its allow
 * rules, its sandbox grants and its lowered risks taken out decides it too, and the stricter answer wins. So
 * the decision is never looser than the base's, nor than the workspace file's own once everything in it that
 * loosens is gone (docs/trust.md, "Only tighten").
 */

import { assemblePolicy, layeredPolicy } from "./compile.js";
import type { CompiledPolicy, CompiledRule } from "./model.js";
import { stricter } from "./order.js";

/** What was left out of an untrusted policy. */
export interface UntrustedOutcome {
  policy: CompiledPolicy;
  /** Ids of the allow rules ignored. */
  ignoredRules: string[];
  /** Ids of the rules whose `sandbox` grant was dropped (the rule itself still applies). */
  ignoredGrants: string[];
  /** The workspace's default, when it was looser than the base's (it then tightens nothing). */
  ignoredDefault?: string;
  /** One line for the user, or undefined when nothing was ignored. */
  warning?: string;
}

/**
 * A rule kept from an untrusted file: no sandbox grant (leaving the sandbox is trust), a risk it sets counts
 * only when it raises the risk to high, and an ask rule has no message: the person deciding would read the
 * repository's words ("safe, approve") in toolgate's "why asked" field. A deny rule's message stays: it goes
 * to the model, and a denial cannot be talked into running anything.
 */
function kept(rule: CompiledRule): CompiledRule {
  const persuades = rule.decision === "ask" && rule.message !== undefined;
  if (rule.sandbox === undefined && (rule.risk === undefined || rule.risk === "high") && !persuades)
    return rule;
  const { risk, sandbox: _grant, message, ...rest } = rule;
  return Object.freeze({
    ...rest,
    ...(risk === "high" ? { risk } : {}),
    ...(message !== undefined && !persuades ? { message } : {}),
  });
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * Combines a trusted base with an untrusted workspace policy so that no decision is looser than the base's
 * or the workspace's own without what loosens. `why` says how the file is untrusted (`is not trusted`,
 * `changed since … was trusted`) in the warning.
 * @example stricterOnly(builtin, workspace).policy // builtin decides, the workspace's deny/ask rules and default can only tighten
 */
export function stricterOnly(
  base: CompiledPolicy,
  workspace: CompiledPolicy,
  why = "is not trusted",
): UntrustedOutcome {
  const ignoredRules = workspace.rules.filter((r) => r.decision === "allow").map((r) => r.ref.id);
  const tightening = workspace.rules.filter((r) => r.decision !== "allow");
  const ignoredGrants = tightening.filter((r) => r.sandbox !== undefined).map((r) => r.ref.id);
  const layer = assemblePolicy(
    workspace.source,
    workspace.defaultDecision,
    tightening.map(kept),
    workspace.plugins,
  );
  const looserDefault =
    stricter(base.defaultDecision, workspace.defaultDecision) !== workspace.defaultDecision;
  const policy = layeredPolicy(workspace.source, [base, layer]);
  const parts: string[] = [];
  if (ignoredRules.length > 0) parts.push(plural(ignoredRules.length, "allow rule"));
  if (looserDefault) parts.push(`default = "${workspace.defaultDecision}"`);
  const grants =
    ignoredGrants.length > 0
      ? `the sandbox grant${ignoredGrants.length === 1 ? "" : "s"} of ${ignoredGrants.join(", ")}`
      : undefined;
  const ignored = [...(parts.length > 0 ? [`its ${parts.join(" and ")}`] : []), ...(grants ? [grants] : [])];
  const warning =
    ignored.length > 0
      ? `${workspace.source} ${why}: ignoring ${ignored.join(" and ")} (only its deny and ask rules and a stricter default apply; \`toolgate trust\` shows what it would change and trusts it)`
      : undefined;
  return {
    policy,
    ignoredRules,
    ignoredGrants,
    ...(looserDefault ? { ignoredDefault: workspace.defaultDecision } : {}),
    ...(warning ? { warning } : {}),
  };
}
