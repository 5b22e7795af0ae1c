import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Tool } from "../core/index.js";
import { tempWorkspace, toolgate } from "../test-support/cli.js";
import { allowRule } from "./denial-hint.js";

const dirs: string[] = [];
async function workspace(files: Record<string, string> = {}): Promise<string> {
  const dir = await tempWorkspace(files, "tg-hint-");
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const NOBODY =
  "toolgate: denied_by_policy: write_file was denied: it was not approved: no one was available to approve it\n";

describe("a denied call says how to allow it (the real binary, no terminal)", () => {
  it("an unanswered ask names the terminal, --yes and the rule to add; adding that rule makes the call run", async () => {
    const dir = await workspace();
    const denied = await toolgate(["call", "write_file", '{"path":"x","content":"y"}'], { cwd: dir });
    expect(denied.code).toBe(3);
    expect(denied.stdout).toBe("");
    expect(denied.stderr).toBe(
      `${NOBODY}  to allow it: run it on a terminal to be asked, pass --yes to approve what the policy asks about (--yes never overrides a deny), or create .toolgate/policy.toml (\`toolgate init\` writes a starter one) with this rule:
    [[rules]]
    tool = "write_file"
    decision = "allow"
    when.path = { glob = "/x" }
`,
    );

    // Follow the advice literally: the rule, as printed, goes into the policy file.
    const rule = denied.stderr
      .split("\n")
      .filter((line) => line.startsWith("    "))
      .map((line) => line.slice(4))
      .join("\n");
    await mkdir(join(dir, ".toolgate"));
    await writeFile(join(dir, ".toolgate", "policy.toml"), `default = "ask"\n\n${rule}\n`);
    const allowed = await toolgate(["call", "write_file", '{"path":"x","content":"y"}'], { cwd: dir });
    expect(allowed.stderr).toBe("");
    expect(allowed.code).toBe(0);
    expect(await readFile(join(dir, "x"), "utf8")).toBe("y");
    // The rule is anchored: the same name elsewhere still asks.
    const other = await toolgate(["call", "write_file", '{"path":"sub/x","content":"y"}'], { cwd: dir });
    expect(other.code).toBe(3);
    expect(other.stderr).toContain(
      'or add this rule to .toolgate/policy.toml:\n    [[rules]]\n    tool = "write_file"',
    );
    expect(other.stderr).toContain('when.path = { glob = "/sub/x" }');
  });

  it("a shell command and a URL get conditions on the command words and the host", async () => {
    const dir = await workspace();
    const shell = await toolgate(["call", "shell", '{"command":"npm   test"}'], { cwd: dir });
    expect(shell.code).toBe(3);
    expect(shell.stderr).toContain(
      '    tool = "shell"\n    decision = "allow"\n    when.command = { prefix = "npm test" }\n',
    );
    const web = await toolgate(["call", "web_fetch", '{"url":"https://example.com/a?b=1"}'], { cwd: dir });
    expect(web.code).toBe(3);
    expect(web.stderr).toContain('    when.url = { host = "example.com" }\n');
  });

  it("a deny rule is named with its file and line, and --yes is said not to help", async () => {
    const dir = await workspace({
      ".toolgate/policy.toml":
        'default = "ask"\n\n[[rules]]\nname = "no-rm"\ntool = "shell"\ndecision = "deny"\nwhen.command = { prefix = "rm" }\n',
    });
    const run = await toolgate(["call", "shell", '{"command":"rm -fr build"}', "--yes"], { cwd: dir });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe(
      'toolgate: denied_by_policy: shell was denied: rule policy.toml#no-rm (tool "shell", decision deny) matched\n' +
        "  denied by rule policy.toml#no-rm (.toolgate/policy.toml:3); a matching deny rule always wins, so to allow this call change or remove that rule (--yes does not override a deny)\n",
    );
  });

  it("a default deny shows the allow rule to add", async () => {
    const dir = await workspace({ "deny.toml": 'default = "deny"\n' });
    const run = await toolgate(["--policy", "deny.toml", "call", "ls", "{}"], { cwd: dir });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      '  the policy\'s default decision is deny and no rule allows this call (--yes does not override a deny); to allow it, add this rule to deny.toml:\n    [[rules]]\n    tool = "ls"\n    decision = "allow"\n',
    );
  });

  it("--json keeps stdout machine-readable and puts the hint on stderr; --yes needs no hint", async () => {
    const dir = await workspace();
    const json = await toolgate(["call", "write_file", '{"path":"x","content":"y"}', "--json"], { cwd: dir });
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, decision: "ask" });
    expect(json.stderr).toContain(
      "toolgate: write_file was denied: it was not approved: no one was available",
    );
    expect(json.stderr).toContain('when.path = { glob = "/x" }');
    const yes = await toolgate(["call", "write_file", '{"path":"x","content":"y"}', "--yes"], { cwd: dir });
    expect(yes).toMatchObject({ code: 0, stderr: "" });
  });

  it("a batch prints each distinct hint once", async () => {
    const dir = await workspace();
    const line = '{"name":"write_file","args":{"path":"x","content":"y"}}\n';
    const run = await toolgate(["call", "--batch", "-"], { cwd: dir, input: line + line });
    expect(run.code).toBe(3);
    expect(run.stderr.split(NOBODY).length - 1).toBe(2);
    expect(run.stderr.split("to allow it:").length - 1).toBe(1);
  });
});

describe("allowRule", () => {
  const tool = (argKinds: Tool["argKinds"]) => ({ argKinds }) as Tool;
  const rows: [string, Record<string, unknown>, Tool["argKinds"], string | null][] = [
    [
      "a path inside the root, absolute",
      { path: "/ws/src/a.ts" },
      { path: "path" },
      'when.path = { glob = "/src/a.ts" }',
    ],
    ["a path with glob characters: no condition", { path: "a*.ts" }, { path: "path" }, null],
    ["a path outside the root: no condition", { path: "/etc/passwd" }, { path: "path" }, null],
    ["a compound command: no condition", { command: "ls && rm x" }, { command: "command" }, null],
    [
      "a simple command",
      { command: "git log -5" },
      { command: "command" },
      'when.command = { prefix = "git log -5" }',
    ],
    [
      "a URL",
      { url: "https://Docs.Python.org/3/" },
      { url: "url" },
      'when.url = { host = "docs.python.org" }',
    ],
    ["a URL that does not parse: no condition", { url: "not a url" }, { url: "url" }, null],
    ["a text argument: no condition", { query: "x" }, {}, null],
  ];
  it.each(rows)("%s", (_note, args, argKinds, condition) => {
    const text = allowRule({ name: "t", args }, { tool: tool(argKinds), root: "/ws" });
    expect(text).toBe(
      ["[[rules]]", 'tool = "t"', 'decision = "allow"', ...(condition ? [condition] : [])].join("\n"),
    );
  });
});
