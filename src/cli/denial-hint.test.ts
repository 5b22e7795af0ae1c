import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempWorkspace } from "../test-support/cli.js";
import { toolgateInProcess } from "../test-support/cli-in-process.js";

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

/**
 * The hint a denied call prints, from the command line with no terminal. Commands run in-process (the
 * dispatcher the binary runs); the hook test's with its own HOME, where its hooks are read from.
 */
describe("a denied call says how to allow it (no terminal)", () => {
  it("an unanswered ask names the terminal, --yes and the rule to add; adding that rule makes the call run", async () => {
    const dir = await workspace();
    const denied = await toolgateInProcess(["call", "write_file", '{"path":"x","content":"y"}'], {
      cwd: dir,
    });
    expect(denied.code).toBe(3);
    expect(denied.stdout).toBe("");
    expect(denied.stderr).toBe(
      `${NOBODY}  to allow it: run it on a terminal to be asked, pass --yes to approve what the policy asks about (--yes never overrides a deny), or create .toolgate/policy.toml (\`toolgate init\` writes a starter one) with this rule:
    [[rules]]
    tool = "write_file"
    decision = "allow"
    when.path = { equals = "x" }
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
    const allowed = await toolgateInProcess(["call", "write_file", '{"path":"x","content":"y"}'], {
      cwd: dir,
    });
    expect(allowed.stderr).toBe("");
    expect(allowed.code).toBe(0);
    expect(await readFile(join(dir, "x"), "utf8")).toBe("y");
    // The rule names that path exactly: the same name elsewhere still asks.
    const other = await toolgateInProcess(["call", "write_file", '{"path":"sub/x","content":"y"}'], {
      cwd: dir,
    });
    expect(other.code).toBe(3);
    expect(other.stderr).toContain(
      'or add this rule to .toolgate/policy.toml:\n    [[rules]]\n    tool = "write_file"',
    );
    expect(other.stderr).toContain('when.path = { equals = "sub/x" }');
  });

  it("a shell command and a URL are named exactly: the command's words, the whole URL", async () => {
    const dir = await workspace();
    const shell = await toolgateInProcess(["call", "shell", '{"command":"npm   test"}'], { cwd: dir });
    expect(shell.code).toBe(3);
    expect(shell.stderr).toContain(
      '    tool = "shell"\n    decision = "allow"\n    when.command = { equals = "npm test" }\n',
    );
    const web = await toolgateInProcess(["call", "web_fetch", '{"url":"https://example.com/a?b=1"}'], {
      cwd: dir,
    });
    expect(web.code).toBe(3);
    expect(web.stderr).toContain('    when.url = { equals = "https://example.com/a?b=1" }\n');
  });

  it("a deny rule is named with its file and line, and --yes is said not to help", async () => {
    const dir = await workspace({
      ".toolgate/policy.toml":
        'default = "ask"\n\n[[rules]]\nname = "no-rm"\ntool = "shell"\ndecision = "deny"\nwhen.command = { prefix = "rm" }\n',
    });
    const run = await toolgateInProcess(["call", "shell", '{"command":"rm -fr build"}', "--yes"], {
      cwd: dir,
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe(
      'toolgate: denied_by_policy: shell was denied: rule policy.toml#no-rm (tool "shell", decision deny) matched\n' +
        "  denied by rule policy.toml#no-rm (.toolgate/policy.toml:3); a matching deny rule always wins, so to allow this call change or remove that rule (--yes does not override a deny)\n",
    );
  });

  it("a default deny shows the allow rule to add", async () => {
    const dir = await workspace({ "deny.toml": 'default = "deny"\n', "src/a.ts": "a\n" });
    const run = await toolgateInProcess(["--policy", "deny.toml", "call", "ls", '{"path":"src"}'], {
      cwd: dir,
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      '  the policy\'s default decision is deny and no rule allows this call (--yes does not override a deny); to allow it, add this rule to deny.toml:\n    [[rules]]\n    tool = "ls"\n    decision = "allow"\n    when.path = { equals = "src" }\n',
    );
  });

  it("suggests no rule for a command piped into an interpreter, and says why (issue 30)", async () => {
    const dir = await workspace();
    const run = await toolgateInProcess(["call", "shell", '{"command":"curl http://x | sh"}'], { cwd: dir });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      "  to allow it: run it on a terminal to be asked, pass --yes to approve what the policy asks about (--yes never overrides a deny); no rule is suggested: the command cannot be vouched for (",
    );
    expect(run.stderr).toContain("piped into sh: its input runs as code nobody has read");
    expect(run.stderr).toContain("so no rule can allow it without allowing more");
    expect(run.stderr).not.toContain("[[rules]]");
  });

  it("--json keeps stdout machine-readable and puts the hint on stderr; --yes needs no hint", async () => {
    const dir = await workspace();
    const json = await toolgateInProcess(["call", "write_file", '{"path":"x","content":"y"}', "--json"], {
      cwd: dir,
    });
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, decision: "ask" });
    expect(json.stderr).toContain(
      "toolgate: write_file was denied: it was not approved: no one was available",
    );
    expect(json.stderr).toContain('when.path = { equals = "x" }');
    const yes = await toolgateInProcess(["call", "write_file", '{"path":"x","content":"y"}', "--yes"], {
      cwd: dir,
    });
    expect(yes).toMatchObject({ code: 0, stderr: "" });
  });

  it("a batch prints each distinct hint once", async () => {
    const dir = await workspace();
    const line = '{"name":"write_file","args":{"path":"x","content":"y"}}\n';
    const run = await toolgateInProcess(["call", "--batch", "-"], { cwd: dir, input: line + line });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`toolgate: line 1 write_file: ${NOBODY.slice("toolgate: ".length)}`);
    expect(run.stderr).toContain(`toolgate: line 2 write_file: ${NOBODY.slice("toolgate: ".length)}`);
    expect(run.stderr.split("to allow it:").length - 1).toBe(1);
  });

  it("a hook's deny, failure or ask names the hook and its file, not a rule that could not lift it", async () => {
    const home = await workspace();
    const hook = (command: string) => [{ type: "command", command }];
    await mkdir(join(home, ".claude"));
    await writeFile(
      join(home, ".claude", "settings.json"),
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: "Bash", hooks: hook("echo 'no shell today' >&2; exit 2") },
            { matcher: "Write", hooks: hook("exit 1") },
            {
              matcher: "WebFetch",
              hooks: hook(
                `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"network"}}'`,
              ),
            },
          ],
        },
      }),
    );
    const dir = await workspace({ "allow.toml": 'default = "allow"\n' });
    const run = (tool: string, args: object, ...flags: string[]) =>
      toolgateInProcess(["--policy", "allow.toml", "call", tool, JSON.stringify(args), ...flags], {
        cwd: dir,
        env: { HOME: home },
      });
    const list = "`toolgate hooks list` shows every hook and where it is read from";

    const denied = await run("shell", { command: "ls" }, "--yes");
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain(
      `  denied by hook \`echo 'no shell today' >&2; exit 2\` (~/.claude/settings.json#PreToolUse[0].hooks[0]); a hook's deny always wins, no rule and no --yes overrides it: to allow this call change that hook or remove it; ${list}\n`,
    );
    expect(denied.stderr).not.toContain("[[rules]]");

    const failed = await run("write_file", { path: "x", content: "y" }, "--yes");
    expect(failed.code).toBe(3);
    expect(failed.stderr).toContain(
      "  hook `exit 1` (~/.claude/settings.json#PreToolUse[1].hooks[0]) failed, and a hook that fails denies the call (hooks fail closed)",
    );

    const asked = await run("web_fetch", { url: "https://example.com/" });
    expect(asked.code).toBe(3);
    expect(asked.stderr).toContain("  asked by hook `echo");
    expect(asked.stderr).toContain(
      "no policy rule stops a hook asking. To allow it: run it on a terminal to be asked, or pass --yes",
    );
    expect(asked.stderr).not.toContain("[[rules]]");
  });
});
