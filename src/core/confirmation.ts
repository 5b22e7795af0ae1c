/**
 * @module core/confirmation
 * Owns what a person sees before approving a call: the confirmation details (the tool's own additions
 * merged with the policy's decision) and display-safe text (hidden characters written out, from the table
 * in `hidden-characters.json`). Every confirmation, from every tool, is built and sanitised here.
 */
import HIDDEN_TABLE from "./hidden-characters.json" with { type: "json" };
import type {
  ConfirmationDetails,
  PolicyDecision,
  SandboxGrant,
  Tool,
  ToolInvocation,
  ToolKind,
  ToolScope,
} from "./types.js";

/** One range of the hidden-character table: inclusive code points and why they are hidden. */
export interface HiddenRange {
  from: number;
  to: number;
  why: string;
}

/**
 * Reads the hidden-character table, refusing a malformed one (a bad range would silently show a
 * character a person must not miss).
 */
export function loadHiddenRanges(table: unknown): HiddenRange[] {
  const ranges = (table as { ranges?: unknown })?.ranges;
  if (!Array.isArray(ranges) || ranges.length === 0)
    throw new Error("hidden-character table: `ranges` must be a non-empty list");
  return ranges.map((entry, i) => {
    const { from, to, why } = (entry ?? {}) as Record<string, unknown>;
    const parse = (value: unknown, key: string) => {
      if (typeof value !== "string" || !/^[0-9A-F]{4,6}$/.test(value))
        throw new Error(`hidden-character table: ranges[${i}].${key} must be 4-6 upper-case hex digits`);
      return Number.parseInt(value, 16);
    };
    const range = { from: parse(from, "from"), to: parse(to, "to"), why: String(why ?? "") };
    if (range.to < range.from || range.to > 0x10ffff)
      throw new Error(`hidden-character table: ranges[${i}] is empty or beyond U+10FFFF`);
    if (range.why === "") throw new Error(`hidden-character table: ranges[${i}].why must say why`);
    return range;
  });
}

const HIDDEN_RANGES = loadHiddenRanges(HIDDEN_TABLE);

/** Whether a code point is written out rather than shown (C0 controls, DEL, and the table's ranges). */
export function isHiddenCharacter(code: number): boolean {
  if (code < 0x20 || code === 0x7f) return true;
  if (code >= 0xd800 && code <= 0xdfff) return true; // a lone surrogate (pairs arrive as one code point)
  return HIDDEN_RANGES.some((range) => code >= range.from && code <= range.to);
}

const hex = (code: number, width: number) => code.toString(16).toUpperCase().padStart(width, "0");

/**
 * Text from a call's arguments made safe to show a person: hidden characters are written out (`\x1b`,
 * `<U+202E>`); line breaks and tabs too, unless the text is multi-line by nature (a diff, a script).
 * @example displaySafe("ls\u202E -la\x1b[2J", false) // "ls<U+202E> -la\\x1b[2J"
 */
export function displaySafe(text: string, multiline: boolean): string {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (!isHiddenCharacter(code) || (multiline && (ch === "\n" || ch === "\t"))) out += ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (code < 0x80) out += `\\x${hex(code, 2).toLowerCase()}`;
    else out += `<U+${hex(code, 4)}>`;
  }
  return out;
}

/** The confirmation type that fits a tool kind; a tool from an MCP server (`source: "mcp:…"`) is "mcp". */
export function confirmationTypeFor(kind: ToolKind, source?: string): ConfirmationDetails["type"] {
  if (source?.startsWith("mcp:")) return "mcp";
  if (kind === "edit" || kind === "delete") return "edit";
  if (kind === "execute") return "exec";
  if (kind === "fetch") return "fetch";
  return "generic";
}

/**
 * The details of a call before any decision: its tool, description, risk, locations and confirmation type.
 * A tool's own confirmation starts from these; the pipeline uses them when the tool adds nothing.
 */
export function callDetails(
  tool: Pick<Tool, "name" | "kind" | "source">,
  invocation: Pick<ToolInvocation, "describe" | "locations" | "riskFor">,
): ConfirmationDetails {
  return {
    toolName: tool.name,
    description: invocation.describe(),
    risk: invocation.riskFor(),
    locations: invocation.locations(),
    type: confirmationTypeFor(tool.kind, tool.source),
  };
}

/**
 * Builds the details a person sees for a call the policy decided to ask about: the tool's own details (a
 * diff, the command, a note) or the call's basics, then the decision's risk, reason and rule, and the agent
 * when a sub-agent asks. All argument text is made display-safe here. A tool whose details cannot be built
 * makes this reject: nobody can approve what cannot be shown.
 * @example const details = await confirmationDetails(tool, invocation, decision, signal, { sandbox });
 */
export async function confirmationDetails(
  tool: Tool,
  invocation: ToolInvocation,
  decision: PolicyDecision,
  signal: AbortSignal,
  options: { sandbox?: SandboxGrant; scope?: ToolScope } = {},
): Promise<ConfirmationDetails> {
  const own = await invocation.confirmation(signal, options.sandbox ? { sandbox: options.sandbox } : {});
  const base = own || callDetails(tool, invocation);
  const details: ConfirmationDetails = {
    ...base,
    // Argument text reaches a terminal or an MCP host: what the person reads must be what will run.
    description: displaySafe(base.description, false),
    locations: base.locations.map((location) => displaySafe(location, false)),
    risk: decision.risk,
    // The tool's own note (a command's risks, the repository config key that made it unsafe) stays visible.
    reason: own && base.reason ? `${decision.reason}; ${base.reason}` : decision.reason,
  };
  if (base.command !== undefined) details.command = displaySafe(base.command, true);
  if (base.diff !== undefined) details.diff = displaySafe(base.diff, true);
  if (decision.rule) details.rule = decision.rule.id;
  if (options.scope?.agent && (options.scope.depth ?? 0) > 0) details.agent = options.scope.agent;
  return details;
}
