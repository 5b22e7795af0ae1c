/**
 * The repository config's allow-list through real bubblewrap: every row of testdata/git-repo-config.json that
 * leaves the repository readable is written into a real repository's `.git/config`, and one sandboxed command
 * reads the file and git's view of it (`cat`, `git config --list`) — no row's secret, and no dropped key, may
 * reach it; kept keys read as on the host. Then everyday git inside: status, diff, log, commit, and a fetch from
 * a local remote. Run as a user that is not root (vitest.sandbox.config.ts).
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolgate, type Toolgate } from "../toolgate.js";
import table from "./testdata/git-repo-config.json" with { type: "json" };

interface Row {
  note: string;
  key: string;
  value: string;
  kept: string | null;
  secret?: string;
  sandbox?: boolean;
}

const rows = (table.cases as Row[]).filter((row) => row.sandbox !== false);
let base: string;
let home: string;
let app: string;
let gate: Toolgate;
/** What the reading command printed (see beforeAll). */
let seen = "";
const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=Host", "-c", "user.email=host@example.com", ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });

/** A key as `git config --list` prints it: section and name lower-cased, a subsection as written. */
function listedKey(key: string): string {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  if (first === last) return key.toLowerCase();
  return `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}${key.slice(last).toLowerCase()}`;
}

const run = async (command: string) => {
  const result = await gate.execute({ name: "shell", args: { command, timeout: 60_000 } });
  expect(result.sandbox).toBe("workspace-write");
  return { ok: result.ok, out: `${result.llmContent}` };
};

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "toolgate-repo-config-"));
  // Outside /tmp: the private /tmp inside would hide it whatever the home folder's rules.
  home = await mkdtemp("/var/tmp/toolgate-repo-config-home-");
  await writeFile(join(home, ".gitconfig"), "");
  const ws = join(base, "ws");
  app = join(ws, "app");
  const upstream = join(ws, "upstream.git");
  await mkdir(app, { recursive: true });
  git(ws, "init", "-q", "--bare", "-b", "main", upstream);
  git(app, "init", "-q", "-b", "main");
  await writeFile(join(app, "README.md"), "hello\n");
  git(app, "add", "README.md");
  git(app, "commit", "-qm", "init");
  git(app, "push", "-q", upstream, "main");
  // The remote moves on: a fetch inside has something to bring.
  const seed = join(base, "seed");
  git(base, "clone", "-q", upstream, seed);
  await writeFile(join(seed, "NEWS.md"), "news\n");
  git(seed, "add", "NEWS.md");
  git(seed, "commit", "-qm", "upstream change");
  git(seed, "push", "-q", "origin", "main");
  git(app, "remote", "add", "local", upstream);
  for (const row of rows) git(app, "config", "--add", row.key, row.value);
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = join(home, ".config");
  gate = await createToolgate({
    roots: [ws],
    policyText: 'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "allow"\n',
    config: { sandbox: { mode: "workspace-write" } },
  });
  gate.bus.onConfirmation(async () => ({ approved: true }));
  const read = await run("cd app && cat .git/config && echo '---list---' && git config --list --local");
  expect(read.ok, read.out).toBe(true);
  seen = read.out;
}, 180_000);

afterAll(async () => {
  process.env.HOME = saved.HOME;
  if (saved.XDG_CONFIG_HOME === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = saved.XDG_CONFIG_HOME;
  await gate?.close();
  await rm(base, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

describe("inside the sandbox, .git/config holds only the allow-list", () => {
  it.each(rows.map((row) => [row.note, row] as const))("%s", (_note, row) => {
    const listed = seen.slice(seen.indexOf("---list---")).split("\n");
    const key = listedKey(row.key);
    if (row.kept !== null) expect(listed).toContain(`${key}=${row.kept}`);
    if (row.kept !== row.value) expect(listed).not.toContain(`${key}=${row.value}`);
    if (row.kept === null && !rows.some((r) => listedKey(r.key) === key && r.kept !== null)) {
      expect(listed.some((line) => line.startsWith(`${key}=`))).toBe(false);
    }
    if (row.secret) expect(seen).not.toContain(row.secret);
  });

  it("the host's file is untouched", async () => {
    const config = await readFile(join(app, ".git", "config"), "utf8");
    for (const row of rows) if (row.secret) expect(config).toContain(row.secret);
  });
});

it("everyday git works inside: status, diff, log, commit, fetch from a local remote", async () => {
  await writeFile(join(app, "README.md"), "hello again\n");
  const { ok, out } = await run(
    [
      "cd app",
      "git status --short",
      "git diff --stat",
      "git log --oneline -1 --format=%s",
      "git commit -qam change",
      "git fetch -q local",
      "git log --format=%s -1 local/main",
      "git log --format=%an/%s -1",
    ].join(" && "),
  );
  expect(ok, out).toBe(true);
  expect(out).toContain(" M README.md");
  expect(out).toMatch(/1 file changed/);
  expect(out).toContain("init\n");
  expect(out).toContain("upstream change\nAda Tester/change\n");
  expect(git(app, "log", "--format=%s", "-1", "main").trim()).toBe("change");
  expect(git(app, "log", "--format=%s", "-1", "local/main").trim()).toBe("upstream change");
}, 120_000);
