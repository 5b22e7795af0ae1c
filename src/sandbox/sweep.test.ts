/**
 * The check after a command, on real folders: a survey before, files written as a command would, the check
 * after. New protected names at any depth and git state a placeholder could not block are moved to the
 * quarantine and reported; what was there before, and what git itself writes, stays.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { surveyPatterns, surveySandbox } from "./survey.js";
import { describeSweep, QUARANTINE, sweep, unsafeRepository } from "./sweep.js";

let base: string;
let ws: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "toolgate-sweep-"));
  ws = join(base, "ws");
  mkdirSync(join(ws, "keep/.vscode"), { recursive: true });
});
afterEach(() => rm(base, { recursive: true, force: true }));

const git = (...args: string[]) => execFileSync("git", args, { cwd: ws, stdio: "pipe" });
const surveyFirst = () =>
  surveySandbox({ mode: "workspace-write", network: false, roots: [ws], cwd: ws, home: join(base, "home") });
const checkAfter = (layout: ReturnType<typeof surveyFirst>) => sweep(layout, surveyPatterns());
const write = (path: string, text = "x") => {
  mkdirSync(join(ws, path, ".."), { recursive: true });
  writeFileSync(join(ws, path), text);
};

describe("sweep", () => {
  it("moves protected names created at depths 1 to 4 to the quarantine, and reports them", () => {
    const layout = surveyFirst();
    const made = ["a/.vscode/tasks.json", "a/b/.claude/settings.json", "a/b/c/.mcp.json", "a/b/c/d/.npmrc"];
    for (const path of made) write(path);
    const report = checkAfter(layout);
    expect(report.problems).toEqual([]);
    expect(report.moved.map((m) => m.path).sort()).toEqual(
      ["a/.vscode", "a/b/.claude", "a/b/c/.mcp.json", "a/b/c/d/.npmrc"].sort(),
    );
    for (const path of made) expect(existsSync(join(ws, path)), path).toBe(false);
    const to = report.moved.find((m) => m.path === "a/b/c/.mcp.json")!.to;
    expect(to).toMatch(new RegExp(`^${QUARANTINE}/[^/]+/a/b/c/\\.mcp\\.json$`));
    expect(readFileSync(join(ws, to), "utf8")).toBe("x");
    // git never stages what was moved there.
    expect(readFileSync(join(ws, QUARANTINE, ".gitignore"), "utf8")).toBe("*\n");
    expect(describeSweep(report)).toMatch(
      /\[sandbox: moved a\/b\/c\/\.mcp\.json to \.toolgate\/quarantine\//,
    );
  });

  it("leaves what was there before, and files that are not protected", () => {
    const layout = surveyFirst();
    write("keep/.vscode/new.json");
    write("src/index.ts");
    const report = checkAfter(layout);
    expect(report.moved).toEqual([]);
    expect(describeSweep(report)).toBeUndefined();
  });

  it("moves a protected file replaced by a new one in its place", () => {
    write("pkg/.npmrc", "registry=x");
    const layout = surveyFirst();
    execFileSync("rm", [join(ws, "pkg/.npmrc")]);
    write("pkg/.npmrc", "script-shell=/tmp/evil");
    expect(checkAfter(layout).moved.map((m) => m.path)).toEqual(["pkg/.npmrc"]);
  });

  it("keeps a repository a command made with git's own settings; of one with a command in its config, moves the config", () => {
    const layout = surveyFirst();
    git("init", "-q", "fine");
    git("-C", "fine", "remote", "add", "origin", "https://example.com/x.git");
    git("init", "-q", "bad");
    git("-C", "bad", "config", "core.fsmonitor", "touch /tmp/pwned");
    const report = checkAfter(layout);
    // Judged by content (red team G6: it may be the person's clone): only the part that runs is moved.
    expect(report.moved.map((m) => m.path)).toEqual(["bad/.git/config"]);
    expect(report.moved[0]!.why).toContain("sets core.fsmonitor");
    expect(existsSync(join(ws, "fine/.git/config"))).toBe(true);
    expect(existsSync(join(ws, "bad/.git/HEAD"))).toBe(true);
  });

  it("of a repository new since the command started, moves each planted hook and leaves the rest (G6)", () => {
    const layout = surveyFirst();
    git("init", "-q", "clone");
    git("-C", "clone", "remote", "add", "origin", "https://example.com/x.git");
    writeFileSync(join(ws, "clone/.git/hooks/post-checkout"), "#!/bin/sh\ntouch /tmp/pwned\n", {
      mode: 0o755,
    });
    writeFileSync(join(ws, "clone/.git/hooks/pre-commit"), "#!/bin/sh\ntouch /tmp/pwned\n", { mode: 0o755 });
    const report = checkAfter(layout);
    expect(report.moved.map((m) => m.path).sort()).toEqual([
      "clone/.git/hooks/post-checkout",
      "clone/.git/hooks/pre-commit",
    ]);
    expect(report.incomplete).toEqual([]);
    expect(readFileSync(join(ws, "clone/.git/config"), "utf8")).toContain("https://example.com/x.git");
    expect(existsSync(join(ws, "clone/.git/hooks/pre-commit.sample"))).toBe(true);
    expect(checkAfter(surveyFirst()).moved).toEqual([]);
  });

  it("moves unfinished rebase state and a config.worktree out of an existing repository, reading none of it", () => {
    git("init", "-q");
    const layout = surveyFirst();
    // commondir is blocked before the command instead (a placeholder file naming the git folder itself).
    expect(layout.placeholderFiles.get(join(ws, ".git/commondir"))).toBe(".\n");
    expect(layout.placeholderFiles.has(join(ws, ".git/config.worktree"))).toBe(false);
    write(".git/rebase-merge/git-rebase-todo", "exec touch /tmp/pwned\n");
    write(".git/rebase-merge/head-name", "refs/heads/feature\n");
    write(".git/config.worktree", "[core]\n\tfsmonitor = x\n");
    const report = checkAfter(layout);
    expect(report.moved.map((m) => m.path).sort()).toEqual([".git/config.worktree", ".git/rebase-merge"]);
    const rebase = report.moved.find((m) => m.path === ".git/rebase-merge")!;
    // What the state says is the command's text (head-name may be a link to a key): the result never shows it.
    expect(rebase.why).toContain("head-name in the moved folder");
    expect(describeSweep(report)).not.toContain("feature");
  });

  it("moves links a command made in .git and links leading outside; keeps relative links inside", () => {
    git("init", "-q");
    write("src/a.ts");
    writeFileSync(join(base, "outside"), "KEY-TEXT\n");
    const layout = surveyFirst();
    mkdirSync(join(ws, ".git/rebase-merge"), { recursive: true });
    symlinkSync(join(base, "outside"), join(ws, ".git/rebase-merge/head-name"));
    symlinkSync("/proc/self/environ", join(ws, ".git/COMMIT_EDITMSG"));
    symlinkSync(join(base, "outside"), join(ws, "package-lock.json"));
    symlinkSync("../../outside", join(ws, "src/up"));
    symlinkSync("a.ts", join(ws, "src/inside"));
    const report = checkAfter(layout);
    expect(report.moved.map((m) => m.path).sort()).toEqual([
      ".git/COMMIT_EDITMSG",
      ".git/rebase-merge",
      "package-lock.json",
      "src/up",
    ]);
    expect(describeSweep(report)).not.toMatch(/KEY-TEXT|PATH=/);
    expect(lstatSync(join(ws, "src/inside")).isSymbolicLink()).toBe(true);
  });

  it("moves a secret-named file with a second hard link; keeps one with a single name", () => {
    const layout = surveyFirst();
    write("notes.txt");
    linkSync(join(ws, "notes.txt"), join(ws, "planted.pem"));
    write("alone.pem");
    const report = checkAfter(layout);
    expect(report.moved.map((m) => m.path)).toEqual(["planted.pem"]);
    expect(existsSync(join(ws, "alone.pem"))).toBe(true);
  });

  it("judges a new repository by its config keys, hooks and state", () => {
    const repo = join(base, "r");
    execFileSync("git", ["init", "-q", repo]);
    expect(unsafeRepository(join(repo, ".git"))).toBeUndefined();
    writeFileSync(join(repo, ".git/hooks/pre-commit"), "#!/bin/sh\n");
    expect(unsafeRepository(join(repo, ".git"))).toBe("has hooks");
    execFileSync("rm", [join(repo, ".git/hooks/pre-commit")]);
    execFileSync("git", ["-C", repo, "config", "alias.x", "!touch /tmp/p"]);
    expect(unsafeRepository(join(repo, ".git"))).toBe("sets alias.x in its config");
  });
});
