/**
 * @module core/steps/confirm
 * Step 4: for `ask`, show a person the confirmation details through the confirmer (the message bus).
 * No confirmer, no answer, a refusal, or a failing confirmer: all are a deny. Only an explicit yes runs.
 */
import { confirmationTypeFor } from "../define-tool.js";
import type {
  ConfirmationDetails,
  Confirmer,
  PolicyDecision,
  Tool,
  ToolInvocation,
  ToolScope,
} from "../types.js";
import { sandboxFor } from "./decide.js";

export type ConfirmOutcome = { approved: true } | { approved: false; reason: string; cancelled?: boolean };

/** Builds the details a person sees: the tool's own (diff, command) merged with the decision (R7.8). */
export async function confirmationDetailsFor(
  tool: Tool,
  invocation: ToolInvocation,
  decision: PolicyDecision,
  signal: AbortSignal,
  scope?: ToolScope,
): Promise<ConfirmationDetails> {
  const sandbox = sandboxFor(decision, invocation);
  const own = await invocation.shouldConfirmExecute(signal, sandbox ? { sandbox } : {});
  const base: ConfirmationDetails = own || {
    toolName: tool.name,
    description: invocation.getDescription(),
    risk: decision.risk,
    locations: invocation.toolLocations(),
    type: confirmationTypeFor(tool.kind),
  };
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
  if (scope?.agent && (scope.depth ?? 0) > 0) details.agent = scope.agent;
  return details;
}

/** Control, bidi and invisible format characters: they can rewrite or hide what a terminal shows. */
const HIDDEN = /[\p{Cc}\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/gu;

/**
 * Text from a call's arguments made safe to show a person: hidden characters are written out (`\x1b`,
 * `<U+202E>`); line breaks too, unless the text is multi-line by nature (a diff, a script).
 */
export function displaySafe(text: string, multiline: boolean): string {
  return text.replace(HIDDEN, (ch) => {
    if (multiline && (ch === "\n" || ch === "\t")) return ch;
    if (ch === "\n") return "\\n";
    if (ch === "\r") return "\\r";
    const code = ch.codePointAt(0)!;
    const hex = code.toString(16).toUpperCase();
    return code < 0x80 ? `\\x${hex.padStart(2, "0").toLowerCase()}` : `<U+${hex.padStart(4, "0")}>`;
  });
}

export async function confirmCall(
  confirmer: Confirmer | undefined,
  details: ConfirmationDetails,
  signal: AbortSignal,
): Promise<ConfirmOutcome> {
  if (!confirmer)
    return { approved: false, reason: "it needs approval and no one was available to approve it" };
  try {
    const answer = await confirmer.confirm(details, signal);
    if (answer.approved === true) return { approved: true };
    return {
      approved: false,
      reason: answer.reason ? `it was not approved: ${answer.reason}` : "it was not approved",
    };
  } catch (error) {
    if (signal.aborted) return { approved: false, reason: "the confirmation was cancelled", cancelled: true };
    return { approved: false, reason: `the confirmation failed (${(error as Error).message})` };
  }
}
