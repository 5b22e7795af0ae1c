/**
 * While a command runs, the person's own tools run git on the host (an editor's git view, a shell prompt): a
 * `commondir` or `config.worktree` the command wrote would be followed then, before any check after the command.
 * Both are blocked while the command runs with a placeholder git reads as nothing; the host's git works as
 * before meanwhile, and the placeholder is gone after. Through the real binary and bwrap; each attack first
 * shown to work on the host without the sandbox (so the test can fail).
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN } from "../test-support/cli.js";

let base: string;
let env: Record<string, string>;
let policy: string;

beforeAll(async () => {
  base = await mkdtemp("/var/tmp/toolgate-git-window-");
  const xdg = join(base, "xdg");
  await mkdir(join(xdg, "toolgate"), { recursive: true });
  policy = join(base, "policy.toml");
  await writeFile(policy, 'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "allow"\n');
  env = { XDG_CONFIG_HOME: xdg, HOME: join(base, "home") };
});
afterAll(() => rm(base, { recursive: true, force: true }));

const wait = (ms: number) => new Promise((done) => setTimeout(done, ms));
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd, encoding: "utf8" });

/** What the command writes into the repository's git folder, and how the repository is set up for it. */
const attacks = [
  {
    name: "commondir naming a folder whose config sets core.fsmonitor",
    file: "commondir",
    setUp: (_ws: string) => {},
    // A copy of the objects and refs, so git on the host works on it and reads its config.
    prepare: (ws: string) =>
      "git init -q --bare evilgit && rm -rf evilgit/objects evilgit/refs && cp -r .git/objects .git/refs evilgit/ && " +
      `git --git-dir=evilgit config core.fsmonitor "touch ${ws}/PWNED; false"`,
    content: () => "../evilgit\\n",
  },
  {
    name: "config.worktree setting core.fsmonitor where extensions.worktreeConfig is on",
    file: "config.worktree",
    setUp: (ws: string) => {
      git(ws, "config", "core.repositoryformatversion", "1");
      git(ws, "config", "extensions.worktreeConfig", "true");
    },
    prepare: () => "true",
    content: (ws: string) => `[core]\\n\\tfsmonitor = "touch ${ws}/PWNED; false"\\n`,
  },
];

describe.each(attacks)("a command writing $file", (attack) => {
  let ws: string;
  beforeAll(async () => {
    ws = join(base, attack.file);
    await mkdir(ws);
    git(ws, "init", "-q");
    git(ws, "commit", "-q", "--allow-empty", "-m", "one");
    attack.setUp(ws);
    await writeFile(
      join(base, "xdg", "toolgate", "trusted.json"),
      JSON.stringify({ version: 1, trusted: [{ path: base, since: new Date(0).toISOString() }] }),
    );
  });

  it("works on the host without the sandbox (the row can fail)", async () => {
    const copy = join(base, `${attack.file}-host`);
    await mkdir(copy);
    git(copy, "init", "-q");
    git(copy, "commit", "-q", "--allow-empty", "-m", "one");
    attack.setUp(copy);
    execFileSync(
      "bash",
      ["-c", `${attack.prepare(copy)} && printf '${attack.content(copy)}' > .git/${attack.file}`],
      {
        cwd: copy,
      },
    );
    git(copy, "status", "--porcelain");
    expect(existsSync(join(copy, "PWNED"))).toBe(true);
  });

  it("cannot write it while it runs; git on the host works meanwhile and runs nothing; nothing is left", async () => {
    const command =
      `${attack.prepare(ws)}; echo "prepared=$?" > out.txt; ` +
      `printf '${attack.content(ws)}' 2>/dev/null > .git/${attack.file}; echo "wrote=$?" >> out.txt; ` +
      "rm -f .git/" +
      attack.file +
      ' 2>/dev/null; echo "removed=$?" >> out.txt; while [ ! -e go ]; do sleep 0.05; done';
    const child = spawn(
      process.execPath,
      [BIN, "call", "shell", JSON.stringify({ command }), "--workspace", ws, "--policy", policy],
      { cwd: ws, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const exited = new Promise<number | null>((done) => child.once("exit", done));
    // Wait (for state) until the command has tried both.
    const tried = () =>
      existsSync(join(ws, "out.txt")) && /removed=/.test(readFileSync(join(ws, "out.txt"), "utf8"));
    for (let i = 0; i < 1200 && !tried(); i++) await wait(50);
    expect(tried(), output).toBe(true);
    const said = readFileSync(join(ws, "out.txt"), "utf8");
    expect(said).toMatch(/prepared=0/);
    expect(said).toMatch(/wrote=[1-9]/);
    expect(said).toMatch(/removed=[1-9]/);
    // Meanwhile, the person's git: the same repository, its own config, nothing run.
    expect(resolve(ws, git(ws, "rev-parse", "--git-common-dir").trim())).toBe(join(ws, ".git"));
    expect(git(ws, "status", "--porcelain")).not.toMatch(/fatal/);
    expect(existsSync(join(ws, "PWNED"))).toBe(false);
    await writeFile(join(ws, "go"), "");
    expect(await exited, output).toBe(0);
    // The placeholder is removed when the process ends (it lingers a few seconds for a next command).
    expect(existsSync(join(ws, ".git", attack.file))).toBe(false);
    git(ws, "status", "--porcelain");
    expect(existsSync(join(ws, "PWNED"))).toBe(false);
  });
});
