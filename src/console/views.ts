/**
 * @module console/views
 * What the page is sent, as plain data it renders as text: an ask as the terminal shows it (the heading,
 * the quoted fields of `confirmationFields` in their order, the sandbox line last), and the audit log's
 * records (read by console/audit-read.ts). Texts pass through `displaySafe` again here (a record in a shared folder was written by
 * another process) and a very long one is cut, saying how much was left out.
 */
import {
  type AlwaysOffered,
  type ApprovalRecord,
  type AuditRecord,
  confirmationFields,
  displaySafe,
  settledMessage,
} from "../core/index.js";

/** Longest text of one field the page is sent; the rest is counted, not sent. */
export const MAX_FIELD_CHARS = 20_000;

/** One ask as the page shows it. */
export interface AskView {
  id: string;
  tool: string;
  agent: string | null;
  /** Which process published it, in a fleet's store (`[fleet] worker`). */
  worker: string | null;
  /** The asking process (host, pid, start time) and its project, in a store many processes share. */
  process: string | null;
  project: string | null;
  state: ApprovalRecord["state"];
  createdAt: number;
  expiresAt: number;
  /** `TOOL needs your approval (risk: R)`, as the terminal heads it. */
  heading: string;
  fields: { label: string; text: string; multiline: boolean }[];
  /** The sandbox line, last. */
  sandbox: string;
  /** For a settled ask: who, when, and why, in the store's words. */
  settled: string | null;
  /** What "approve always" would add, or why it cannot; null when the asking process offers nothing. */
  always: AlwaysOffered | null;
  /**
   * Why the console does not offer approving this ask, or null: a field too long to send whole would be
   * approved unseen (its end is where a padded command puts its action; red team F4).
   */
  unseen: string | null;
}

function cut(text: string): string {
  if (text.length <= MAX_FIELD_CHARS) return text;
  return `${text.slice(0, MAX_FIELD_CHARS)}… (${text.length - MAX_FIELD_CHARS} more characters not shown)`;
}

const safe = (text: string, multiline = false) => cut(displaySafe(text, multiline));

/** Who decided and when: the name is whatever the settlement's writer said (a fleet peer, `--by`). */
function settledText(record: ApprovalRecord): string | null {
  const message = settledMessage(record);
  return message === undefined ? null : safe(message);
}

/**
 * Why approving `record` from the console is refused, or undefined: a field (or the heading or sandbox line)
 * longer than the page is sent. Deny stays possible; approving needs a terminal, which shows it whole.
 */
export function unseenRefusal(record: ApprovalRecord): string | undefined {
  const { details } = record;
  const texts = [
    ...confirmationFields(details).map((f) => ({ label: f.label, text: displaySafe(f.text, f.multiline) })),
    {
      label: "heading",
      text: displaySafe(`${details.toolName} needs your approval (risk: ${details.risk})`, false),
    },
    { label: "sandbox", text: displaySafe(`sandbox: ${details.sandbox ?? "none"}`, false) },
  ];
  const long = texts.find((t) => t.text.length > MAX_FIELD_CHARS);
  if (!long) return undefined;
  return `its ${long.label} is ${long.text.length.toLocaleString("en")} characters and the console shows at most ${MAX_FIELD_CHARS.toLocaleString("en")}, so its end would be approved unseen: deny it here, or approve it where it is shown whole (the asking terminal, or toolgate approvals show/approve ${record.id})`;
}

/**
 * The page's view of one ask.
 * @example askView(record).heading // "shell needs your approval (risk: high)"
 */
export function askView(record: ApprovalRecord): AskView {
  const { details } = record;
  return {
    id: record.id,
    tool: safe(record.tool),
    agent: record.agent === undefined ? null : safe(record.agent),
    worker: record.worker === undefined ? null : safe(record.worker),
    process: record.process === undefined ? null : safe(record.process),
    project: record.project === undefined ? null : safe(record.project),
    state: record.state,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    heading: safe(`${details.toolName} needs your approval (risk: ${details.risk})`),
    fields: confirmationFields(details).map((f) => ({
      label: f.label,
      text: safe(f.text, f.multiline),
      multiline: f.multiline,
    })),
    sandbox: safe(`sandbox: ${details.sandbox ?? "none"}`),
    // Who decided is whatever the settlement's writer said (a fleet peer, `approvals approve --by`).
    settled: settledText(record),
    always: alwaysView(record.always),
    unseen: unseenRefusal(record) ?? null,
  };
}

/**
 * The offer as the page shows it: every text display-safe (the rule keeps its lines). An offer that is not
 * well formed (another process wrote the folder) is a refusal: "always" is then not possible.
 */
export function alwaysView(always: unknown): AlwaysOffered | null {
  if (always === undefined) return null;
  const o = (typeof always === "object" && always !== null ? always : {}) as Record<string, unknown>;
  if (typeof o.refused === "string") return { refused: safe(o.refused) };
  const { rule, file, matches, notMatches } = o;
  if ([rule, file, matches, notMatches].some((t) => typeof t !== "string"))
    return { refused: "the asking process's offer of a rule is not readable" };
  return {
    rule: safe(rule as string, true),
    file: safe(file as string),
    matches: safe(matches as string),
    notMatches: safe(notMatches as string),
  };
}

/** The most lines of a record's explain trace the page is sent (the writer keeps at most 40). */
const MAX_TRACE_LINES = 100;

/** Every text in `value` display-safe and cut, at any depth (objects and lists keep their shape). */
function safeDeep(value: unknown): unknown {
  if (typeof value === "string") return safe(value);
  if (Array.isArray(value)) return value.map(safeDeep);
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, safeDeep(item)]));
  return value;
}

/**
 * An audit record with every text display-safe (the page shows them as text): not only the fields the page
 * shows today — the log may have been written by anyone since, and any field may be shown tomorrow.
 */
export function auditView(record: AuditRecord): AuditRecord {
  const view = safeDeep(record) as AuditRecord;
  if (Array.isArray(view.explain)) view.explain = view.explain.slice(0, MAX_TRACE_LINES).map(String);
  return view;
}
