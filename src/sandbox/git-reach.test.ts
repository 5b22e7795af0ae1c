/**
 * The check after a command against every layout by which the host's git reaches a repository
 * (testdata/git-reach.json): split indexes, linked worktrees, separate git folders, the user's relative
 * hooksPath, hard-linked configs — and the person's own submodules and embedded repositories, which stay.
 * Real folders and real git; the command's part runs on the host between the survey and the check.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, expect, it } from "vitest";
import { surveyPatterns, surveySandbox } from "./survey.js";
import { sweep } from "./sweep.js";

interface ReachCase {
  note: string;
  gitconfig?: string;
  before?: string;
  command: string;
  moved: string[];
}

const here = dirname(fileURLToPath(import.meta.url));
const cases = (
  JSON.parse(readFileSync(join(here, "testdata", "git-reach.json"), "utf8")) as { cases: ReachCase[] }
).cases;

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "toolgate-git-reach-"));
});
afterEach(() => rm(base, { recursive: true, force: true }));

it.each(cases.map((c) => [c.note, c] as const))("%s", (_note, c) => {
  const ws = join(base, "ws");
  const home = join(base, "home");
  const out = join(base, "out");
  for (const dir of [ws, home, out]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, ".gitconfig"), `[user]\n\tname = t\n\temail = t@e\n${c.gitconfig ?? ""}`);
  const env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    GIT_CONFIG_NOSYSTEM: "1",
  };
  const bash = (script: string) =>
    execFileSync("bash", ["-ec", script.replaceAll("$OUT", out)], { cwd: ws, env, stdio: "pipe" });
  bash(`git init -q . && ${c.before ?? "true"}`);
  const layout = surveySandbox({ mode: "workspace-write", network: false, roots: [ws], cwd: ws, home, env });
  bash(c.command);
  const report = sweep(layout, surveyPatterns());
  expect(report.incomplete).toEqual([]);
  expect(report.moved.map((m) => m.path).sort()).toEqual([...c.moved].sort());
  // What stays is safe: the person's git in every repository left in the workspace (a status, a commit that
  // runs the hooks) runs nothing the command planted.
  const left = execFileSync(
    "find",
    [ws, "-path", join(ws, ".toolgate"), "-prune", "-o", "-name", ".git", "-print"],
    {
      encoding: "utf8",
    },
  );
  for (const dotGit of left.split("\n").filter(Boolean)) {
    const dir = dirname(dotGit);
    // Whether git succeeds there does not matter (a repository with its config moved may refuse): only what ran.
    spawnSync("git", ["-C", dir, "status", "--short"], { env, stdio: "pipe" });
    spawnSync("git", ["-C", dir, "commit", "-q", "--allow-empty", "-m", "probe"], { env, stdio: "pipe" });
  }
  expect(existsSync(join(out, "ran")), "the person's git ran what the command planted").toBe(false);
});
