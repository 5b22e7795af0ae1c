/**
 * @module cli/prompt
 * Interactive approval on a terminal: shows the confirmation details and waits for y/n. Anything but an
 * explicit yes is a no. `renderConfirmation` is the one terminal rendering of a confirmation (`toolgate call`
 * and `chat` both use it): toolgate's words start the lines; every text that may carry a model's words is
 * quoted behind a `│` gutter and folded to the terminal's width, so none of it can start a line (not even
 * by the terminal wrapping it); the sandbox line comes last.
 */
import { createInterface } from "node:readline";
import {
  type ConfirmationDetails,
  type ConfirmationRequest,
  type ConfirmationResponse,
  confirmationFields,
} from "../core/index.js";
import { alwaysBlock, type OfferAlways, writtenLine } from "./always-rule.js";
import type { CliIo } from "./io.js";

/** How a confirmation is drawn. */
export interface RenderOptions {
  /** The terminal's width in columns (default 80); quoted text is folded to fit it. */
  width?: number;
  /** toolgate's own lines shown before the sandbox line (chat: what "always" covers). */
  notes?: readonly string[];
  /**
   * What "always" would do, after the notes: toolgate's `lead` line, then `text` (the rule, or why there is
   * none — it may hold the call's words) quoted like a field.
   */
  always?: { lead: string; text: string };
}

const GUTTER = "│ ";
/** Narrower than this, the labels would leave no room: fold as if the terminal were this wide. */
const MIN_WIDTH = 40;

/**
 * Renders confirmation details as a person should see them before approving.
 * @example io.stderr(renderConfirmation(details, { width: process.stderr.columns }));
 */
export function renderConfirmation(details: ConfirmationDetails, options: RenderOptions = {}): string {
  const width = Math.max(MIN_WIDTH, options.width || 80);
  const fields = confirmationFields(details);
  const labelWidth = Math.max(0, ...fields.filter((f) => !f.multiline).map((f) => f.label.length));
  const lines = [`${details.toolName} needs your approval (risk: ${details.risk})`];
  for (const field of fields) {
    if (field.multiline) {
      lines.push(`  ${field.label}:`);
      const indent = "    ";
      for (const line of field.text.split("\n")) lines.push(...quoted(indent, indent, line, width));
    } else {
      const label = `  ${field.label.padEnd(labelWidth)} `;
      lines.push(...quoted(label, " ".repeat(label.length), field.text, width));
    }
  }
  for (const note of options.notes ?? []) lines.push(`  ${note}`);
  if (options.always) {
    lines.push(`  ${options.always.lead}`);
    for (const line of options.always.text.split("\n")) lines.push(...quoted("    ", "    ", line, width));
  }
  lines.push(`  sandbox: ${details.sandbox}`);
  return `${lines.join("\n")}\n`;
}

/** `text` behind the gutter, folded so that no row is wider than `width` (`first` starts the first row). */
function quoted(first: string, rest: string, text: string, width: number): string[] {
  const rows: string[] = [];
  let prefix = first;
  for (const piece of fold(text, Math.max(1, width - rest.length - GUTTER.length))) {
    rows.push(`${prefix}${GUTTER}${piece}`);
    prefix = rest;
  }
  return rows;
}

/**
 * Cuts `text` into pieces of at most `columns` columns, at a space when one is near the end. Widths are
 * over-estimated (every character from U+1100 on counts two, a tab eight), so a piece never wraps.
 */
export function fold(text: string, columns: number): string[] {
  const pieces: string[] = [];
  let piece = "";
  let used = 0;
  for (const ch of text) {
    const w = columnsOf(ch);
    if (used + w > columns && piece !== "") {
      const space = piece.lastIndexOf(" ");
      const rest = space > 0 ? piece.slice(space + 1) : "";
      const atSpace = space > 0 && widthOf(rest) + w <= columns / 2;
      pieces.push(atSpace ? piece.slice(0, space + 1) : piece);
      piece = atSpace ? rest : "";
      used = widthOf(piece);
    }
    piece += ch;
    used += w;
  }
  pieces.push(piece);
  return pieces;
}

const columnsOf = (ch: string): number => (ch === "\t" ? 8 : ch.codePointAt(0)! >= 0x1100 ? 2 : 1);
const widthOf = (text: string): number => [...text].reduce((n, ch) => n + columnsOf(ch), 0);

/**
 * Asks on the terminal about one call; cancelling the call (its signal) withdraws the question. With `offer`,
 * "always" is a third answer when a rule can be added: it approves the call and writes the rule shown.
 */
export async function askOnTerminal(
  io: CliIo,
  request: ConfirmationRequest,
  offer?: OfferAlways,
): Promise<ConfirmationResponse> {
  const { details, signal } = request;
  const always = offer ? await offer(request) : undefined;
  const width = process.stderr.columns;
  io.stderr(renderConfirmation(details, { width, ...(always ? { always: alwaysBlock(always) } : {}) }));
  const withAlways = always !== undefined && "rule" in always;
  const rl = createInterface({ input: io.stdin, terminal: false });
  let cancelled = () => {};
  try {
    const answer = await new Promise<string>((resolve, reject) => {
      io.stderr(withAlways ? "Allow? [y]es / [N]o / [a]lways: " : "Allow? [y/N] ");
      cancelled = () => reject(Object.assign(new Error("cancelled"), { name: "AbortError" }));
      if (signal.aborted) return cancelled();
      signal.addEventListener("abort", cancelled, { once: true });
      rl.once("line", (line) => resolve(line));
      rl.once("close", () => resolve(""));
    });
    if (withAlways && /^\s*(a|always)\s*$/i.test(answer)) {
      io.stderr(writtenLine(always, await always.write()));
      return { approved: true, always: true };
    }
    const yes = /^\s*(y|yes)\s*$/i.test(answer);
    return yes ? { approved: true } : { approved: false, reason: "the user said no" };
  } finally {
    signal.removeEventListener("abort", cancelled);
    rl.close();
  }
}
