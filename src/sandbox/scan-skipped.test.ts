/**
 * The names-only walk of skipped folders: what it finds there (repositories, links, protected names), that a
 * listing kept between walks never hides a change, and that past its budget it says so (the survey refuses and
 * the check after a command is incomplete) rather than skipping quietly.
 */
import { mkdir, mkdtemp, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { rawOf } from "./descriptors.js";
import { listFolder, type ScanResult, scanRoot } from "./scan.js";
import { walkSkipped } from "./scan-skipped.js";
import { SandboxSetupError, surveyPatterns, surveySandbox } from "./survey.js";
import { sweep } from "./sweep.js";

let base: string;
beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "toolgate-scan-skipped-")));
});
afterAll(() => rm(base, { recursive: true, force: true }));

const rules = { ...surveyPatterns(), unchecked: new Set<string>() };
const relatives = (found: { relative: string }[]) => found.map((f) => f.relative).sort();

it("finds repositories, links and protected names inside skipped folders, and nothing of the secret search", async () => {
  const root = join(base, "finds");
  await mkdir(join(root, "node_modules", "a", ".git"), { recursive: true });
  await mkdir(join(root, "node_modules", "b", ".vscode"), { recursive: true });
  await mkdir(join(root, ".venv", "src", "p", ".hg"), { recursive: true });
  await writeFile(join(root, ".venv", "src", "p", ".hg", "hgrc"), "[paths]\n");
  await writeFile(join(root, "node_modules", "c.env"), "x");
  await writeFile(join(root, "node_modules", ".env"), "SECRET=1");
  await writeFile(join(root, "node_modules", "b", ".git"), "gitdir: /elsewhere\n");
  await symlink("/etc/passwd", join(root, "node_modules", ".package-lock.json"));
  const scan = scanRoot(rawOf(root), rules);
  expect(relatives(scan.gitDirs)).toEqual(["node_modules/a/.git"]);
  expect(relatives(scan.gitFiles)).toEqual(["node_modules/b/.git"]);
  expect(relatives(scan.links)).toEqual(["node_modules/.package-lock.json"]);
  expect(relatives(scan.hgDirs)).toEqual([".venv/src/p/.hg"]);
  // An existing .hg's config is read-only like the root's; other protected names are judged after a command.
  expect(relatives(scan.protected)).toEqual([".venv/src/p/.hg/hgrc"]);
  expect(relatives(scan.skippedProtected)).toEqual(["node_modules/.env", "node_modules/b/.vscode"]);
  expect(relatives(scan.secrets)).toEqual([]);
  expect(scan.skippedOver).toBeUndefined();
});

it("sees a link made in a folder whose listing was kept", async () => {
  const root = join(base, "kept");
  const folder = join(root, "node_modules", "x");
  await mkdir(folder, { recursive: true });
  for (;;) {
    const s = await stat(folder);
    if (Math.max(s.mtimeMs, s.ctimeMs) < Date.now() - 2100) break;
    await new Promise((done) => setTimeout(done, 100));
  }
  expect(relatives(scanRoot(rawOf(root), rules).links)).toEqual([]);
  expect(listFolder(rawOf(folder))).toBe(listFolder(rawOf(folder)));
  await symlink("/etc/passwd", join(folder, "out"));
  expect(relatives(scanRoot(rawOf(root), rules).links)).toEqual(["node_modules/x/out"]);
});

it("past its budget says what it did not look through: the survey refuses, the check is incomplete", async () => {
  const root = join(base, "budget");
  await mkdir(join(root, "node_modules", "a", "b", "c"), { recursive: true });
  const out: ScanResult = {
    root: rawOf(root),
    protected: [],
    secrets: [],
    gitDirs: [],
    gitFiles: [],
    unreadable: [],
    unscanned: [],
    links: [],
    hgDirs: [],
    skippedProtected: [],
    pycache: [],
    pythonCode: [],
    dirs: 0,
  };
  const start = { path: rawOf(join(root, "node_modules")), relative: "node_modules", kind: "dir" as const };
  walkSkipped(rawOf(root), [start], { ...rules, skippedMaxDirs: 2 }, out, listFolder);
  expect(out.skippedOver).toMatch(/more than 2\) were not looked through/);
  const enough = { ...out, skippedOver: undefined };
  walkSkipped(rawOf(root), [start], { ...rules, skippedMaxDirs: 4 }, enough, listFolder);
  expect(enough.skippedOver).toBeUndefined();

  // Through the survey and the check, with the budget's folders made for real (an unbudgeted walk passes).
  const ws = join(base, "ws");
  await mkdir(join(ws, "node_modules"), { recursive: true });
  const input = { mode: "workspace-write" as const, network: false, roots: [ws], cwd: ws, home: base };
  const layout = surveySandbox(input);
  expect(sweep(layout, surveyPatterns()).incomplete).toEqual([]);
  const many = Array.from({ length: 30 }, (_, i) => join(ws, "node_modules", `d${i}`));
  for (const dir of many) await mkdir(dir);
  const small = { ...surveyPatterns(), skippedMaxDirs: 10 };
  expect(() => surveySandbox({ ...input, skippedMaxDirs: 10 })).toThrow(SandboxSetupError);
  expect(sweep(layout, small).incomplete.join("\n")).toMatch(/were not looked through/);
});
