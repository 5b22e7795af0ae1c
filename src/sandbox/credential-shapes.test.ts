/**
 * The shapes of credentials inside git config keys and values (credential-shapes.json), the second line of the
 * filtered git config copies: a table of texts (testdata/credential-shapes.json) matched as values and as keys,
 * and every rule proven to matter — each has a row that it alone matches.
 */
import { describe, expect, it } from "vitest";
import { credentialShaped } from "./credential-shapes.js";
import data from "./credential-shapes.json" with { type: "json" };
import table from "./testdata/credential-shapes.json" with { type: "json" };

interface Row {
  text: string;
  credential: boolean;
  key?: boolean;
  shape?: string;
  /** Other rules that catch the row too (then the row does not prove its rule matters). */
  alsoCaughtBy?: string[];
}
const rows = table.cases as Row[];

describe("credentialShaped", () => {
  it.each(rows.map((row) => [`${row.key ? "key" : "value"} ${row.text}`, row] as const))(
    "%s",
    (_name, row) => {
      expect(credentialShaped(row.text, row.key === true)).toBe(row.credential);
    },
  );

  it("a key is never matched by a values-only rule, a value by every rule", () => {
    const hex = "0123456789abcdef0123456789abcdef";
    expect(credentialShaped(hex)).toBe(true);
    expect(credentialShaped(hex, true)).toBe(false);
  });
});

describe("every rule matters", () => {
  it.each(data.shapes.map((shape) => [shape.why, shape] as const))("%s", (why, shape) => {
    const own = rows.filter((row) => row.shape === why && row.credential);
    expect(own.length, `no row for "${why}"`).toBeGreaterThan(0);
    const pattern = new RegExp(shape.pattern, shape.caseSensitive ? "" : "i");
    for (const row of own) {
      expect(pattern.test(row.text)).toBe(true);
      // The other rules alone would not catch it: without this one the row would pass as harmless.
      const others = data.shapes.filter((s) => s !== shape && (!row.key || !s.valuesOnly));
      const caught = others.filter((s) => new RegExp(s.pattern, s.caseSensitive ? "" : "i").test(row.text));
      expect(caught.map((s) => s.why)).toEqual(row.alsoCaughtBy ?? []);
    }
  });
});
