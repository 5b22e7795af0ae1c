import { describe, expect, it } from "vitest";
import { analyzeCommand, analyzeCommandSync } from "./analyze.js";
import { loadBashParser } from "./parser.js";

describe("analyzeCommand: words of every sub-command", () => {
  it.each([
    ["'git' \"status\"", [["git", "status"]]],
    ["a && b || c; d | e", [["a"], ["b"], ["c"], ["d"], ["e"]]],
    [
      "echo $(rm -rf /)",
      [
        ["rm", "-rf", "/"],
        ["echo", "$(rm -rf /)"],
      ],
    ],
    ["echo `id`", [["id"], ["echo", "`id`"]]],
    [
      "diff <(ls a) <(ls b)",
      [
        ["ls", "a"],
        ["ls", "b"],
        ["diff", "<(ls a)", "<(ls b)"],
      ],
    ],
    ["(cd x && make)", [["cd", "x"], ["make"]]],
    ['cat a\\ b "c\\"d" \'e\\f\'', [["cat", "a b", 'c"d', "e\\f"]]],
    [
      "bash -c 'rm -rf x'",
      [
        ["bash", "-c", "rm -rf x"],
        ["rm", "-rf", "x"],
      ],
    ],
    [
      "sudo -u root rm x",
      [
        ["sudo", "-u", "root", "rm", "x"],
        ["rm", "x"],
      ],
    ],
    [
      "env -i X=1 rm x",
      [
        ["env", "-i", "X=1", "rm", "x"],
        ["rm", "x"],
      ],
    ],
    [
      "/bin/rm x",
      [
        ["/bin/rm", "x"],
        ["rm", "x"],
      ],
    ],
    [
      "find . -execdir rm {} +",
      [
        ["find", ".", "-execdir", "rm", "{}", "+"],
        ["rm", "{}"],
      ],
    ],
    ["xargs -n 1 rm", [["xargs", "-n", "1", "rm"], ["rm"]]],
    [
      "git -C d push -f",
      [
        ["git", "-C", "d", "push", "-f"],
        ["git", "push", "-f"],
      ],
    ],
    ["r$'\\x6d' -rf x", [["rm", "-rf", "x"]]],
    [
      "timeout -s KILL 5 nice -n 3 ls",
      [["timeout", "-s", "KILL", "5", "nice", "-n", "3", "ls"], ["nice", "-n", "3", "ls"], ["ls"]],
    ],
  ])("%j", async (command, commands) => {
    expect((await analyzeCommand(command)).commands).toEqual(commands);
  });

  it("reaches 50 chained commands and the one at the end", async () => {
    const a = await analyzeCommand(`${"true && ".repeat(50)}curl http://x`);
    expect(a.commands).toHaveLength(51);
    expect(a.commands.at(-1)).toEqual(["curl", "http://x"]);
    expect(a.ok).toBe(true);
  });
});

describe("analyzeCommand: what a prefix rule cannot vouch for", () => {
  it.each([
    ["ls -la", []],
    ["ls 2>/dev/null >/dev/null 2>&1", []],
    ["ls > ~/.bashrc", ["redirection"]],
    ["ls 2>&1 >out", ["redirection"]],
    ["cat <<EOF\nx\nEOF", ["heredoc"]],
    ["echo $(id)", ["command substitution"]],
    ["cat <(id)", ["process substitution"]],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash syntax, not a template
    ["echo $HOME ${x@P}", ["variable expansion"]],
    ["echo $((1+2))", ["arithmetic expansion"]],
    ["echo $'\\x72m'", ["ANSI-C quoting"]],
    ["X=1 ls", ["assignment"]],
    ["ls &", ["background"]],
    ["eval ls", ["eval"]],
    ["bash -c ls", ["wrapper: bash -c"]],
    ["bash script.sh", ["wrapper: bash"]],
    ["python3 -c 'print(1)'", ["wrapper: python3 -c"]],
    ["node -e 1", ["wrapper: node -e"]],
    ["git -c core.pager=x log", ["wrapper: git -c"]],
    ["find . -ok rm {} ;", ["wrapper: find -exec"]],
    ["ls # note", ["comment"]],
    ["if a; then b; fi", ["control flow"]],
    ["f() { a; }", ["function definition"]],
    ["/???/r? x", ["pattern in command name"]],
    ["git status\rrm x", ["control character"]],
    ["ls\u00a0-la", ["unusual character"]],
    ["ls (", ["parse error"]],
  ])("%j → %j", async (command, unsafe) => {
    expect((await analyzeCommand(command)).unsafe).toEqual(unsafe);
  });

  it("a command that does not parse is unanalysable, but still split for deny rules", async () => {
    const a = await analyzeCommand("echo 'x ; rm -rf /");
    expect(a.ok).toBe(false);
    expect(a.risk).toBe("high");
    expect(a.commands).toContainEqual(["rm", "-rf", "/"]);
  });

  it("refuses nesting past the depth limit", async () => {
    let command = "rm x";
    for (let i = 0; i < 10; i++) command = `bash -c ${JSON.stringify(command)}`;
    const a = await analyzeCommand(command);
    expect(a.ok).toBe(false);
    expect(a.unsafe).toContain("nesting too deep");
  });

  it("refuses very long commands", async () => {
    const a = await analyzeCommand(`echo ${"a".repeat(100_001)}`);
    expect(a.ok).toBe(false);
    expect(a.unsafe).toEqual(["command too long"]);
  });

  it("analyzeCommandSync works once the parser is loaded", async () => {
    await loadBashParser();
    expect(analyzeCommandSync("ls | wc -l").commands).toEqual([["ls"], ["wc", "-l"]]);
    expect(analyzeCommandSync("ls | wc -l").pipelines).toEqual([[0, 1]]);
  });
});
