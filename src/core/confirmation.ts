/**
 * @module core/confirmation
 * Owns what a person sees before approving a call: the confirmation details (the tool's own additions merged
 * with the policy's decision), the order of their quoted fields, the sandbox line in toolgate's words, and
 * display-safe text (hidden characters written out, by Unicode class and from the table in `hidden-characters.json`; the same rule
 * for a model's prose and for JSON a person reads). Every confirmation, from every tool, is built here.
 */

import HIDDEN_TABLE from "./hidden-characters.json" with { type: "json" };
import { describeLabel, isTainted, type Label } from "./labels.js";
import type {
  ConfirmationDetails,
  PolicyDecision,
  SandboxGrant,
  Tool,
  ToolInvocation,
  ToolKind,
  ToolScope,
} from "./types.js";

/** How long a question to a person waits for an answer when nothing says otherwise: 5 minutes; then it is a no. */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 5 * 60_000;

/** One range of the hidden-character table: inclusive code points, why they are hidden, and whether prose hides them. */
export interface HiddenRange {
  from: number;
  to: number;
  why: string;
  /** Written out in a model's prose too (controls, bidi); the others only in what a person approves. */
  prose: boolean;
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
    const { from, to, why, prose } = (entry ?? {}) as Record<string, unknown>;
    const parse = (value: unknown, key: string) => {
      if (typeof value !== "string" || !/^[0-9A-F]{4,6}$/.test(value))
        throw new Error(`hidden-character table: ranges[${i}].${key} must be 4-6 upper-case hex digits`);
      return Number.parseInt(value, 16);
    };
    if (prose !== undefined && typeof prose !== "boolean")
      throw new Error(`hidden-character table: ranges[${i}].prose must be true or false`);
    const range = {
      from: parse(from, "from"),
      to: parse(to, "to"),
      why: String(why ?? ""),
      prose: prose === true,
    };
    if (range.to < range.from || range.to > 0x10ffff)
      throw new Error(`hidden-character table: ranges[${i}] is empty or beyond U+10FFFF`);
    if (range.why === "") throw new Error(`hidden-character table: ranges[${i}].why must say why`);
    return range;
  });
}

const HIDDEN_RANGES = loadHiddenRanges(HIDDEN_TABLE);
const PROSE_RANGES = HIDDEN_RANGES.filter((range) => range.prose);

const inRanges = (code: number, ranges: readonly HiddenRange[]) =>
  ranges.some((range) => code >= range.from && code <= range.to);

/**
 * Hidden by Unicode property, so a character the table does not name is caught by its class: controls (Cc),
 * format characters (Cf: bidi, joiners, Arabic number signs, musical format controls…), private use (Co),
 * unassigned code points (Cn — what a newer Unicode may assign is unknown here), line and paragraph
 * separators, every space but U+0020 (Zs), default-ignorable code points (they draw nothing: variation
 * selectors, tags, fillers), and U+2800, the braille blank, which draws a space the shell does not split on.
 */
const HIDDEN_BY_PROPERTY =
  /^[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}\p{Default_Ignorable_Code_Point}\u2800]$/u;

/**
 * Whether a code point is written out rather than shown: C0 controls, DEL, lone surrogates, the table's
 * ranges, and the Unicode classes of `HIDDEN_BY_PROPERTY`.
 */
export function isHiddenCharacter(code: number): boolean {
  if (code < 0x80) return code < 0x20 || code === 0x7f;
  if (code >= 0xd800 && code <= 0xdfff) return true; // a lone surrogate (pairs arrive as one code point)
  return inRanges(code, HIDDEN_RANGES) || HIDDEN_BY_PROPERTY.test(String.fromCodePoint(code));
}

const hex = (code: number, width: number) => code.toString(16).toUpperCase().padStart(width, "0");

/** How one hidden character is written out: `\n`, `\r`, `\x1b`, `<U+202E>`. */
function writtenOut(ch: string, code: number): string {
  if (ch === "\n") return "\\n";
  if (ch === "\r") return "\\r";
  if (code < 0x80) return `\\x${hex(code, 2).toLowerCase()}`;
  return `<U+${hex(code, 4)}>`;
}

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
    else out += writtenOut(ch, code);
  }
  return out;
}

/**
 * A model's prose (streamed answers, thinking) made safe for a terminal: what could move the cursor, change
 * the terminal or reorder text is written out (C0 controls but line breaks and tabs, DEL, C1 controls, bidi
 * controls, lone surrogates); joiners and variation selectors stay, so emoji still show. A CR before a line
 * break is dropped.
 * @example proseSafe("done\x1b[8m") // "done\\x1b[8m"
 */
export function proseSafe(text: string): string {
  let out = "";
  const chars = [...text];
  for (const [i, ch] of chars.entries()) {
    const code = ch.codePointAt(0)!;
    if (ch === "\n" || ch === "\t") out += ch;
    else if (ch === "\r" && chars[i + 1] === "\n") continue;
    else if (
      code < 0x20 ||
      code === 0x7f ||
      (code >= 0xd800 && code <= 0xdfff) ||
      inRanges(code, PROSE_RANGES)
    )
      out += writtenOut(ch, code);
    else out += ch;
  }
  return out;
}

/**
 * JSON for output a person may read (`--json`, the audit log): `JSON.stringify`, with every hidden character
 * above DEL also escaped as `\uXXXX` (JSON already escapes C0 controls). Lossless: it parses to the same value.
 * @example displaySafeJson({ reason: "a\u202Eb" }) // '{"reason":"a\\u202eb"}'
 */
export function displaySafeJson(value: unknown): string {
  const json = JSON.stringify(value) ?? "null";
  let out = "";
  for (const ch of json) {
    const code = ch.codePointAt(0)!;
    if (code < 0x7f || !isHiddenCharacter(code)) out += ch;
    else for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, "0")}`;
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
 * The sandbox line of a tool that says nothing of its own confinement, in toolgate's words: only shell
 * commands run in the sandbox; a tool from an MCP server runs on that server.
 */
export function unsandboxedLine(tool: Pick<Tool, "name" | "source">): string {
  if (tool.source?.startsWith("mcp:"))
    return `none (the MCP server ${JSON.stringify(tool.source.slice(4))} runs this call, outside toolgate)`;
  return `none (${tool.name} is not a shell command; toolgate runs it itself)`;
}

/**
 * The details of a call before any decision: its tool, description, risk, locations, confirmation type and
 * sandbox line. A tool's own confirmation starts from these; the pipeline uses them when the tool adds nothing.
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
    sandbox: unsandboxedLine(tool),
  };
}

/**
 * Builds the details a person sees for a call the policy decided to ask about: the tool's own details (a
 * diff, the command, a note) or the call's basics, then the decision's risk, reason and rule, the call's
 * reason for leaving the sandbox, and the agent when a sub-agent asks. Every text is made display-safe
 * here. A tool whose details cannot be built makes this reject: nobody can approve what cannot be shown.
 * @example const details = await confirmationDetails(tool, invocation, decision, signal, { sandbox });
 */
export async function confirmationDetails(
  tool: Tool,
  invocation: ToolInvocation,
  decision: PolicyDecision,
  signal: AbortSignal,
  options: { sandbox?: SandboxGrant; scope?: ToolScope; context?: Label } = {},
): Promise<ConfirmationDetails> {
  const own = await invocation.confirmation(signal, options.sandbox ? { sandbox: options.sandbox } : {});
  const base = own || callDetails(tool, invocation);
  const line = (text: string) => displaySafe(text, false);
  // The tool's own note (a command's risks, the repository config key that made it unsafe) stays visible.
  const reason = own && base.reason ? `${decision.reason}; ${base.reason}` : decision.reason;
  // Every text reaches a terminal or an MCP host: what the person reads must be what will run, and nothing
  // a model wrote may break a line, move the cursor or reorder what follows.
  const details: ConfirmationDetails = {
    toolName: line(base.toolName),
    description: line(base.description),
    risk: decision.risk,
    locations: base.locations.map(line),
    type: base.type,
    reason: line(reason),
    sandbox: line(base.sandbox || unsandboxedLine(tool)),
  };
  if (base.command !== undefined) details.command = displaySafe(base.command, true);
  if (base.diff !== undefined) details.diff = displaySafe(base.diff, true);
  if (decision.rule) details.rule = line(decision.rule.id);
  const justification = invocation.sandboxRequest?.()?.justification;
  if (justification?.trim()) details.justification = line(justification.trim());
  if (options.scope?.agent && (options.scope.depth ?? 0) > 0) details.agent = line(options.scope.agent);
  // What the model had read when it asked: the person judges the call knowing untrusted text was in play.
  if (options.context && isTainted(options.context)) details.context = line(describeLabel(options.context));
  return details;
}

/** One quoted field of a confirmation: toolgate's label and the text it quotes. */
export interface ConfirmationField {
  /** toolgate's own words (`command`, `why asked`). */
  label: string;
  /** Display-safe text that may carry a model's words: every front end shows it quoted, never as a line of its own. */
  text: string;
  /** A diff or a script: its lines are quoted one by one. */
  multiline: boolean;
}

/**
 * The fields of a confirmation in the order every front end shows them, between the heading
 * (`TOOL needs your approval (risk: R)`) and the sandbox line, which always comes last.
 * @example for (const f of confirmationFields(details)) lines.push(`${f.label}: "${f.text}"`);
 */
export function confirmationFields(details: ConfirmationDetails): ConfirmationField[] {
  const fields: ConfirmationField[] = [];
  const add = (label: string, text: string | undefined, multiline = false) => {
    if (text !== undefined && text !== "") fields.push({ label, text, multiline });
  };
  add("call", details.description);
  add("sub-agent", details.agent);
  add("command", details.command, (details.command ?? "").includes("\n"));
  add("affects", details.locations.join(", "));
  add("justification", details.justification);
  add("why asked", details.reason);
  add("context", details.context);
  add("change", details.diff?.trimEnd(), true);
  return fields;
}
