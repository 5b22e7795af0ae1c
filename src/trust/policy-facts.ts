/**
 * @module trust/policy-facts
 * What a workspace's `.toolgate/policy.toml` says that trust turns on — its default, its allow rules, the
 * sandbox grants of its rules — recorded when it is trusted and compared when it changes (a default made
 * looser, allow rules or grants added, deny and ask rules removed). Read from the TOML as written, not
 * validated: the review describes a file even when it would not load.
 */
import { createHash } from "node:crypto";
import { parse } from "smol-toml";
import { canonicalJson, isPlainObject } from "../utils/index.js";
import type { FactKind } from "./kind.js";

/** One rule, as much as the review needs. */
interface RuleFact {
  /** Digest of the rule as written: a rule that changes is one removed and one added. */
  digest: string;
  /** `allow rule for shell when command` */
  label: string;
  decision: string;
  sandbox?: string;
}

/** The facts of one policy file. */
export interface PolicyFacts {
  default?: string;
  rules: RuleFact[];
}

const RANK: Record<string, number> = { allow: 0, ask: 1, deny: 2 };

function ruleFact(raw: unknown, i: number): RuleFact {
  const rule = isPlainObject(raw) ? raw : {};
  const tools = [rule.tool ?? "?"].flat().map(String).join(", ");
  const kinds = rule.kind === undefined ? "" : ` of kind ${[rule.kind].flat().map(String).join(", ")}`;
  const when = isPlainObject(rule.when) ? ` when ${Object.keys(rule.when).join(", ")}` : "";
  const name = typeof rule.name === "string" ? ` "${rule.name}"` : ` #${i + 1}`;
  const decision = String(rule.decision ?? "?");
  return {
    digest: createHash("sha256")
      .update(canonicalJson(raw ?? null))
      .digest("hex")
      .slice(0, 16),
    label: `${decision} rule${name} for ${tools}${kinds}${when}`,
    decision,
    ...(typeof rule.sandbox === "string" ? { sandbox: rule.sandbox } : {}),
  };
}

const grant = (r: RuleFact) => `${r.label} grants sandbox = "${r.sandbox}"`;

export const policyKind: FactKind<PolicyFacts> = {
  summarize(text) {
    const raw = parse(text) as { default?: unknown; rules?: unknown };
    const rules = Array.isArray(raw.rules) ? raw.rules : [];
    return {
      ...(typeof raw.default === "string" ? { default: raw.default } : {}),
      rules: rules.map(ruleFact),
    };
  },
  describe(facts) {
    const lines: string[] = [];
    if (facts.default !== undefined) lines.push(`default "${facts.default}"`);
    for (const r of facts.rules) {
      if (r.decision === "allow") lines.push(r.sandbox ? grant(r) : r.label);
      else if (r.sandbox) lines.push(grant(r));
    }
    const tightening = facts.rules.filter((r) => r.decision !== "allow").length;
    if (tightening > 0) lines.push(`${tightening} deny or ask rule(s) (these apply untrusted too)`);
    return lines;
  },
  changes(before, after) {
    const lines: string[] = [];
    const was = before.default ?? "(built-in)";
    const now = after.default ?? "(built-in)";
    if (was !== now) {
      const looser = (RANK[now] ?? 1) < (RANK[was] ?? 1);
      lines.push(`default "${was}" → "${now}"${looser ? " (looser)" : ""}`);
    }
    const old = new Set(before.rules.map((r) => r.digest));
    const current = new Set(after.rules.map((r) => r.digest));
    for (const r of before.rules)
      if (!current.has(r.digest))
        lines.push(`removed: ${r.label}${r.decision === "allow" ? "" : " (looser)"}`);
    for (const r of after.rules) {
      if (old.has(r.digest)) continue;
      lines.push(
        `added: ${r.sandbox ? grant(r) : r.label}${r.decision === "allow" || r.sandbox ? " (looser)" : ""}`,
      );
    }
    return lines;
  },
};
