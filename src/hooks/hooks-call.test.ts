/**
 * Hook scripts in bash, node and python3 (testdata/scripts/), written in the style of Claude Code's and
 * gemini-cli's documented examples, run unchanged from the user's `~/.claude/settings.json` and
 * `~/.gemini/settings.json` through `toolgate call`; and a cloned workspace's `.claude/settings.json`,
 * `.codex/hooks.json` or `.toolgate/config.toml` runs nothing until `toolgate trust`. The commands run in this
 * process (toolgateInProcess: the hooks are real processes either way), but for the last test's, which runs
 * the real binary for `call`, `trust --show` and `trust`.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, tempWorkspace, toolgate } from "../test-support/cli.js";
import { toolgateInProcess } from "../test-support/cli-in-process.js";

const SCRIPTS = join(REPO_ROOT, "src", "hooks", "testdata", "scripts");
const command = (name: string) => join(SCRIPTS, name);

let home: string;
let workspace: string;
let policy: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "tg-hooks-home-"));
  await mkdir(join(home, ".claude"));
  await mkdir(join(home, ".gemini"));
  await writeFile(
    join(home, ".claude", "settings.json"),
    JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              { type: "command", command: command("block-rm-rf.sh") },
              { type: "command", command: command("no-push-main.js"), timeout: 30 },
            ],
          },
        ],
        PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: command("secret-scan.py") }] }],
        Stop: [{ hooks: [{ type: "command", command: "true" }] }],
      },
    }),
  );
  await writeFile(
    join(home, ".gemini", "settings.json"),
    JSON.stringify({
      hooks: {
        BeforeTool: [
          { matcher: "write_file|replace", hooks: [{ type: "command", command: command("protect-env.py") }] },
          { matcher: "run_shell_command", hooks: [{ type: "command", command: command("ask-network.sh") }] },
        ],
      },
    }),
  );
  workspace = await tempWorkspace({ "notes.txt": "a\n", ".env.local": "A=1\n" });
  policy = join(home, "policy.toml");
  await writeFile(policy, 'default = "allow"\n');
});

const call = (tool: string, args: object, extra: string[] = []) =>
  toolgateInProcess(["call", "--policy", policy, "--json", ...extra, tool, JSON.stringify(args)], {
    cwd: workspace,
    env: { HOME: home },
  });

interface Case {
  note: string;
  tool: string;
  args: object;
  code: number;
  decision: string;
  says?: string;
  model?: string;
  person?: string;
}

const CASES: Case[] = [
  {
    note: "bash: rm -rf at the home folder is blocked (exit 2, stderr)",
    tool: "shell",
    args: { command: "rm -rf ~/somewhere" },
    code: 3,
    decision: "deny",
    says:
      "denied because hook `" + command("block-rm-rf.sh") + "` said: Blocked: rm -rf on / or ~ is never run",
  },
  {
    note: "node: a push to main is denied (permissionDecision)",
    tool: "shell",
    args: { command: "git push origin main" },
    code: 3,
    decision: "deny",
    says: "said: pushes to main go through a pull request",
  },
  {
    note: "python3: writing .env.local is denied (gemini decision)",
    tool: "write_file",
    args: { path: ".env.local", content: "B=2\n", overwrite: true },
    code: 3,
    decision: "deny",
    says: "said: edits to .env.local are blocked",
  },
  {
    note: "python3: one edit of .env.local (gemini `replace`) is denied",
    tool: "edit_file",
    args: { path: ".env.local", edits: [{ oldText: "A=1", newText: "A=2" }] },
    code: 3,
    decision: "deny",
    says: "edits to .env.local are blocked",
  },
  {
    note: "bash: a network command asks, and with nobody to answer is denied",
    tool: "shell",
    args: { command: "curl -s http://127.0.0.1:9/" },
    code: 3,
    decision: "ask",
    says: "it was not approved: no one was available to approve it",
  },
  {
    note: "python3 post-tool: a credential in the output is withheld from the model, shown to the person",
    tool: "shell",
    args: { command: "echo key=AKIAABCDEFGHIJKLMNOP" },
    code: 3,
    decision: "allow",
    model: "blocked it: the output holds a credential",
    person: "AKIAABCDEFGHIJKLMNOP",
  },
  {
    note: "python3 post-tool: a clean output gets the hook's context, labelled",
    tool: "shell",
    args: { command: "echo hello" },
    code: 0,
    decision: "allow",
    model:
      "hello\n[exit code 0]\n\n[context from hook `" + command("secret-scan.py") + "`]\nsecret scan: clean",
  },
  {
    note: "an edit of another file runs (the hooks have no opinion)",
    tool: "write_file",
    args: { path: "notes.txt", content: "b\n", overwrite: true },
    code: 0,
    decision: "allow",
  },
];

describe("hook scripts through `toolgate call`", () => {
  it.each(CASES.map((c) => [c.note, c] as const))("%s", async (_, c) => {
    const r = await call(c.tool, c.args);
    expect(r.code, r.stderr + r.stdout).toBe(c.code);
    const out = JSON.parse(r.stdout);
    expect(out.decision).toBe(c.decision);
    if (c.says) expect(out.error.message).toContain(c.says);
    if (c.model) expect(out.llmContent).toContain(c.model);
    if (c.person) expect(out.returnDisplay).toContain(c.person);
  });

  it("says which hook asked, and what it said, in `policy check --explain`", async () => {
    const args = [
      "policy",
      "check",
      "--policy",
      policy,
      "--explain",
      "shell",
      '{"command":"curl http://x/"}',
    ];
    const r = await toolgateInProcess(args, { cwd: workspace, env: { HOME: home } });
    expect(r.stdout).toContain(
      `asked because hook \`${command("ask-network.sh")}\` said: this command uses the network`,
    );
    expect(r.stdout).toContain(
      `hook \`${command("ask-network.sh")}\` (~/.gemini/settings.json#BeforeTool[1].hooks[0]): ask — this command uses the network`,
    );
    expect(r.stdout).toContain(
      `hook \`${command("block-rm-rf.sh")}\` (~/.claude/settings.json#PreToolUse[0].hooks[0]): no opinion`,
    );
  });

  it("lists every hook with its source, and the entries it does not run", async () => {
    const r = await toolgateInProcess(["hooks", "list", "--json"], { cwd: workspace, env: { HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { source: string; status: string; event: string; why?: string }[];
    expect(rows.map((row) => [row.status, row.event, row.source])).toEqual([
      ["runs", "pre_tool", "~/.claude/settings.json#PreToolUse[0].hooks[0]"],
      ["runs", "pre_tool", "~/.claude/settings.json#PreToolUse[0].hooks[1]"],
      ["runs", "post_tool", "~/.claude/settings.json#PostToolUse[0].hooks[0]"],
      ["runs", "pre_tool", "~/.gemini/settings.json#BeforeTool[0].hooks[0]"],
      ["runs", "pre_tool", "~/.gemini/settings.json#BeforeTool[1].hooks[0]"],
      ["skipped", "", "~/.claude/settings.json#Stop[0]"],
    ]);
    expect(rows.at(-1)?.why).toBe("toolgate runs no Stop hooks (only tool events)");
  });
});

/** Each host's workspace file: the one a cloned repository brings, and the matcher it writes for every tool. */
const WORKSPACE_FILES: [file: string, matcher: string][] = [
  [".claude/settings.json", ""],
  [".codex/hooks.json", "*"],
];

describe("a cloned workspace's hooks", () => {
  it.each(WORKSPACE_FILES)(
    "%s: nothing runs until `toolgate trust`, which lists them first",
    async (file, matcher) => {
      const xdg = await mkdtemp(join(tmpdir(), "tg-hooks-xdg-"));
      const cloned = await tempWorkspace();
      const marker = join(cloned, "hook-ran");
      await mkdir(join(cloned, dirname(file)));
      const hook = `touch ${marker}; echo '{"decision":"block","reason":"the workspace hook blocks everything"}'`;
      await writeFile(
        join(cloned, file),
        JSON.stringify({ hooks: { PreToolUse: [{ matcher, hooks: [{ type: "command", command: hook }] }] } }),
      );
      const env = { HOME: home, XDG_CONFIG_HOME: xdg };
      const args = ["call", "--policy", policy, "--json", "read_file", JSON.stringify({ path: file })];
      const before = await toolgateInProcess(args, { cwd: cloned, env });
      expect(before.code, before.stderr).toBe(0);
      expect(existsSync(marker)).toBe(false);
      expect(before.stderr).toContain(`${file} has hooks that do not run until the workspace is trusted`);
      const listed = await toolgateInProcess(["hooks", "list", "--json"], { cwd: cloned, env });
      const waiting = JSON.parse(listed.stdout).filter((h: { status: string }) => h.status === "not trusted");
      expect(waiting.map((h: { source: string }) => h.source)).toEqual([
        `${cloned}/${file}#PreToolUse[0].hooks[0]`,
      ]);

      const shown = await toolgateInProcess(["trust", "--show"], { cwd: cloned, env });
      expect(shown.stdout).toContain(`hook pre_tool [*]: runs ${JSON.stringify(hook)}`);
      expect((await toolgateInProcess(["trust"], { cwd: cloned, env })).code).toBe(0);

      const after = await toolgateInProcess(args, { cwd: cloned, env });
      expect(after.code).toBe(3);
      expect(JSON.parse(after.stdout).error.message).toContain("said: the workspace hook blocks everything");
      expect(existsSync(marker)).toBe(true);
    },
  );
});

describe("a cloned workspace's [[hooks]] in .toolgate/config.toml", () => {
  it("do not run until `toolgate trust`, whose review lists each hook's command", async () => {
    const xdg = await mkdtemp(join(tmpdir(), "tg-hooks-xdg-"));
    const marker = "config-hook-ran";
    const hook = `touch ${marker}; echo '{"decision":"block","reason":"the config hook blocks reads"}'`;
    const cloned = await tempWorkspace({
      "README.md": "hello\n",
      ".toolgate/config.toml": `hooks_fail = "open"\n\n[[hooks]]\nname = "reads"\nevent = "pre_tool"\ntools = ["read_file"]\ncommand = ${JSON.stringify(hook)}\n`,
    });
    const env = { HOME: home, XDG_CONFIG_HOME: xdg };
    const args = ["call", "--policy", policy, "--json", "read_file", '{"path":"README.md"}'];
    const before = await toolgate(args, { cwd: cloned, env });
    expect(before.code, before.stderr).toBe(0);
    expect(existsSync(join(cloned, marker))).toBe(false);

    const shown = await toolgate(["trust", "--show"], { cwd: cloned, env });
    expect(shown.stdout).toContain(`- hook "reads" pre_tool [read_file]: runs ${JSON.stringify(hook)}`);
    expect(shown.stdout).toContain('- sets hooks_fail = "open"');
    expect((await toolgate(["trust"], { cwd: cloned, env })).code).toBe(0);

    const after = await toolgate(args, { cwd: cloned, env });
    expect(after.code, after.stderr).toBe(3);
    expect(JSON.parse(after.stdout).error.message).toContain(
      "hook `reads` said: the config hook blocks reads",
    );
    expect(existsSync(join(cloned, marker))).toBe(true);
  });
});
