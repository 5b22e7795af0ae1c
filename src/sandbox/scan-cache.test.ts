/**
 * What the sandbox keeps between commands to start them faster never hides a change: folder listings kept
 * while a folder's device, inode and times are unchanged (scan.ts), the user's git hooks paths kept while the
 * config files are unchanged (git-dirs.ts), and lingering placeholders covered by the one empty folder only
 * while they are empty (survey.ts). Each case makes the kept state real first (folders settled for the 2 s the
 * cache asks), then changes the disk the way an attack would and expects the change to be seen.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolgate, type Toolgate } from "../toolgate.js";
import { rawOf } from "./descriptors.js";
import { globalHooksPaths } from "./git-dirs.js";
import { listFolder, scanRoot } from "./scan.js";
import { surveyPatterns } from "./survey.js";

let base: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "toolgate-scan-cache-")));
});
afterAll(() => rm(base, { recursive: true, force: true }));

/** Waits until every path has been unchanged for longer than the caches' 2 s (a state, polled). */
async function settled(...paths: string[]): Promise<void> {
  for (;;) {
    const stats = await Promise.all(paths.map((p) => stat(p)));
    if (stats.every((s) => Math.max(s.mtimeMs, s.ctimeMs) < Date.now() - 2100)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const rules = { ...surveyPatterns(), unchecked: new Set<string>() };
const relatives = (found: { relative: string }[]) => found.map((f) => f.relative).sort();

describe("folder listings kept between walks", () => {
  it("are used only while the folder is unchanged: a name made, removed or swapped for a link is seen at once", async () => {
    const root = join(base, "walk");
    await mkdir(join(root, "a", "b"), { recursive: true });
    await writeFile(join(root, "a", "b", "plain.txt"), "x");
    await settled(root, join(root, "a"), join(root, "a", "b"));
    expect(relatives(scanRoot(rawOf(root), rules).secrets)).toEqual([]);
    // Kept: the same listing comes back without reading the folder.
    const b = rawOf(join(root, "a", "b"));
    expect(listFolder(b)).toBe(listFolder(b));

    await writeFile(join(root, "a", "b", ".env"), "SECRET=1");
    await mkdir(join(root, "a", "b", ".vscode"));
    await symlink("/etc/passwd", join(root, "a", "b", "out"));
    const after = scanRoot(rawOf(root), rules);
    expect(relatives(after.secrets)).toContain("a/b/.env");
    expect(relatives(after.protected)).toContain("a/b/.vscode");
    expect(relatives(after.links)).toEqual(["a/b/out"]);

    // The kept folder moved out and a link put in its place: never listed through the link.
    await settled(join(root, "a"), join(root, "a", "b"));
    expect(listFolder(b)).toBe(listFolder(b));
    await rename(join(root, "a", "b"), join(base, "moved-out"));
    await symlink(join(base, "moved-out"), join(root, "a", "b"));
    expect(() => listFolder(b)).toThrow(/link/);
    const swapped = scanRoot(rawOf(root), rules);
    expect(relatives(swapped.secrets)).toEqual([]);
    expect(relatives(swapped.links)).toEqual(["a/b"]);
  });
});

describe("the user's git hooks paths kept between surveys", () => {
  it("are read again when the config or a file it includes changes", async () => {
    const home = join(base, "home");
    await mkdir(home);
    await writeFile(join(home, ".gitconfig"), "[include]\n\tpath = included.cfg\n");
    await writeFile(join(home, "included.cfg"), "[core]\n\thooksPath = /first-hooks\n");
    await settled(join(home, ".gitconfig"), join(home, "included.cfg"));
    expect(globalHooksPaths(home, undefined)).toContain("/first-hooks");
    expect(globalHooksPaths(home, undefined)).toContain("/first-hooks");

    await writeFile(join(home, "included.cfg"), "[core]\n\thooksPath = /second-hooks\n");
    const second = globalHooksPaths(home, undefined);
    expect(second).toContain("/second-hooks");
    expect(second).not.toContain("/first-hooks");

    await settled(join(home, ".gitconfig"), join(home, "included.cfg"));
    expect(globalHooksPaths(home, undefined)).toContain("/second-hooks");
    await writeFile(join(home, ".gitconfig"), "[core]\n\thooksPath = /third-hooks\n");
    expect(globalHooksPaths(home, undefined)).toEqual(expect.arrayContaining(["/third-hooks"]));
    expect(globalHooksPaths(home, undefined)).not.toContain("/second-hooks");
  });
});

describe("commands in one process, with listings and placeholders kept between them", () => {
  let ws: string;
  let gate: Toolgate;
  const run = async (command: string) => {
    const result = await gate.execute({ name: "shell", args: { command } });
    expect(result.sandbox).toBe("workspace-write");
    return result.llmContent;
  };

  beforeAll(async () => {
    ws = join(base, "ws");
    await mkdir(join(ws, "packages", "app"), { recursive: true });
    gate = await createToolgate({
      roots: [ws],
      policyText: 'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "allow"\n',
      config: { sandbox: { mode: "workspace-write" } },
      logger: { warn: () => undefined },
    });
  });
  afterAll(() => gate.close());

  it("a protected file a command makes in a kept folder is quarantined; a secret it writes there is hidden next time", async () => {
    await settled(ws, join(ws, "packages"), join(ws, "packages", "app"));
    await run("true");
    const app = rawOf(join(ws, "packages", "app"));
    expect(listFolder(app)).toBe(listFolder(app));

    const made = await run(
      "mkdir -p packages/app/.vscode && echo '{}' > packages/app/.vscode/tasks.json && " +
        "echo TOKEN-IN-ENV > packages/app/.env",
    );
    expect(made).toContain("packages/app/.vscode");
    expect(existsSync(join(ws, "packages", "app", ".vscode"))).toBe(false);
    expect(await run("cat packages/app/.env; echo read-done")).not.toContain("TOKEN-IN-ENV");
  });

  it("a lingering placeholder someone filled is shown as it is (read-only), not as the empty folder", async () => {
    await run("true");
    // The placeholder made at the root for .vscode lingers after the command; the person fills it.
    expect((await stat(join(ws, ".vscode"))).isDirectory()).toBe(true);
    await writeFile(join(ws, ".vscode", "settings.json"), '{"person": true}');
    const shown = await run("cat .vscode/settings.json; touch .vscode/new 2>/dev/null && echo WROTE");
    expect(shown).toContain('"person": true');
    expect(shown).not.toContain("WROTE");
    // Emptied again: covered as a placeholder, still nothing can be made in it.
    await rm(join(ws, ".vscode", "settings.json"));
    expect(await run("mkdir -p .vscode/x 2>/dev/null && echo WROTE; echo done")).not.toContain("WROTE");
  });
});
