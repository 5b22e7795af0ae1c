import { describe, expect, it } from "vitest";
import { displayCommand } from "./display.js";

describe("displayCommand", () => {
  it.each([
    ["plain", "git status", "git status"],
    ["space runs collapse", "ls    -la\t\t src", "ls -la src"],
    ["ends trimmed", "  ls  ", "ls"],
    ["newline visible", "git status\nrm -rf x", "git status\\nrm -rf x"],
    ["carriage return visible", "git status\rrm -rf x", "git status\\rrm -rf x"],
    ["escape visible", "echo \x1b[2J", "echo \\x1b[2J"],
    ["NUL visible", "a\x00b", "a\\x00b"],
    ["DEL visible", "a\x7fb", "a\\x7fb"],
    ["bell visible", "a\x07b", "a\\x07b"],
    ["RLO override", "ls \u202Etxt.exe", "ls <U+202E>txt.exe"],
    ["LRI and PDI isolates", "a\u2066b\u2069", "a<U+2066>b<U+2069>"],
    ["RLM", "a\u200Fb", "a<U+200F>b"],
    ["arabic letter mark", "a\u061Cb", "a<U+061C>b"],
    ["zero width space", "r\u200Bm", "r<U+200B>m"],
    ["zero width joiner", "r\u200Dm", "r<U+200D>m"],
    ["word joiner", "r\u2060m", "r<U+2060>m"],
    ["BOM", "\uFEFFls", "<U+FEFF>ls"],
    ["soft hyphen", "r\u00ADm", "r<U+00AD>m"],
    ["no-break space", "ls\u00A0-la", "ls<U+00A0>-la"],
    ["em space", "ls\u2003-la", "ls<U+2003>-la"],
    ["line separator", "a\u2028b", "a<U+2028>b"],
    ["ideographic space", "a\u3000b", "a<U+3000>b"],
    ["C1 control", "a\u0085b", "a<U+0085>b"],
    ["hangul filler", "a\u3164b", "a<U+3164>b"],
    ["variation selector", "a\uFE0Fb", "a<U+FE0F>b"],
    ["tag character", "a\u{E0041}b", "a<U+E0041>b"],
    ["lone surrogate", "a\uD800b", "a<U+D800>b"],
    ["ordinary unicode kept", "echo héllo 日本 😀", "echo héllo 日本 😀"],
  ])("%s", (_note, command, shown) => {
    expect(displayCommand(command)).toBe(shown);
  });
});
