/**
 * The Confluence search text (seed 003-D4, issue 30): a table of phrasings (testdata/confluence-queries.json)
 * through the default profile's `confluence_fetch` rule — the page id, else the question without what only
 * points at Confluence, else no call with the reason.
 */
import { describe, expect, it } from "vitest";
import { buildCall } from "./build-call.js";
import { confluenceSearchText } from "./confluence-query.js";
import { DEFAULT_PROFILE } from "./profile.js";
import TABLE from "./testdata/confluence-queries.json" with { type: "json" };

const rule = DEFAULT_PROFILE.tools.confluence_fetch;

describe("confluence_fetch's arguments from the question", () => {
  it("has a table of at least 30 phrasings, with ones that leave nothing to search for", () => {
    expect(TABLE.cases.length).toBeGreaterThanOrEqual(30);
    expect(TABLE.cases.filter((c) => c.args === null).length).toBeGreaterThanOrEqual(5);
    expect(TABLE.cases.some((c) => /\p{Script=Han}/u.test(c.query))).toBe(true);
  });

  it.each(TABLE.cases)("$query → $args", ({ query, args }) => {
    const outcome = buildCall("confluence_fetch", rule, { query });
    if (args === null) {
      expect(outcome).toEqual({
        name: "confluence_fetch",
        reason:
          'skipped: no value for argument "query" (nothing to search for once the words pointing at Confluence are removed)',
      });
    } else expect(outcome).toEqual({ name: "confluence_fetch", args });
  });

  it("never leaves a search text without a letter or digit, nor the word confluence or wiki", () => {
    for (const { query } of TABLE.cases) {
      const text = confluenceSearchText(query);
      if (text === undefined) continue;
      expect(text, query).toMatch(/[\p{L}\p{N}]/u);
      expect(text, query).not.toMatch(/\b(?:confluence|wiki)\b/i);
      expect(text, query).toBe(text.trim());
    }
  });
});
