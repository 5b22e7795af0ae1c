import { describe, expect, it } from "vitest";
import { parseAwkProgram } from "./awk.js";
import { parseSedScript } from "./sed.js";

const reasons = (found: { reason: string; runs?: string }[]) =>
  found.map((f) => (f.runs === undefined ? f.reason : `${f.reason} → ${f.runs}`));

describe("sed script reader", () => {
  it.each([
    ["s/a/b/g", []],
    ["s|/|x|", []],
    ["y/abc/xyz/", []],
    ["1,/end/{/x/!p}", []],
    [":a;N;$!ba;s/\\n/ /g", []],
    ["#n\np", []],
    ["1a text; e id", []],
    ["1i\\\nline one\\\nline two", []],
    ["w /dev/stdout", []],
    ["0~3 d", []],
    ["s|a|b|e", ["script runs the pattern space as a command (s///e)"]],
    ["s/a/b/gpw out", ["script writes a file (s///w out)"]],
    ["2e rm -rf x", ["script runs a command (e) → rm -rf x"]],
    ["p;e", ["script runs the pattern space as a command (e)"]],
    ["1{\n  W log\n}", ["script writes a file (W log)"]],
    ["b end; e id; :end", ["script runs a command (e) → id; :end"]],
    // GNU sed does not treat `[/]` as a bracket here; the odd flags that follow are refused, not guessed.
    ["s/[/]/x/e", ["script could not be read (unknown s flag 'x'): it is not vouched for"]],
    ["s/a/b", ["script could not be read (unterminated s command): it is not vouched for"]],
    ["p x", ["script could not be read (unexpected 'x'): it is not vouched for"]],
  ])("%j", (script, want) => {
    expect(reasons(parseSedScript(script))).toEqual(want);
  });
});

describe("awk program reader", () => {
  it.each([
    ['{print "a > b | c"}', []],
    ["/x|y/ {print}", []],
    ["$1 ~ /a>b/ {n++} END {print n}", []],
    ['{print $1 > "/dev/stderr"}', []],
    ['# system("x")\n{print}', []],
    ['{print "system"}', []],
    ["{ if ($1 > $2) print $1; else print $2 }", []],
    ["{ print ($1 > $2) }", []],
    [
      'BEGIN { while (("ls" | getline line) > 0) print line }',
      ["program runs a command (cmd | getline) → ls"],
    ],
    ["{print a, b > $3}", ["program writes a file (print >)"]],
    ['{printf "%s", $0 >> "log"}', ["program writes a file (print >> log)"]],
    ['BEGIN { cmd = "id"; system(cmd) }', ["program runs a command (system)"]],
    ['BEGIN { system ("rm x") }', ["program runs a command (system) → rm x"]],
    ['{ print | "sort -u" }', ["program pipes to a command (print | cmd) → sort -u"]],
    ['@include "x.awk"', ["program includes awk source the analysis does not read (@include)"]],
    ['@namespace "ns"\nBEGIN{}', []],
    ['{print "unterminated}', ["program could not be read (unterminated string): it is not vouched for"]],
  ])("%j", (program, want) => {
    expect(reasons(parseAwkProgram(program))).toEqual(want);
  });
});
