/**
 * The names-only walk of skipped folders: what it finds there (repositories, links, protected names), that a
 * listing kept between walks never hides a change, and that past its budget nothing is left unjudged and nothing
 * refuses later commands: the survey keeps what it did not read read-only, the check moves what the command made.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { rawOf } from "./descriptors.js";
import { listFolder, type ScanResult, scanRoot } from "./scan.js";
import { walkSkipped } from "./scan-skipped.js";
import { surveyPatterns, surveySandbox } from "./survey.js";
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
  // A command makes folders side by side in the person's node_modules, past the budget (red team H3): they are
  // moved, the check finishes, and the next survey runs.
  const many = Array.from({ length: 30 }, (_, i) => join(ws, "node_modules", `d${i}`));
  for (const dir of many) await mkdir(dir);
  const small = { ...surveyPatterns(), skippedMaxDirs: 10 };
  const report = sweep(layout, small);
  expect(report.incomplete).toEqual([]);
  expect(report.moved).toHaveLength(1);
  expect(report.moved[0]!.why).toMatch(
    /folders the command made inside skipped folders, more than the check reads \(10\)/,
  );
  expect(many.filter((dir) => existsSync(dir))).toEqual([]);
  expect(() => surveySandbox({ ...input, skippedMaxDirs: 10 })).not.toThrow();
});

/** Waits until the folder's birth time is more than the check's slack (1 s) behind (it counts as older). */
async function settledBirth(path: string): Promise<void> {
  while (Date.now() - (await stat(path)).birthtimeMs <= 1100)
    await new Promise((done) => setTimeout(done, 50));
}

it("a folder tree the command made past the budget is moved whole; the person's own folders stay (H3)", async () => {
  const ws = join(base, "h3");
  await mkdir(join(ws, "node_modules", ".cache"), { recursive: true });
  const own = Array.from({ length: 5 }, (_, i) => join(ws, "node_modules", `own${i}`));
  for (const dir of own) await mkdir(dir);
  await settledBirth(own.at(-1)!);
  const input = { mode: "workspace-write" as const, network: false, roots: [ws], cwd: ws, home: base };
  const layout = surveySandbox({ ...input, skippedMaxDirs: 10 });
  // The command makes a tree in the existing .cache: moved whole (one line); the person's folders stay.
  const tree = join(ws, "node_modules", ".cache", "x");
  await mkdir(tree);
  for (let i = 0; i < 30; i++) await mkdir(join(tree, `${i}`));
  const report = sweep(layout, { ...surveyPatterns(), skippedMaxDirs: 10 });
  expect(report.incomplete).toEqual([]);
  expect(report.moved.map((m) => m.path)).toEqual(["node_modules/.cache/x"]);
  expect(existsSync(tree)).toBe(false);
  expect(own.every((dir) => existsSync(dir))).toBe(true);
  expect(existsSync(join(ws, "node_modules", ".cache"))).toBe(true);
  expect(() => surveySandbox({ ...input, skippedMaxDirs: 10 })).not.toThrow();
});

it("the person's own folders past the budget: not refused, kept read-only, and the check is complete", async () => {
  const ws = join(base, "own-only");
  const own = Array.from({ length: 30 }, (_, i) => join(ws, "node_modules", `p${i}`));
  for (const dir of own) await mkdir(dir, { recursive: true });
  await settledBirth(own.at(-1)!);
  const input = { mode: "workspace-write" as const, network: false, roots: [ws], cwd: ws, home: base };
  const layout = surveySandbox({ ...input, skippedMaxDirs: 10 });
  const readOnly = [...layout.covers].filter(([p, kind]) => kind === "self" && p.includes("/node_modules/"));
  expect(readOnly.length).toBeGreaterThan(0);
  expect(layout.notes.join("\n")).toMatch(/stayed read-only for this command/);
  const report = sweep(layout, { ...surveyPatterns(), skippedMaxDirs: 10 });
  expect(report).toMatchObject({ incomplete: [], moved: [] });
  // Unread folders the survey did not keep read-only (it read them all then) and nothing new: incomplete.
  const before = surveySandbox(input);
  expect(sweep(before, { ...surveyPatterns(), skippedMaxDirs: 10 }).incomplete.join("\n")).toMatch(
    /were not looked through/,
  );
});
