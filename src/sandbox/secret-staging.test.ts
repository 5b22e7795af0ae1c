/**
 * F14: a command cannot read a hidden secret-named file, but it can make the person's next `git add -A` or
 * `git commit -a` commit it — by editing a `.gitignore` or the index. Each row of testdata/secret-staging.json
 * runs one command through the real pipeline and real bubblewrap (as a user that is not root:
 * vitest.sandbox.config.ts) and checks the result names exactly the secrets git would now stage, and that the
 * host's own `git add -A --dry-run` agrees.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createToolgate, type Toolgate } from "../toolgate.js";
import table from "./testdata/secret-staging.json" with { type: "json" };

interface Row {
  note: string;
  files: Record<string, string | undefined>;
  secrets: string[];
  command: string;
  reported: string[];
  indexed?: boolean;
}

let base: string;
let home: string;
const saved = { HOME: process.env.HOME };

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "toolgate-secret-staging-"));
  home = await mkdtemp("/var/tmp/toolgate-secret-staging-home-");
  process.env.HOME = home;
});
afterAll(async () => {
  process.env.HOME = saved.HOME;
  await rm(base, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=Host", "-c", "user.email=host@example.com", ...args], {
    cwd,
    encoding: "utf8",
  });

/** What the host's `git add -A` would stage (paths; a folder's files under it). */
const wouldStage = (ws: string) =>
  git(ws, "add", "-A", "--dry-run")
    .split("\n")
    .map((line) => /^add '(.*)'$/.exec(line)?.[1])
    .filter((path): path is string => path !== undefined);

const staged = (ws: string, path: string) =>
  wouldStage(ws).some((p) => p === path || p.startsWith(`${path}/`)) ||
  git(ws, "diff", "--cached", "--name-only").split("\n").includes(path);

it.each((table.cases as Row[]).map((row, i) => [row.note, row, i] as const))(
  "%s",
  async (_note, row, i) => {
    const ws = join(base, `ws-${i}`);
    await mkdir(ws);
    git(ws, "init", "-q", "-b", "main");
    for (const [path, text = ""] of Object.entries(row.files)) {
      await mkdir(dirname(join(ws, path)), { recursive: true });
      await writeFile(join(ws, path), text);
    }
    git(ws, "add", "-A");
    git(ws, "commit", "-qm", "init");
    for (const path of row.secrets) {
      await mkdir(dirname(join(ws, path)), { recursive: true });
      await writeFile(join(ws, path), "TOKEN=not-for-git\n");
    }
    const before = row.secrets.filter((path) => staged(ws, path));
    const gate: Toolgate = await createToolgate({
      roots: [ws],
      policyText: 'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "allow"\n',
      config: { sandbox: { mode: "workspace-write" } },
    });
    try {
      const result = await gate.execute({ name: "shell", args: { command: row.command, timeout: 60_000 } });
      const out = `${result.llmContent}`;
      expect(result.sandbox).toBe("workspace-write");
      expect(result.ok, out).toBe(true);
      const named = [...out.matchAll(/\[sandbox: (\S+) \(a secret-named (?:file|folder) in /g)].map(
        (m) => m[1],
      );
      expect(named.sort()).toEqual([...row.reported].sort());
      for (const path of row.reported) {
        expect(out).toMatch(
          row.indexed ? /is now in git's index after this command/ : /is no longer ignored by git/,
        );
        expect(row.secrets.some((s) => s === path || s.startsWith(`${path}/`))).toBe(true);
        // The line is true: the host's git would now stage it, and did not before.
        expect(staged(ws, path)).toBe(true);
      }
      for (const path of row.secrets.filter(
        (s) => !row.reported.some((r) => s === r || s.startsWith(`${r}/`)),
      ))
        if (staged(ws, path)) expect(before).toContain(path); // Stageable now only if it was before.
    } finally {
      await gate.close();
    }
  },
  120_000,
);
