/**
 * What the page is sent, field by field: for every hostile text (testdata/hostile-content.json) and every
 * character hidden by its Unicode class (core/testdata/hidden-by-class.json), an ask's fields and every text
 * of an audit record — not only the ones the page shows today — reach the page written out, as the terminal
 * shows them. Records come raw, as another process could have written them.
 */
import { describe, expect, it } from "vitest";
import type { AuditRecord } from "../core/index.js";
import BY_CLASS from "../core/testdata/hidden-by-class.json" with { type: "json" };
import { ask, DETAILS } from "../test-support/console.js";
import hostile from "./testdata/hostile-content.json" with { type: "json" };
import { askView, auditView } from "./views.js";

const rows = [
  ...hostile.cases.map((c) => ({ note: c.note, text: c.text, written: c.written ?? c.text })),
  ...BY_CLASS.cases
    .filter((c) => c.hidden)
    .map((c) => ({
      note: `U+${c.code} (${c.class})`,
      text: `cu${String.fromCodePoint(Number.parseInt(c.code, 16))}rl`,
      written: `cu<U+${c.code}>rl`,
    })),
];

/** Every string in `value`, with the path it sits at. */
function strings(value: unknown, path = ""): [string, string][] {
  if (typeof value === "string") return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((item, i) => strings(item, `${path}[${i}]`));
  if (typeof value === "object" && value !== null)
    return Object.entries(value).flatMap(([key, item]) => strings(item, `${path}.${key}`));
  return [];
}

describe("the page's views of hostile text", () => {
  it.each(rows)("$note: every audit field written out", ({ text, written }) => {
    const record = {
      time: text,
      tool: text,
      callId: text,
      agent: text,
      argsDigest: text,
      decision: text,
      rule: text,
      risk: text,
      outcome: text,
      durationMs: 1,
      sandbox: text,
      hooks: [{ hook: text, event: text, decision: text, failure: text }],
      label: { integrity: text, confidentiality: text, sources: [text] },
      flow: {
        effect: text,
        context: { integrity: text, confidentiality: text, sources: [text] },
        sink: text,
      },
      explain: [text, text],
    } as unknown as AuditRecord;
    const shown = strings(auditView(record));
    expect(shown.length).toBe(strings(record).length);
    for (const [path, value] of shown) expect(`${path}: ${value}`).toBe(`${path}: ${written}`);
  });

  it.each(rows)("$note: every field of an ask written out", ({ text, written }) => {
    const details = { ...DETAILS, command: text, description: text, reason: text, rule: text, agent: text };
    const view = askView({
      ...ask({ details }),
      id: "a",
      state: "pending",
      createdAt: 0,
      expiresAt: 1,
    } as Parameters<typeof askView>[0]);
    for (const field of view.fields.filter((f) => f.label !== "affects" && f.label !== "why asked"))
      expect(`${field.label}: ${field.text}`).toBe(`${field.label}: ${written}`);
    expect(view.fields.find((f) => f.label === "why asked")?.text).toContain(written);
  });

  it.each(rows)("$note: who decided, and the agent, written out (red team C1)", ({ text, written }) => {
    const view = askView({
      ...ask({ details: DETAILS }),
      agent: text,
      id: "a",
      state: "approved",
      createdAt: 0,
      expiresAt: 1,
      settled: { by: text, at: 0 },
    } as Parameters<typeof askView>[0]);
    expect(view.agent).toBe(written);
    expect(view.settled).toBe(`approval a was already approved by ${written} at 1970-01-01T00:00:00.000Z`);
  });
});
