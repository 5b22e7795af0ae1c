/**
 * Codex's hooks (`~/.codex/hooks.json`, the `[hooks]` of `~/.codex/config.toml`, and the workspace's
 * `.codex/` same files once trusted): its files read as Codex reads them, and real bash, node and python3
 * scripts written in the style of Codex's hooks (Bash commands in `.tool_input.command`, file changes as an
 * `apply_patch` patch) through the real `toolgate call`. A cloned workspace's `.codex/hooks.json` waiting for
 * `toolgate trust`: hooks-call.test.ts.
 */
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, tempWorkspace, toolgate } from "../test-support/cli.js";
import { hostHooks } from "./sources.js";

const SCRIPTS = join(REPO_ROOT, "src", "hooks", "testdata", "scripts");
const script = (name: string) => join(SCRIPTS, name);

describe("Codex's hook files, read as Codex reads them", () => {
  it("hooks.json: tool events run; other events, async and non-command hooks are listed as skipped", () => {
    const text = JSON.stringify({
      description: "team guards",
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              { type: "command", command: "./guard.sh", timeout: 5, statusMessage: "checking" },
              { type: "command", command: "./log.sh", async: true },
              { type: "prompt", prompt: "is this safe?" },
            ],
          },
        ],
        PostToolUse: [{ hooks: [{ type: "command", command: "./scan.sh" }] }],
        SessionStart: [{ matcher: "startup", hooks: [{ type: "command", command: "./hello.sh" }] }],
      },
    });
    const { hooks, skipped } = hostHooks("codex", text, "~/.codex/hooks.json", "user");
    expect(hooks.map((h) => [h.event, h.command, h.timeoutMs, h.match, h.source])).toEqual([
      ["pre_tool", "./guard.sh", 5000, { matcher: "Bash" }, "~/.codex/hooks.json#PreToolUse[0].hooks[0]"],
      // Codex's default timeout is 600 s.
      ["post_tool", "./scan.sh", 600_000, { matcher: "" }, "~/.codex/hooks.json#PostToolUse[0].hooks[0]"],
    ]);
    expect(skipped).toEqual([
      {
        source: "~/.codex/hooks.json#PreToolUse[0].hooks[1]",
        why: "an async hook cannot decide (Codex runs it in the background)",
      },
      {
        source: "~/.codex/hooks.json#PreToolUse[0].hooks[2]",
        why: 'only {"type": "command", "command": ...} hooks run',
      },
      {
        source: "~/.codex/hooks.json#SessionStart[0]",
        why: "toolgate runs no SessionStart hooks (only tool events)",
      },
    ]);
  });

  it("config.toml: only [hooks] is read; Codex's own trust records are skipped; bad TOML names the file", () => {
    const toml = [
      'model = "o4-mini"',
      "[[hooks.PreToolUse]]",
      'matcher = "Edit|Write"',
      "[[hooks.PreToolUse.hooks]]",
      'type = "command"',
      'command = "python3 guard.py"',
      "timeoutSec = 30",
      '[hooks.state."/home/a/.codex/config.toml:pre_tool_use:0:0"]',
      'trusted_hash = "abc"',
    ].join("\n");
    const { hooks, skipped } = hostHooks("codex", toml, "~/.codex/config.toml", "user", "toml");
    expect(hooks).toEqual([
      {
        name: "python3 guard.py",
        event: "pre_tool",
        format: "codex",
        command: "python3 guard.py",
        timeoutMs: 30_000,
        match: { matcher: "Edit|Write" },
        source: "~/.codex/config.toml#PreToolUse[0].hooks[0]",
        origin: "user",
      },
    ]);
    expect(skipped).toEqual([
      { source: "~/.codex/config.toml#state", why: "Codex's own record of enabled and trusted hooks" },
    ]);
    expect(() => hostHooks("codex", "[hooks\n", ".codex/config.toml", "workspace", "toml")).toThrow(
      ".codex/config.toml: not valid TOML",
    );
  });
});

let home: string;
let workspace: string;
let policy: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "tg-codex-home-"));
  await mkdir(join(home, ".codex"));
  await writeFile(
    join(home, ".codex", "hooks.json"),
    JSON.stringify({
      hooks: {
        PreToolUse: [
          { matcher: "Bash", hooks: [{ type: "command", command: script("block-rm-rf.sh"), timeout: 30 }] },
          { matcher: "Edit|Write", hooks: [{ type: "command", command: script("codex-patch-guard.py") }] },
        ],
        PostToolUse: [
          { matcher: "Bash", hooks: [{ type: "command", command: script("codex-secret-scan.js") }] },
        ],
        Stop: [{ hooks: [{ type: "command", command: "true" }] }],
      },
    }),
  );
  await writeFile(
    join(home, ".codex", "config.toml"),
    `model = "o4-mini"\n\n[[hooks.PreToolUse]]\nmatcher = "^Bash"\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = ${JSON.stringify(script("no-push-main.js"))}\n`,
  );
  workspace = await tempWorkspace({ "notes.txt": "a\n", ".env.local": "A=1\n" });
  policy = join(home, "policy.toml");
  await writeFile(policy, 'default = "allow"\n');
});

const call = (tool: string, args: object) =>
  toolgate(["call", "--policy", policy, "--json", tool, JSON.stringify(args)], {
    cwd: workspace,
    env: { HOME: home },
  });

const CASES: [note: string, tool: string, args: object, code: number, says: string][] = [
  [
    "bash (hooks.json, Bash): rm -rf at the home folder is blocked",
    "shell",
    { command: "rm -rf ~/x" },
    3,
    "said: Blocked: rm -rf on / or ~ is never run",
  ],
  [
    "node (config.toml, ^Bash): a push to main is denied",
    "shell",
    { command: "git push origin main" },
    3,
    "said: pushes to main go through a pull request",
  ],
  [
    "python3 (Edit|Write): writing .env.local, seen as an added file in the patch, is denied",
    "write_file",
    { path: ".env.local", content: "B=2\n", overwrite: true },
    3,
    "said: changes to .env.local are blocked",
  ],
  [
    "python3 (Edit|Write): an edit of .env.local, seen as an updated file, is denied",
    "edit_file",
    { path: ".env.local", edits: [{ oldText: "A=1", newText: "A=2" }] },
    3,
    "said: changes to .env.local are blocked",
  ],
  [
    "node post-tool: a credential in the output is withheld from the model",
    "shell",
    { command: "echo key=AKIAABCDEFGHIJKLMNOP" },
    3,
    "blocked it: the output holds a credential",
  ],
];

describe("Codex hook scripts through `toolgate call`", () => {
  it.each(CASES)("%s", async (_, tool, args, code, says) => {
    const r = await call(tool, args);
    expect(r.code, r.stderr + r.stdout).toBe(code);
    expect(JSON.parse(r.stdout).error.message).toContain(says);
  });

  it("a change to another file and a clean command run (no hook objects)", async () => {
    const wrote = await call("write_file", { path: "notes.txt", content: "b\n", overwrite: true });
    expect(wrote.code, wrote.stderr).toBe(0);
    const echoed = await call("shell", { command: "echo hello" });
    expect(echoed.code, echoed.stderr).toBe(0);
    expect(JSON.parse(echoed.stdout).llmContent).toContain("hello");
  });

  it("`toolgate hooks list` shows each Codex hook with its file, and what it skips", async () => {
    const r = await toolgate(["hooks", "list", "--json"], { cwd: workspace, env: { HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { status: string; format: string; source: string; why?: string }[];
    expect(rows.map((row) => [row.status, row.format, row.source])).toEqual([
      ["runs", "codex", "~/.codex/hooks.json#PreToolUse[0].hooks[0]"],
      ["runs", "codex", "~/.codex/hooks.json#PreToolUse[1].hooks[0]"],
      ["runs", "codex", "~/.codex/hooks.json#PostToolUse[0].hooks[0]"],
      ["runs", "codex", "~/.codex/config.toml#PreToolUse[0].hooks[0]"],
      ["skipped", "", "~/.codex/hooks.json#Stop[0]"],
    ]);
  });
});
