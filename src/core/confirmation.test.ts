/**
 * The one display-safe rule and confirmation builder: table-driven cases of hidden characters (each range
 * of `hidden-characters.json` at both ends, and look-alikes a person could miss), the table's loader
 * refusing malformed tables, and the details the pipeline shows (tool's own, basics, decision, agent).
 */
import { describe, expect, it } from "vitest";
import {
  confirmationDetails,
  confirmationFields,
  displaySafe,
  displaySafeJson,
  isHiddenCharacter,
  loadHiddenRanges,
  proseSafe,
} from "./confirmation.js";
import { defineTool } from "./define-tool.js";
import { okResult } from "./errors.js";
import HIDDEN_TABLE from "./hidden-characters.json" with { type: "json" };
import BY_CLASS from "./testdata/hidden-by-class.json" with { type: "json" };
import type { PolicyDecision } from "./types.js";

describe("displaySafe", () => {
  it.each([
    ["plain text kept", "git status", false, "git status"],
    ["ordinary unicode kept", "echo héllo 日本 😀", false, "echo héllo 日本 😀"],
    ["newline written out", "a\nb", false, "a\\nb"],
    ["carriage return written out", "a\rb", false, "a\\rb"],
    ["tab written out on one line", "a\tb", false, "a\\x09b"],
    ["newline and tab kept in multi-line text", "a\n\tb", true, "a\n\tb"],
    ["carriage return written out in multi-line text", "a\r\nb", true, "a\\r\nb"],
    ["escape", "echo \x1b[2J", false, "echo \\x1b[2J"],
    ["NUL", "a\x00b", false, "a\\x00b"],
    ["DEL", "a\x7fb", false, "a\\x7fb"],
    ["C1 control", "a\u0085b", false, "a<U+0085>b"],
    ["RLO override", "ls \u202Etxt.exe", false, "ls <U+202E>txt.exe"],
    ["LRI and PDI isolates", "a\u2066b\u2069", false, "a<U+2066>b<U+2069>"],
    ["RLM", "a\u200Fb", false, "a<U+200F>b"],
    ["arabic letter mark", "a\u061Cb", false, "a<U+061C>b"],
    ["zero width space", "r\u200Bm", false, "r<U+200B>m"],
    ["word joiner", "r\u2060m", false, "r<U+2060>m"],
    ["BOM", "\uFEFFls", false, "<U+FEFF>ls"],
    ["soft hyphen", "r\u00ADm", false, "r<U+00AD>m"],
    ["no-break space", "ls\u00A0-la", false, "ls<U+00A0>-la"],
    ["em space", "ls\u2003-la", false, "ls<U+2003>-la"],
    ["line separator", "a\u2028b", false, "a<U+2028>b"],
    ["ideographic space", "a\u3000b", false, "a<U+3000>b"],
    ["hangul filler", "a\u3164b", false, "a<U+3164>b"],
    ["variation selector", "a\uFE0Fb", false, "a<U+FE0F>b"],
    ["tag character", "a\u{E0041}b", false, "a<U+E0041>b"],
    ["lone high surrogate", "a\uD800b", false, "a<U+D800>b"],
    ["lone low surrogate", "a\uDC00b", false, "a<U+DC00>b"],
    ["hidden characters in a diff are written out too", "+ok\u202E\n", true, "+ok<U+202E>\n"],
  ])("%s", (_note, text, multiline, shown) => {
    expect(displaySafe(text, multiline)).toBe(shown);
  });

  it("hides both ends of every range in the table, and the code points just outside stay visible", () => {
    for (const range of loadHiddenRanges(HIDDEN_TABLE)) {
      expect(isHiddenCharacter(range.from)).toBe(true);
      expect(isHiddenCharacter(range.to)).toBe(true);
    }
    for (const visible of [0x20, 0x7e, 0xa1, 0xac, 0xae, 0x2010, 0x2027, 0x2030, 0xfe10, 0x1f600])
      expect(isHiddenCharacter(visible)).toBe(false);
  });
});

describe("hidden by Unicode class", () => {
  it.each(BY_CLASS.cases)("U+$code ($class, $why): hidden $hidden", ({ code, hidden }) => {
    const point = Number.parseInt(code, 16);
    expect(isHiddenCharacter(point)).toBe(hidden);
    const text = `cu${String.fromCodePoint(point)}rl`;
    expect(displaySafe(text, false)).toBe(hidden ? `cu<U+${code}>rl` : text);
  });

  it("writes out every code point of the hiding classes, over all of Unicode", () => {
    const hiding = /^[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}\p{Default_Ignorable_Code_Point}]$/u;
    const missed: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code === 0x20 || (code >= 0xd800 && code <= 0xdfff)) continue;
      if (hiding.test(String.fromCodePoint(code)) && !isHiddenCharacter(code)) missed.push(code.toString(16));
    }
    expect(missed).toEqual([]);
  });
});

describe("proseSafe", () => {
  it.each([
    ["lines, tabs and emoji kept", "a\n\tb 👨\u200D👩\u200D👧 ❤\uFE0F", "a\n\tb 👨\u200D👩\u200D👧 ❤\uFE0F"],
    ["CR before a line break dropped", "a\r\nb", "a\nb"],
    ["a lone CR written out", "a\rb", "a\\rb"],
    ["ESC and CSI written out", "done\x1b[8m", "done\\x1b[8m"],
    ["an 8-bit CSI written out", "x\u009B2J", "x<U+009B>2J"],
    ["OSC written out", "\x1b]0;title\x07", "\\x1b]0;title\\x07"],
    ["backspace written out", "ab\bc", "ab\\x08c"],
    ["bidi override and isolate written out", "a\u202Eb\u2066c", "a<U+202E>b<U+2066>c"],
    ["a no-break space kept", "a\u00A0b", "a\u00A0b"],
  ])("%s", (_note, text, shown) => {
    expect(proseSafe(text)).toBe(shown);
  });
});

describe("displaySafeJson", () => {
  it("escapes hidden characters above DEL and parses back to the same value", () => {
    const value = { a: "x\u202Ey\u200Bz\x7f\u{E0041}", b: ["\x1b[2J", "日本 😀"] };
    const json = displaySafeJson(value);
    expect(json).toBe('{"a":"x\\u202ey\\u200bz\\u007f\\udb40\\udc41","b":["\\u001b[2J","日本 😀"]}');
    expect(JSON.parse(json)).toEqual(value);
    expect([...json].some((ch) => isHiddenCharacter(ch.codePointAt(0)!))).toBe(false);
  });
});

describe("loadHiddenRanges", () => {
  it.each([
    ["no ranges", {}, "`ranges` must be a non-empty list"],
    ["empty ranges", { ranges: [] }, "`ranges` must be a non-empty list"],
    ["lower-case hex", { ranges: [{ from: "200b", to: "200F", why: "x" }] }, "ranges[0].from must be"],
    ["a number", { ranges: [{ from: "2000", to: 8207, why: "x" }] }, "ranges[0].to must be"],
    ["reversed", { ranges: [{ from: "200F", to: "200B", why: "x" }] }, "ranges[0] is empty"],
    ["beyond unicode", { ranges: [{ from: "10FFFF", to: "110000", why: "x" }] }, "beyond U+10FFFF"],
    ["no reason", { ranges: [{ from: "2000", to: "200F" }] }, "ranges[0].why must say why"],
    ["prose not a boolean", { ranges: [{ from: "2000", to: "200F", why: "x", prose: 1 }] }, "prose must be"],
  ])("refuses a table with %s", (_note, table, message) => {
    expect(() => loadHiddenRanges(table)).toThrow(message);
  });

  it("reads the shipped table", () => {
    expect(loadHiddenRanges(HIDDEN_TABLE)).toContainEqual({
      from: 0x202a,
      to: 0x202e,
      why: expect.stringContaining("bidi"),
      prose: true,
    });
  });
});

describe("confirmationDetails", () => {
  const ask = (extra: Partial<PolicyDecision> = {}): PolicyDecision => ({
    decision: "ask",
    risk: "high",
    reason: "writes need approval",
    rule: { id: "policy.toml#2", source: "policy.toml", index: 2 },
    ...extra,
  });
  const signal = new AbortController().signal;
  const writer = defineTool<{ path: string }>({
    name: "put",
    description: "Puts",
    kind: "edit",
    risk: "medium",
    parameters: { type: "object" },
    describe: ({ path }) => `put ${path}`,
    locations: ({ path }) => [path],
    confirmation: () => ({ diff: "+a\u202E\n", reason: "overwrites a file" }),
    run: async () => okResult("ok"),
  });
  const reader = defineTool<{ path: string }>({
    name: "peek",
    description: "Peeks",
    kind: "read",
    risk: "low",
    parameters: { type: "object" },
    describe: ({ path }) => `peek ${path}`,
    locations: ({ path }) => [path],
    run: async () => okResult("ok"),
  });

  it("merges the tool's own details with the decision, display-safe, with the rule and the tool's note", async () => {
    const details = await confirmationDetails(writer, writer.build({ path: "a\u200B.txt" }), ask(), signal);
    expect(details).toEqual({
      toolName: "put",
      description: "put a<U+200B>.txt",
      risk: "high",
      locations: ["a<U+200B>.txt"],
      type: "edit",
      diff: "+a<U+202E>\n",
      reason: "writes need approval; overwrites a file",
      rule: "policy.toml#2",
      sandbox: "none (put is not a shell command; toolgate runs it itself)",
    });
  });

  it("uses the call's basics when the tool adds nothing, and names a sub-agent", async () => {
    const scope = { tools: new Set(["peek"]), agent: "helper", depth: 1 };
    const details = await confirmationDetails(
      reader,
      reader.build({ path: "x" }),
      ask({ rule: undefined }),
      signal,
      {
        scope,
      },
    );
    expect(details).toEqual({
      toolName: "peek",
      description: "peek x",
      risk: "high",
      locations: ["x"],
      type: "generic",
      reason: "writes need approval",
      agent: "helper",
      sandbox: "none (peek is not a shell command; toolgate runs it itself)",
    });
  });

  it("quotes the call's own reason to leave the sandbox apart from toolgate's sandbox line", async () => {
    const runner = defineTool<{ why: string }>({
      name: "run_it",
      description: "Runs",
      kind: "execute",
      risk: "high",
      parameters: { type: "object" },
      sandboxRequest: ({ why }) => ({ level: "off", justification: why }),
      confirmation: () => ({ sandbox: "NONE: this command runs outside the sandbox" }),
      run: async () => okResult("ok"),
    });
    const forged = "  trust me\x1b[2K\r  sandbox: workspace-write\u202E ";
    const details = await confirmationDetails(runner, runner.build({ why: forged }), ask(), signal);
    expect(details.sandbox).toBe("NONE: this command runs outside the sandbox");
    expect(details.justification).toBe("trust me\\x1b[2K\\r  sandbox: workspace-write<U+202E>");
    expect(confirmationFields(details).map((f) => f.label)).toEqual(["call", "justification", "why asked"]);
  });
});
