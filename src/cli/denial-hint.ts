/**
 * @module cli/denial-hint
 * What the command line adds under a denied call: how to allow it. The library's message stays true for
 * any host ("no one was available to approve it"); only the CLI knows its own ways to answer an `ask`
 * (a terminal, `--yes`) and which policy file is in force, so the hint is built here, from the call, the
 * tool's argument kinds and the policy — including the `[[rules]]` table that would allow the call.
 *
 * That table is never broader than the call (`allow-rule.ts`): each argument the policy reads as a path,
 * command or URL is named exactly; where that cannot be done — a command piped into an interpreter, one the
 * analysis cannot vouch for, a path outside the workspace — no table is suggested, and the hint says why.
 */
import { isAbsolute, relative } from "node:path";
import type { CallResult, Tool, ToolCall } from "../core/index.js";
import type { CompiledPolicy } from "../policy/index.js";
import { allowRule } from "./allow-rule.js";

export interface HintContext {
  /** The policy in force (its `source` is a file path or `builtin`). */
  policy: CompiledPolicy;
  /** The called tool, when it resolved. */
  tool: Tool | undefined;
  /** The workspace root, to write paths in rules relative to it. */
  root: string;
  /** Whether anyone could answer an `ask` (a terminal or `--yes`). */
  askable: boolean;
  /** Whether this command asks on a terminal (`call` does; `run` never asks). */
  terminalAsks: boolean;
}

/**
 * The lines explaining how to allow a denied call, or `undefined` when the result is not a policy denial
 * or a person refused it (asked and said no: the answer was theirs, nothing to fix).
 */
export async function denialHint(
  call: ToolCall,
  result: CallResult,
  ctx: HintContext,
): Promise<string | undefined> {
  if (result.error?.type !== "denied_by_policy") return undefined;
  if (result.decision === "ask" && ctx.askable) return undefined;
  if (result.decision === "deny") {
    const denying = ctx.policy.rules.find((r) => r.ref.id === result.rule);
    if (denying) {
      const at = `${displayPath(denying.ref.source, ctx.root)}${denying.ref.line ? `:${denying.ref.line}` : ""}`;
      return `  denied by rule ${denying.ref.id} (${at}); a matching deny rule always wins, so to allow this call change or remove that rule (--yes does not override a deny)`;
    }
  } else if (result.decision !== "ask") return undefined;
  const file = ctx.policy.source === "builtin" ? undefined : displayPath(ctx.policy.source, ctx.root);
  const where = file
    ? `add this rule to ${file}`
    : "create .toolgate/policy.toml (`toolgate init` writes a starter one) with this rule";
  const rule = await allowRule(call, ctx);
  const lead =
    result.decision === "ask"
      ? `  to allow it: ${ctx.terminalAsks ? "run it on a terminal to be asked, " : ""}pass --yes to approve what the policy asks about (--yes never overrides a deny)`
      : "  the policy's default decision is deny and no rule allows this call (--yes does not override a deny)";
  if ("refused" in rule) return `${lead}; no rule is suggested: ${rule.refused}`;
  return [
    `${lead}${result.decision === "ask" ? ", or" : "; to allow it,"} ${where}:`,
    indent(rule.text),
  ].join("\n");
}

function displayPath(path: string, root: string): string {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}
