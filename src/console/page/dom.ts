/**
 * @module console/page/dom
 * The page's shapes of what the server sends, and its one way to make elements: with text (`textContent`),
 * never HTML.
 */

/** What "approve always" would add (console/views.ts `alwaysView`). */
export type AlwaysOffered =
  | { rule: string; file: string; matches: string; notMatches: string }
  | { refused: string };

/** One ask as the server sends it (console/views.ts `AskView`). */
export interface AskView {
  id: string;
  tool: string;
  agent: string | null;
  worker: string | null;
  process: string | null;
  project: string | null;
  state: string;
  createdAt: number;
  expiresAt: number;
  heading: string;
  fields: { label: string; text: string; multiline: boolean }[];
  sandbox: string;
  settled: string | null;
  always: AlwaysOffered | null;
  /** Why approving is not offered here (a field too long to show whole), or null. */
  unseen: string | null;
}

/** The reply to an answer (console/decisions.ts `DecisionReply`). */
export type DecisionReply =
  | { ok: true; asks: AskView[] }
  | { ok: false; message: string; decided?: string[] };

/** An element with text (never HTML) and an optional class. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  cls?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

/** A button of type "button" with its text as its accessible name. */
export function button(text: string, cls?: string): HTMLButtonElement {
  const node = el("button", text, cls);
  node.type = "button";
  return node;
}

/** Says `text` to screen readers through the page's polite live region. */
export function announce(text: string): void {
  const region = document.getElementById("announce");
  if (region) region.textContent = text;
}
