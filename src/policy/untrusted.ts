/**
 * @module policy/untrusted
 * A workspace's own policy before the user trusts the folder: it may only make the gate stricter. Its `deny`
 * and `ask` rules are added to the base policy (the built-in default) and a stricter `default` applies; its
 * `allow` rules, a looser default and any rule's lowered risk are ignored.
 */

import { assemblePolicy } from "./compile.js";
import type { CompiledPolicy, CompiledRule } from "./model.js";
import { stricter } from "./order.js";

/** What was left out of an untrusted policy. */
export interface UntrustedOutcome {
  policy: CompiledPolicy;
  /** Ids of the allow rules ignored. */
  ignoredRules: string[];
  /** The workspace's default, when it was looser than the base's and so ignored. */
  ignoredDefault?: string;
  /** One line for the user, or undefined when nothing was ignored. */
  warning?: string;
}

/** A rule kept from an untrusted file: a risk it sets counts only when it raises the risk to high. */
function kept(rule: CompiledRule): CompiledRule {
  if (rule.risk === undefined || rule.risk === "high") return rule;
  const { risk: _lowered, ...rest } = rule;
  return Object.freeze(rest);
}

/**
 * Combines a trusted base with an untrusted workspace policy so the result is never looser than the base.
 * @example stricterOnly(builtin, workspace).policy // builtin's rules + workspace's deny/ask rules
 */
export function stricterOnly(base: CompiledPolicy, workspace: CompiledPolicy): UntrustedOutcome {
  const ignoredRules = workspace.rules.filter((r) => r.decision === "allow").map((r) => r.ref.id);
  const added = workspace.rules.filter((r) => r.decision !== "allow").map(kept);
  const defaultDecision = stricter(base.defaultDecision, workspace.defaultDecision);
  const looserDefault = defaultDecision !== workspace.defaultDecision ? workspace.defaultDecision : undefined;
  const policy = assemblePolicy(workspace.source, defaultDecision, [...base.rules, ...added], base.plugins);
  const parts: string[] = [];
  if (ignoredRules.length > 0)
    parts.push(`${ignoredRules.length} allow rule${ignoredRules.length === 1 ? "" : "s"}`);
  if (looserDefault) parts.push(`default = "${looserDefault}"`);
  const warning =
    parts.length > 0
      ? `${workspace.source} is not trusted: ignoring its ${parts.join(" and ")} (only its deny and ask rules apply; \`toolgate trust\` to use it all)`
      : undefined;
  return {
    policy,
    ignoredRules,
    ...(looserDefault ? { ignoredDefault: looserDefault } : {}),
    ...(warning ? { warning } : {}),
  };
}
