import { describe, expect, it } from "vitest";
import { seededRandom } from "../../utils/index.js";
import table from "./testdata/urls.json" with { type: "json" };
import { parsedUrl, quickUrl, readUrl } from "./url-read.js";

describe("the guard's URL reading: the scan gives what the parser gives, or leaves the text to it", () => {
  it.each(table.rows.map((row) => [row.why, row] as const))("%s", (_, row) => {
    const parser = parsedUrl(row.url);
    const quick = quickUrl(row.url);
    if (quick !== undefined) expect(quick).toEqual(parser);
    expect(quick !== undefined, `read by the scan: ${JSON.stringify(row.url)}`).toBe(row.quick);
    expect(readUrl(row.url)).toEqual(parser ?? undefined);
  });

  it("agrees with the parser on 20,000 generated texts made of the tricky parts", () => {
    // Seeded: the same texts every run. The tricky parts are the shapes the table names.
    const parts = [
      "https://",
      "http://",
      "HTTPS://",
      "hTtP://",
      "https:",
      "https:/",
      "//",
      "a",
      "Z",
      "x",
      "0",
      "9",
      "1",
      ".",
      "..",
      "-",
      "--",
      "xn--",
      "Xn--",
      "0x",
      "_",
      "~",
      "/",
      "/.",
      "/..",
      "./",
      "?",
      "#",
      "%",
      "%2e",
      "%2E",
      "%41",
      "@",
      ":",
      ":443",
      ":80",
      ":0",
      "\\",
      "\t",
      "\n",
      "\r",
      " ",
      "\u0000",
      "é",
      "ü",
      "\u3002",
      "\uff41",
      "\u00ad",
      "[",
      "]",
      "[::1]",
      "'",
      '"',
      "<",
      ">",
      "`",
      "{",
      "}",
      "^",
      "|",
      "!",
      "$",
      "&",
      "(",
      ")",
      "*",
      "+",
      ",",
      ";",
      "=",
      "example",
      "com",
      "127",
      "1.2.3.4",
    ];
    const hostParts = ["a", "Z", "x", "example", "com", "0", "9", "1a", "-", "a-b", "xn--", "0x", "127"];
    const tailParts = [
      "/",
      "a",
      "Z",
      "9",
      "?",
      "#",
      "=",
      "&",
      "%41",
      "@",
      ":",
      "~",
      "_",
      ".",
      "x.y",
      "!",
      "$",
    ];
    const random = seededRandom(31);
    const pick = (from: readonly string[]) => from[Math.floor(random() * from.length)]!;
    const some = (from: readonly string[], most: number) =>
      Array.from({ length: Math.floor(random() * most) }, () => pick(from));
    let read = 0;
    for (let n = 0; n < 20_000; n++) {
      // A URL of the common shape (scheme, labels, a tail), then, one time in two, one tricky part put in
      // at a random place: near misses of the shape are what the scan must leave to the parser.
      const scheme = pick(["https://", "http://", "HTTPS://", "hTtP://"]);
      const labels = Array.from(
        { length: 1 + Math.floor(random() * 3) },
        () => some(hostParts, 3).join("") || "a",
      );
      let text = `${scheme}${labels.join(".")}${some(tailParts, 8).join("")}`;
      if (random() < 0.5) {
        const at = Math.floor(random() * (text.length + 1));
        text = text.slice(0, at) + pick(parts) + text.slice(at);
      }
      const quick = quickUrl(text);
      if (quick === undefined) continue;
      read++;
      expect(quick, JSON.stringify(text)).toEqual(parsedUrl(text));
    }
    // The check above is only worth something if the scan took a fair share of the texts itself.
    expect(read).toBeGreaterThan(2000);
  });

  it("keeps text that is no URL, or no string, unread", () => {
    expect(readUrl("not a url")).toBeUndefined();
    expect(readUrl(42)).toBeUndefined();
    expect(readUrl("https://")).toBeUndefined();
  });

  it("reads a URL longer than the cache keeps, through the parser", () => {
    const long = `https://a.example/${"x".repeat(3000)} y`;
    expect(readUrl(long)).toEqual({
      host: "a.example",
      href: `https://a.example/${"x".repeat(3000)}%20y`,
      parents: [],
    });
  });

  it("lists the parent domains a trusted host could be, never a bare top-level name or an address", () => {
    expect(readUrl("https://a.b.Example.com./x")?.parents).toEqual(["b.example.com", "example.com"]);
    expect(readUrl("https://attacker.example/")?.parents).toEqual([]);
    expect(readUrl("http://127.0.0.1/")?.parents).toEqual([]);
  });
});
