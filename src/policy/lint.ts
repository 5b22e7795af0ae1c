/**
 * @module policy/lint
 * Finds rules that can never apply: a tool name (or glob) that no known tool has and no MCP tool could have.
 * `tool = "Shell"` loads as valid and never fires — for a deny rule, a hole the author believes is closed.
 * Warnings at load, errors in `toolgate policy validate --strict`. Pure: the known names are passed in.
 */
import { compileToolPattern } from "../core/index.js";
import type { CompiledPolicy } from "./model.js";

/** One rule that names something no tool is called. */
export interface PolicyLintWarning {
  /** The rule id (`policy.toml#3`). */
  rule: string;
  line?: number;
  /** The tool entry as written. */
  tool: string;
  /** The closest known name, when one is close. */
  suggestion?: string;
  /** `deny` rules first: a deny that never fires is the loudest warning. */
  severity: "deny" | "warning";
  message: string;
}

/** Names MCP servers give their tools (`mcp__server__tool`): unknown at load, so never flagged. */
const MCP_PREFIX = "mcp__";

/** Edit distance between two strings (insert, delete, substitute; each costs 1). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The known name closest to `name`, compared case-insensitively, when close enough to be a typo. */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (best === undefined || distance < best.distance) best = { name: candidate, distance };
  }
  if (best === undefined) return undefined;
  // A third of the name (at least 2 edits): `Shell`, `shel`, `read-file`, `readfile` all find theirs.
  return best.distance <= Math.max(2, Math.floor(name.length / 3)) ? best.name : undefined;
}

/** True when a glob with this literal prefix could match an MCP tool name (`mcp__…`, `mcp*`, `*…`). */
function globCouldMatchMcp(prefix: string): boolean {
  return prefix.startsWith(MCP_PREFIX) || MCP_PREFIX.startsWith(prefix);
}

/**
 * Rules naming tools that do not exist, deny rules first.
 * @param known every tool name the policy may govern (built-ins, coordination tools, the host's own)
 * @example lintPolicy(policy, ["shell", "read_file"]) // [{ rule: "policy.toml#1", tool: "Shell", suggestion: "shell", ... }]
 */
export function lintPolicy(policy: CompiledPolicy, known: Iterable<string>): PolicyLintWarning[] {
  const names = new Set(known);
  const out: PolicyLintWarning[] = [];
  for (const rule of policy.rules) {
    for (const entry of rule.tools) {
      const pattern = compileToolPattern(entry);
      if (pattern.type === "any") continue;
      if (pattern.type === "exact") {
        if (names.has(pattern.name) || pattern.name.startsWith(MCP_PREFIX)) continue;
      } else if ([...names].some((n) => pattern.test(n)) || globCouldMatchMcp(pattern.prefix)) continue;
      const suggestion = pattern.type === "exact" ? closestName(pattern.name, names) : undefined;
      const hint = suggestion ? ` (did you mean ${JSON.stringify(suggestion)}?)` : "";
      const where = `${rule.ref.id}${rule.line ? ` (line ${rule.line})` : ""}`;
      const what = pattern.type === "exact" ? "no tool is called" : "no tool name matches";
      const severity = rule.decision === "deny" ? "deny" : "warning";
      const message =
        severity === "deny"
          ? `deny rule ${where} never fires: ${what} ${JSON.stringify(entry)}${hint}`
          : `rule ${where} never applies: ${what} ${JSON.stringify(entry)}${hint}`;
      out.push({
        rule: rule.ref.id,
        ...(rule.line ? { line: rule.line } : {}),
        tool: entry,
        ...(suggestion ? { suggestion } : {}),
        severity,
        message,
      });
    }
  }
  return out.sort((a, b) => (a.severity === b.severity ? 0 : a.severity === "deny" ? -1 : 1));
}
