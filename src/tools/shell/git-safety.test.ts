/**
 * Issue 13 item 2, with real git: a repository cannot make an allowed git command run code. Each case plants
 * a command that would create a canary file (by plain file writes, as a model's write_file would), then runs
 * git through the gate's shell tool under a policy that allows that git command.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempWorkspace } from "../../test-support/cli.js";
import { createToolgate, type Toolgate } from "../../toolgate.js";

const POLICY = `default = "ask"

[[rules]]
tool = "shell"
decision = "allow"
when.command = { prefix = ["git init", "git add", "git commit", "git log", "git diff", "git status", "git show", "ls"] }
`;
const IDENTITY = {
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
};

/** A workspace holding a real repository with one commit and one uncommitted change. */
async function repository(): Promise<string> {
  const dir = await tempWorkspace({ "a.txt": "one\n" }, "tg-git-");
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: dir, env: { ...process.env, ...IDENTITY }, stdio: "pipe" });
  git("init", "-q");
  git("add", "a.txt");
  git("commit", "-qm", "first");
  await writeFile(join(dir, "a.txt"), "one\ntwo\n");
  return dir;
}

async function gate(dir: string): Promise<Toolgate> {
  return createToolgate({ roots: [dir], policyText: POLICY, env: IDENTITY, logger: { warn: () => {} } });
}

async function shell(g: Toolgate, command: string, cwd?: string) {
  const result = await g.execute({ name: "shell", args: { command, ...(cwd ? { cwd } : {}) } });
  return { ...result, text: String(result.llmContent) };
}

/** A command that leaves a canary in `dir` if it ever runs. */
const canaryCommand = (dir: string) => `touch ${JSON.stringify(join(dir, "CANARY"))}; false`;

describe("git in the shell tool: repositories cannot arm git", () => {
  it("ordinary git still works: init, add, commit, log, diff, status", async () => {
    const dir = await tempWorkspace({ "x.txt": "x\n" }, "tg-git-");
    const g = await gate(dir);
    try {
      expect((await shell(g, "git init -q")).error).toBeUndefined();
      expect((await shell(g, "git add x.txt")).error).toBeUndefined();
      const commit = await shell(g, "git commit -qm first");
      expect(commit.error).toBeUndefined();
      expect((await shell(g, "git log --oneline")).text).toContain("first");
      await writeFile(join(dir, "x.txt"), "x\ny\n");
      expect((await shell(g, "git diff")).text).toContain("+y");
      expect((await shell(g, "git status --short")).text).toContain("M x.txt");
    } finally {
      await g.close();
    }
  });

  it("a bare repository planted in a sub-folder is refused (safe.bareRepository=explicit)", async () => {
    const dir = await tempWorkspace(
      { "sub/HEAD": "ref: refs/heads/main\n", "sub/objects/.keep": "", "sub/refs/.keep": "" },
      "tg-git-",
    );
    // A bare repository's config whose work tree is the workspace, with an fsmonitor command.
    await writeFile(
      join(dir, "sub", "config"),
      `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "${canaryCommand(dir)}"\n`,
    );
    const g = await gate(dir);
    try {
      const result = await shell(g, "git status", "sub");
      expect(result.decision).toBe("allow");
      expect(result.text).toContain("cannot use bare repository");
      expect(existsSync(join(dir, "CANARY"))).toBe(false);
    } finally {
      await g.close();
    }
  });

  it("core.fsmonitor in .git/config does not run on git status", async () => {
    const dir = await repository();
    await appendFile(join(dir, ".git", "config"), `[core]\n\tfsmonitor = "${canaryCommand(dir)}"\n`);
    const g = await gate(dir);
    try {
      const result = await shell(g, "git status --short");
      expect(result.decision).toBe("allow");
      expect(result.text).toContain("M a.txt");
      expect(existsSync(join(dir, "CANARY"))).toBe(false);
    } finally {
      await g.close();
    }
  });

  it("core.pager and pager.log in .git/config do not run", async () => {
    const dir = await repository();
    await appendFile(
      join(dir, ".git", "config"),
      `[core]\n\tpager = "${canaryCommand(dir)}"\n[pager]\n\tlog = "${canaryCommand(dir)}"\n`,
    );
    const g = await gate(dir);
    try {
      const result = await shell(g, "git log -p -1");
      expect(result.decision).toBe("allow");
      expect(result.text).toContain("first");
      expect(existsSync(join(dir, "CANARY"))).toBe(false);
    } finally {
      await g.close();
    }
  });

  it("a planted hook does not run on git commit", async () => {
    const dir = await repository();
    const hook = join(dir, ".git", "hooks", "pre-commit");
    await mkdir(join(dir, ".git", "hooks"), { recursive: true });
    await writeFile(hook, `#!/bin/sh\n${canaryCommand(dir)}\n`);
    await chmod(hook, 0o755);
    const g = await gate(dir);
    try {
      const result = await shell(g, "git commit -qam second");
      expect(result.decision).toBe("allow");
      expect(result.error).toBeUndefined();
      expect((await shell(g, "git log --oneline")).text).toContain("second");
      expect(existsSync(join(dir, "CANARY"))).toBe(false);
    } finally {
      await g.close();
    }
  });

  it("diff.external in .git/config makes git diff ask, naming the key; unanswered, nothing runs", async () => {
    const dir = await repository();
    await appendFile(join(dir, ".git", "config"), `[diff]\n\texternal = "${canaryCommand(dir)}"\n`);
    const g = await gate(dir);
    try {
      const check = await g.check({ name: "shell", args: { command: "git diff" } });
      expect(check.ok && check.decision.decision).toBe("ask");
      const result = await shell(g, "git diff");
      expect(result.decision).toBe("ask");
      expect(result.error).toBeDefined();
      expect(existsSync(join(dir, "CANARY"))).toBe(false);
      // The person asked sees the key.
      let shown = "";
      g.bus.onConfirmation((request) => {
        shown = JSON.stringify(request.details);
        return { approved: false };
      });
      await shell(g, "git diff");
      expect(shown).toContain("diff.external");
      expect(existsSync(join(dir, "CANARY"))).toBe(false);
    } finally {
      await g.close();
    }
  });

  it("a textconv driver makes git diff and git log -p ask; unanswered, nothing runs", async () => {
    const dir = await repository();
    await writeFile(join(dir, ".gitattributes"), "*.txt diff=conv\n");
    await appendFile(join(dir, ".git", "config"), `[diff "conv"]\n\ttextconv = "${canaryCommand(dir)}"\n`);
    const g = await gate(dir);
    try {
      for (const command of ["git diff", "git log -p -1", "git show"]) {
        const result = await shell(g, command);
        expect(result.decision, command).toBe("ask");
      }
      expect(existsSync(join(dir, "CANARY"))).toBe(false);
      // Commands that do not run git are unaffected.
      expect((await shell(g, "ls")).decision).toBe("allow");
    } finally {
      await g.close();
    }
  });
});
