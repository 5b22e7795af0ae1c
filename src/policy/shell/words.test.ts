import { describe, expect, it } from "vitest";
import { decodeAnsiC, hasUnescapedGlob, unescapeDoubleQuoted, unescapeUnquoted } from "./words.js";
import { unwrap } from "./wrappers.js";

describe("words", () => {
  it.each([
    ["plain", "plain"],
    ["a\\ b", "a b"],
    ["\\rm", "rm"],
    ["a\\\nb", "ab"],
    ["trailing\\", "trailing\\"],
  ])("unescapeUnquoted %j → %j", (text, want) => expect(unescapeUnquoted(text)).toBe(want));

  it.each([
    ['a\\"b', 'a"b'],
    ["a\\$b", "a$b"],
    ["a\\nb", "a\\nb"],
    ["a\\\\b", "a\\b"],
  ])("unescapeDoubleQuoted %j → %j", (text, want) => expect(unescapeDoubleQuoted(text)).toBe(want));

  it.each([
    ["$'\\x72m'", "rm"],
    ["$'\\162m'", "rm"],
    ["$'a\\nb\\tc'", "a\nb\tc"],
    ["$'\\u0072m'", "rm"],
    ["$'\\e[0m'", "\x1b[0m"],
    ["$'\\cA'", "\x01"],
    ["$'\\q'", "\\q"],
  ])("decodeAnsiC %j → %j", (text, want) => expect(decodeAnsiC(text)).toBe(want));

  it.each([
    ["*.ts", true],
    ["r?", true],
    ["[ab]", true],
    ["\\*", false],
    ["plain", false],
  ])("hasUnescapedGlob %j → %s", (text, want) => expect(hasUnescapedGlob(text)).toBe(want));
});

describe("unwrap", () => {
  it.each([
    [["ls", "-la"], []],
    [["sudo", "-u", "x", "VAR=1", "rm", "y"], [{ reason: "wrapper: sudo", inner: ["rm", "y"] }]],
    [["env", "-u", "A", "-S", "rm x"], [{ reason: "wrapper: env -S", script: "rm x" }]],
    [["nohup", "--", "rm"], [{ reason: "wrapper: nohup", inner: ["rm"] }]],
    [["xargs", "-0"], [{ reason: "wrapper: xargs", inner: ["echo"] }]],
    [["timeout", "--signal=KILL", "5s", "rm"], [{ reason: "wrapper: timeout", inner: ["rm"] }]],
    [["bash", "-o", "pipefail", "-ec", "rm x"], [{ reason: "wrapper: bash -c", script: "rm x" }]],
    [["busybox", "sh", "-c", "rm x"], [{ reason: "wrapper: busybox", inner: ["sh", "-c", "rm x"] }]],
    [["busybox", "rm", "-rf", "x"], [{ reason: "wrapper: busybox", inner: ["rm", "-rf", "x"] }]],
    [["script", "-qc", "rm x", "/dev/null"], [{ reason: "wrapper: script -c", script: "rm x" }]],
    [["script", "out.log"], [{ reason: "wrapper: script" }]],
    [["script", "-q", "-c", "rm x", "/dev/null"], [{ reason: "wrapper: script -c", script: "rm x" }]],
    [["setpriv", "--reuid", "1000", "rm", "x"], [{ reason: "wrapper: setpriv", inner: ["rm", "x"] }]],
    [["prlimit", "--nofile=10", "rm", "x"], [{ reason: "wrapper: prlimit", inner: ["rm", "x"] }]],
    [["chroot", "/", "rm", "x"], [{ reason: "wrapper: chroot", inner: ["rm", "x"] }]],
    [["unshare", "-r", "--wd", "/", "rm", "x"], [{ reason: "wrapper: unshare", inner: ["rm", "x"] }]],
    [["nsenter", "-t", "1", "-m", "rm", "x"], [{ reason: "wrapper: nsenter", inner: ["rm", "x"] }]],
    [
      ["parallel", "-j", "2", "rm", "{}", ":::", "a", "b"],
      [{ reason: "wrapper: parallel", script: "rm {}" }],
    ],
    [
      ["git", "-c", "alias.x=!rm -rf y", "x"],
      [{ reason: "wrapper: git -c", script: "rm -rf y" }, { inner: ["git", "x"] }],
    ],
    [
      ["git", "-c", "core.pager=rm y", "log"],
      [{ reason: "wrapper: git -c", script: "rm y" }, { inner: ["git", "log"] }],
    ],
    [
      ["git", "-c", "diff.foo.textconv=rm y", "log"],
      [{ reason: "wrapper: git -c", script: "rm y" }, { inner: ["git", "log"] }],
    ],
    [
      ["git", "-c", "user.name=x", "log"],
      [{ reason: "wrapper: git -c" }, { inner: ["git", "log"] }],
    ],
    [["env"], []],
    [["env", "A=1"], []],
    [["su", "-c", "rm x", "root"], [{ reason: "wrapper: su -c", script: "rm x" }]],
    [["flock", "/tmp/l", "-c", "rm x"], [{ reason: "wrapper: flock", script: "rm x" }]],
    [["watch", "-n", "1", "rm", "x"], [{ reason: "wrapper: watch", script: "rm x" }]],
    [["git", "rebase", "-x", "rm x", "main"], [{ reason: "wrapper: git rebase --exec", script: "rm x" }]],
    [["git", "bisect", "run", "rm", "x"], [{ reason: "wrapper: git bisect run", inner: ["rm", "x"] }]],
    [["python3", "script.py"], []],
    [["perl"], [{ reason: "wrapper: perl (stdin)" }]],
    [["source", "x"], [{ reason: "source" }]],
  ])("%j", (words, want) => expect(unwrap(words)).toEqual(want));
});
