/**
 * Secrets a sandboxed command must not read, by class rather than by name (testdata/home-secrets.json): inside a
 * visible toolchain folder only what runs is shown (its configuration stays hidden whatever it is called), the
 * workspace repository's own config and the user's config reach the command as filtered copies, and the files
 * either includes stay hidden — while the toolchains' programs still run and everyday git still works. Real
 * bubblewrap, a fake home folder; run as a user that is not root (vitest.sandbox.config.ts).
 */
import { spawnSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolgate, type Toolgate } from "../toolgate.js";
import table from "./testdata/home-secrets.json" with { type: "json" };

interface ConfigRow {
  note: string;
  key: string;
  value: string;
  secret?: boolean;
  inside?: string;
}

const marker = (kind: string, i: number) => `TGS${process.pid}${kind}${i}E`;
let base: string;
let home: string;
let ws: string;
let gate: Toolgate;
/** What one sandboxed command printed after reading everything it could (see beforeAll). */
let seen = "";
const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };

const git = (cwd: string, ...args: string[]) => {
  const r = spawnSync("git", args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
};
const fill = (value: string, kind: string, i: number) =>
  value.replaceAll("MARKER", marker(kind, i)).replaceAll("HOME/", `${home}/`);
const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "toolgate-home-secrets-"));
  // Outside /tmp: the private /tmp inside would hide it and every row would pass for the wrong reason.
  home = await mkdtemp("/var/tmp/toolgate-home-secrets-home-");
  ws = join(base, "ws");
  await mkdir(ws);
  for (const [i, row] of table.home.entries()) {
    const path = join(home, row.path);
    await mkdir(dirname(path), { recursive: true });
    // Files a git config includes must be config themselves (`#` starts a comment there); the rest are scripts.
    const config = /\.inc$|-tokens$/.test(row.path);
    await writeFile(path, config ? `# ${marker("H", i)}\n` : `#!/bin/sh\necho ${marker("H", i)}\n`);
    await chmod(path, 0o755);
  }
  await writeFile(join(home, ".gitconfig"), "");
  for (const [i, row] of table.userConfig.entries())
    git(home, "config", "--file", join(home, ".gitconfig"), "--add", row.key, fill(row.value, "U", i));
  git(ws, "init", "-q", "-b", "main");
  await writeFile(join(ws, "README.md"), "hello\n");
  git(ws, "add", "README.md");
  git(ws, "-c", "user.email=a@example.com", "-c", "user.name=A", "commit", "-qm", "init");
  for (const [i, row] of table.repo.entries()) git(ws, "config", "--add", row.key, fill(row.value, "R", i));
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = join(home, ".config");
  gate = await createToolgate({
    roots: [ws],
    policyText: 'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "allow"\n',
    config: { sandbox: { mode: "workspace-write" } },
  });
  gate.bus.onConfirmation(async () => ({ approved: true }));
  const reads = [
    `grep -RhoasE 'TGS${process.pid}[HRU][0-9]+E' ~ . 2>/dev/null`,
    ...table.home.map((row) => `cat ${quote(`${home}/${row.path}`)} 2>/dev/null`),
    ...table.home.filter((row) => row.seen).map((row) => `${quote(`${home}/${row.path}`)}`),
    "cat .git/config ~/.gitconfig ~/.config/git/config 2>/dev/null",
    "git config --list --show-origin; git remote -v",
    ...[...table.repo, ...table.userConfig].map(
      (row, i) => `echo "GET${i}=$(git config --get ${quote(row.key.toLowerCase())})"`,
    ),
  ];
  const result = await gate.execute({ name: "shell", args: { command: reads.join("\n"), timeout: 60_000 } });
  expect(result.sandbox).toBe("workspace-write");
  seen = `${result.llmContent}`;
}, 120_000);

afterAll(async () => {
  process.env.HOME = saved.HOME;
  if (saved.XDG_CONFIG_HOME === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = saved.XDG_CONFIG_HOME;
  await gate?.close();
  await rm(base, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

describe("the home folder: toolchains run, their configuration is hidden", () => {
  it.each(table.home.map((row, i) => [row.note, row, i] as const))("%s", (_note, row, i) => {
    if (row.seen) expect(seen).toContain(marker("H", i));
    else expect(seen).not.toContain(marker("H", i));
  });
});

const configRows = [
  ...table.repo.map((row, i) => ["repository", row as ConfigRow, marker("R", i), i] as const),
  ...table.userConfig.map(
    (row, i) => ["user", row as ConfigRow, marker("U", i), table.repo.length + i] as const,
  ),
];

describe("git config: credentials dropped, everything else as on the host", () => {
  it.each(configRows.map(([where, row, mark, at]) => [`${where}: ${row.note}`, row, mark, at] as const))(
    "%s",
    (_note, row, mark, at) => {
      if (row.secret) expect(seen).not.toContain(mark);
      expect(seen).toContain(`GET${at}=${row.inside ?? ""}\n`);
    },
  );

  it("the host's files are untouched (the copies are the command's only)", async () => {
    const config = await readFile(join(ws, ".git", "config"), "utf8");
    expect(config).toContain(marker("R", 0));
  });
});

it("everyday git works inside: status, diff, log, branch, commit", async () => {
  await writeFile(join(ws, "README.md"), "hello again\n");
  const command = [
    "git status --short",
    "git diff --stat",
    "git log --oneline -1",
    "git branch feature-x && git checkout -q feature-x",
    "git -c user.email=a@example.com commit -qam change",
    "git log --format=%s -1",
    "git branch --show-current",
  ].join(" && ");
  const result = await gate.execute({ name: "shell", args: { command, timeout: 60_000 } });
  const out = `${result.llmContent}`;
  expect(result.ok, out).toBe(true);
  expect(out).toContain("M README.md");
  expect(out).toMatch(/1 file changed/);
  expect(out).toContain("change\nfeature-x");
  expect(git(ws, "log", "--format=%s", "-1", "feature-x").trim()).toBe("change");
}, 120_000);
