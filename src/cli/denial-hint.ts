/**
 * @module cli/denial-hint
 * What the command line adds under a denied call: how to allow it. The library's message stays true for
 * any host ("no one was available to approve it"); only the CLI knows its own ways to answer an `ask`
 * (a terminal, `--yes`) and which policy file is in force, so the hint is built here, from the call, the
 * tool's argument kinds and the policy — including the `[[rules]]` table that would allow the call.
 */
import { isAbsolute, relative, sep } from "node:path";
import type { CallResult, Tool, ToolCall } from "../core/index.js";
import type { CompiledPolicy } from "../policy/index.js";

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
export function denialHint(call: ToolCall, result: CallResult, ctx: HintContext): string | undefined {
  if (result.error?.type !== "denied_by_policy") return undefined;
  const file = ctx.policy.source === "builtin" ? undefined : displayPath(ctx.policy.source, ctx.root);
  const rule = allowRule(call, ctx);
  const where = file
    ? `add this rule to ${file}`
    : "create .toolgate/policy.toml (`toolgate init` writes a starter one) with this rule";
  if (result.decision === "ask") {
    if (ctx.askable) return undefined;
    const terminal = ctx.terminalAsks ? "run it on a terminal to be asked, " : "";
    return [
      `  to allow it: ${terminal}pass --yes to approve what the policy asks about (--yes never overrides a deny), or ${where}:`,
      indent(rule),
    ].join("\n");
  }
  if (result.decision === "deny") {
    const denying = ctx.policy.rules.find((r) => r.ref.id === result.rule);
    if (denying) {
      const at = `${displayPath(denying.ref.source, ctx.root)}${denying.ref.line ? `:${denying.ref.line}` : ""}`;
      return `  denied by rule ${denying.ref.id} (${at}); a matching deny rule always wins, so to allow this call change or remove that rule (--yes does not override a deny)`;
    }
    return [
      `  the policy's default decision is deny and no rule allows this call (--yes does not override a deny); to allow it, ${where}:`,
      indent(rule),
    ].join("\n");
  }
  return undefined;
}

/** A `[[rules]]` table allowing this call, narrowed by a condition on its path, command or URL argument. */
export function allowRule(call: ToolCall, ctx: Pick<HintContext, "tool" | "root">): string {
  const lines = ["[[rules]]", `tool = ${JSON.stringify(call.name)}`, 'decision = "allow"'];
  const condition = narrowingCondition(call, ctx);
  if (condition) lines.push(condition);
  return lines.join("\n");
}

function narrowingCondition(call: ToolCall, ctx: Pick<HintContext, "tool" | "root">): string | undefined {
  const args = (call.args ?? {}) as Record<string, unknown>;
  const kinds = ctx.tool?.argKinds ?? {};
  for (const [arg, kind] of Object.entries(kinds)) {
    const value = args[arg];
    if (typeof value !== "string" || value === "") continue;
    if (kind === "path") {
      const rel = isAbsolute(value) ? relative(ctx.root, value) : value;
      // Glob characters in a name would widen the rule: write the condition only for plain paths.
      if (rel === "" || rel.startsWith("..") || /[*?[\]{}!\\]/.test(rel)) continue;
      // A leading "/" anchors the gitignore-style glob at the root: "/x" is x, not also sub/x.
      return `when.${arg} = { glob = ${JSON.stringify(`/${rel.split(sep).join("/")}`)} }`;
    }
    if (kind === "command") {
      // A prefix compares the words of every sub-command: suggest one only for a single plain command.
      if (!/^[\w ./:=@,+%-]+$/.test(value)) continue;
      return `when.${arg} = { prefix = ${JSON.stringify(value.trim().replace(/\s+/g, " "))} }`;
    }
    if (kind === "url") {
      try {
        return `when.${arg} = { host = ${JSON.stringify(new URL(value).hostname)} }`;
      } catch {}
    }
  }
  return undefined;
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
