/**
 * @module policy/explain
 * Explain is data (STYLE §7): a recorder collects the events `evaluate` emits, filters pick which to show,
 * and one renderer turns them into the text `toolgate policy check --explain` prints.
 */
import { displaySafe } from "../core/index.js";
import type { PolicyEvent, PolicyRecorder } from "./model.js";

/** The most lines, and characters per line, a decision's trace keeps (an audit record stays small). */
const TRACE_LINES = 40;
const TRACE_LINE_CHARS = 300;

/** A recorder that keeps every event in order. */
export interface EventLog extends PolicyRecorder {
  readonly events: PolicyEvent[];
}

/**
 * Creates a recorder to pass to `evaluate` or `PolicyEngine.decide`.
 * @example const log = createRecorder(); evaluate(policy, call, log); console.log(renderExplanation(log.events));
 */
export function createRecorder(): EventLog {
  const events: PolicyEvent[] = [];
  return {
    events,
    record(event) {
      events.push(event);
    },
  };
}

/** Which events to show: `full` all of them, `matches` only rules that matched and the outcome. */
export type ExplainFilter = "full" | "matches";

/** Keeps the events `filter` asks for. */
export function filterEvents(events: readonly PolicyEvent[], filter: ExplainFilter): PolicyEvent[] {
  if (filter === "full") return [...events];
  const matched = new Set(events.filter((e) => e.op === "match").map((e) => (e as { rule: string }).rule));
  return events.filter((e) => {
    if (e.op === "choose" || e.op === "default" || e.op === "layer" || e.op === "combine" || e.op === "guard")
      return true;
    return "rule" in e && matched.has(e.rule);
  });
}

function line(event: PolicyEvent): string {
  switch (event.op) {
    case "consider":
      return `rule ${event.rule} (${event.level === "tool" ? "tool-specific" : '"*"'})`;
    case "skip-kind":
      return `  | skipped: tool kind ${event.kind} is not one the rule names`;
    case "condition": {
      const outcome =
        typeof event.outcome === "boolean"
          ? event.outcome
            ? "holds"
            : "fails"
          : typeof event.outcome === "object"
            ? `ask (${event.outcome.ask})`
            : event.outcome;
      return `  | when.${event.arg}.${event.operator} on a ${event.argKind} argument: ${outcome}`;
    }
    case "context":
      return `  | when.context (${event.want}): ${event.held ? "holds" : "fails"}`;
    case "guard":
      return `labels: context ${event.context}; ${event.sink ? `sends out: ${event.sink}` : "does not send data out"} → ${event.outcome}`;
    case "match":
      return `  | matched: ${event.decision}`;
    case "no-match":
      return "  | did not match";
    case "choose":
      return `decision ${event.decision} by rule ${event.rule}: ${event.why}`;
    case "default":
      return `no rule matched: default decision ${event.decision}`;
    case "layer":
      return event.role === "base"
        ? `[${event.source}]`
        : `[${event.source}, untrusted: its deny and ask rules and its default, which can only tighten]`;
    case "combine":
      return `decision ${event.decision}: the strictest of the layers (from ${event.source})`;
  }
}

/**
 * Renders events as indented lines, one per event: each rule considered, under it its conditions (`| `),
 * then the decision.
 */
export function renderExplanation(events: readonly PolicyEvent[], filter: ExplainFilter = "full"): string {
  return filterEvents(events, filter).map(line).join("\n");
}

/**
 * A decision's trace as the audit log keeps it: the `matches` explanation (the rules that matched, their
 * conditions, the layers, the guard, the outcome), one display-safe line each, at most 40 lines of 300
 * characters. Events name rules, argument names, operators and outcomes, never an argument's value.
 * @example explainTrace(log.events) // ["rule policy.toml#2 (tool-specific)", "  | when.path.under …: holds", …]
 */
export function explainTrace(events: readonly PolicyEvent[]): string[] {
  const lines = filterEvents(events, "matches").map((e) => {
    const text = displaySafe(line(e), false);
    return text.length > TRACE_LINE_CHARS ? `${text.slice(0, TRACE_LINE_CHARS)}…` : text;
  });
  if (lines.length <= TRACE_LINES) return lines;
  return [...lines.slice(0, TRACE_LINES - 1), `… ${lines.length - TRACE_LINES + 1} more lines`];
}
