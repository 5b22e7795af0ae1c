/**
 * What the check moves to the quarantine must not run when the person looks at it: real temp folders, a real
 * repository whose config would run a program (`core.fsmonitor`) when git reads it, and the person's `git
 * status` run there afterwards. What is renamed, what is left alone (links, files, folders that are no git
 * folder), and what makes defusing fail (so the check reports an incomplete move).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { closeSync, existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFUSED_SUFFIX, defuseMoved, quarantinedName } from "./defuse.js";
import { openFolder, rawOf } from "./descriptors.js";

let base: string;
let quarantine: string;
let canary: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "toolgate-defuse-"));
  quarantine = join(base, "quarantine");
  await mkdir(quarantine);
  canary = join(base, "ran");
});
afterEach(async () => {
  await chmod(base, 0o700).catch(() => undefined);
  await rm(base, { recursive: true, force: true });
});

/** A repository at `dir` whose every `git status` would run a program that makes the canary. */
async function plantedRepository(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  execFileSync("git", ["init", "-q", dir]);
  execFileSync("git", ["-C", dir, "config", "core.fsmonitor", `touch ${canary}; false`]);
}

/** The person's `git status` in `dir`, never walking above the temp folder. */
function personsStatus(dir: string) {
  return spawnSync("git", ["status", "--short"], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, GIT_CEILING_DIRECTORIES: base },
  });
}

/** Calls defuseMoved the way the check does: through the opened quarantine folder. */
function defuse(name: string): void {
  const fd = openFolder(rawOf(quarantine));
  if (fd === undefined) throw new Error("quarantine folder not opened");
  try {
    defuseMoved(fd, name, rawOf(join(quarantine, name)));
  } finally {
    closeSync(fd);
  }
}

describe("quarantinedName", () => {
  it.each([
    [".git", `.git${DEFUSED_SUFFIX}`],
    [".hg", `.hg${DEFUSED_SUFFIX}`],
    [".github", ".github"],
    [".gitmodules", ".gitmodules"],
    ["tasks.json", "tasks.json"],
  ])("%s is stored as %s", (name, stored) => {
    expect(quarantinedName(name)).toBe(stored);
  });
});

describe("defuseMoved", () => {
  it("the control: the planted repository runs its program on the person's git status", async () => {
    const work = join(base, "work");
    await plantedRepository(work);
    personsStatus(work);
    expect(existsSync(canary)).toBe(true);
  });

  it("a moved .git folder, stored under its new name, loses HEAD: git there finds no repository, runs nothing", async () => {
    const work = join(base, "work");
    await plantedRepository(work);
    const stored = quarantinedName(".git");
    await rename(join(work, ".git"), join(quarantine, stored));
    defuse(stored);
    expect(existsSync(join(quarantine, stored, "HEAD"))).toBe(false);
    expect(await readFile(join(quarantine, stored, `HEAD${DEFUSED_SUFFIX}`), "utf8")).toMatch(
      /^ref: refs\/heads\//,
    );
    // Nothing else is touched: the config (the evidence) is still there.
    expect(await readFile(join(quarantine, stored, "config"), "utf8")).toContain("fsmonitor");
    for (const dir of [quarantine, join(quarantine, stored)]) {
      const r = personsStatus(dir);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/not a git repository/);
    }
    expect(existsSync(canary)).toBe(false);
  });

  it("a git-shaped folder moved under its own name (HEAD, objects, refs) is defused the same way", async () => {
    const bare = join(base, "lib");
    execFileSync("git", ["init", "-q", "--bare", bare]);
    execFileSync("git", ["-C", bare, "config", "core.fsmonitor", `touch ${canary}; false`]);
    await rename(bare, join(quarantine, "lib"));
    defuse("lib");
    expect(existsSync(join(quarantine, "lib", `HEAD${DEFUSED_SUFFIX}`))).toBe(true);
    expect(personsStatus(join(quarantine, "lib")).stderr).toMatch(/not a git repository/);
    expect(existsSync(canary)).toBe(false);
  });

  it("a moved folder has every repository inside it defused, at any depth (a .git, a .hg, a bare git folder)", async () => {
    const moved = join(base, ".devcontainer");
    await plantedRepository(join(moved, "pkg"));
    await plantedRepository(join(moved, "a", "b", "deep"));
    execFileSync("git", ["init", "-q", "--bare", join(moved, "store")]);
    execFileSync("git", ["-C", join(moved, "store"), "config", "core.fsmonitor", `touch ${canary}; false`]);
    await mkdir(join(moved, "hgrepo", ".hg"), { recursive: true });
    await chmod(join(moved, "a", "b", "deep"), 0o555);
    await rename(moved, join(quarantine, ".devcontainer"));
    defuse(".devcontainer");
    const inQuarantine = join(quarantine, ".devcontainer");
    expect(existsSync(join(inQuarantine, "pkg", ".git"))).toBe(false);
    expect(existsSync(join(inQuarantine, "pkg", `.git${DEFUSED_SUFFIX}`, `HEAD${DEFUSED_SUFFIX}`))).toBe(
      true,
    );
    expect(existsSync(join(inQuarantine, "a", "b", "deep", `.git${DEFUSED_SUFFIX}`))).toBe(true);
    expect(existsSync(join(inQuarantine, "store", `HEAD${DEFUSED_SUFFIX}`))).toBe(true);
    expect(existsSync(join(inQuarantine, "hgrepo", `.hg${DEFUSED_SUFFIX}`))).toBe(true);
    for (const dir of ["pkg", "a/b/deep", "store", `pkg/.git${DEFUSED_SUFFIX}`])
      personsStatus(join(inQuarantine, dir));
    expect(existsSync(canary)).toBe(false);
  });

  it("a folder the command made read-only gets its owner's permissions back, then HEAD is renamed", async () => {
    const work = join(base, "work");
    await plantedRepository(work);
    const stored = quarantinedName(".git");
    await rename(join(work, ".git"), join(quarantine, stored));
    await chmod(join(quarantine, stored), 0o555);
    defuse(stored);
    expect(existsSync(join(quarantine, stored, `HEAD${DEFUSED_SUFFIX}`))).toBe(true);
    expect(existsSync(join(quarantine, stored, "HEAD"))).toBe(false);
    // Given back only when the rename was refused (a user who is not root); root renames without it.
    const mode = (await stat(join(quarantine, stored))).mode & 0o777;
    expect(process.getuid?.() === 0 ? mode : mode & 0o700).toBe(process.getuid?.() === 0 ? 0o555 : 0o700);
  });

  it("a link is not followed: the repository it names keeps its HEAD", async () => {
    const elsewhere = join(base, "elsewhere");
    await plantedRepository(elsewhere);
    await symlink(join(elsewhere, ".git"), join(quarantine, ".git.quarantined"));
    defuse(".git.quarantined");
    expect(existsSync(join(elsewhere, ".git", "HEAD"))).toBe(true);
    expect(existsSync(join(elsewhere, ".git", `HEAD${DEFUSED_SUFFIX}`))).toBe(false);
  });

  it("a .git file (a pointer), a folder without HEAD and a missing name are left as they are", async () => {
    await writeFile(join(quarantine, ".git.quarantined"), "gitdir: /elsewhere\n");
    await mkdir(join(quarantine, ".vscode"));
    await writeFile(join(quarantine, ".vscode", "tasks.json"), "{}");
    for (const name of [".git.quarantined", ".vscode", "missing"]) defuse(name);
    expect(await readFile(join(quarantine, ".git.quarantined"), "utf8")).toBe("gitdir: /elsewhere\n");
    expect(await readFile(join(quarantine, ".vscode", "tasks.json"), "utf8")).toBe("{}");
  });

  it("fails when HEAD cannot be renamed (the move is then incomplete: git would still take the folder for a repository)", async () => {
    const work = join(base, "work");
    await plantedRepository(work);
    const stored = quarantinedName(".git");
    await rename(join(work, ".git"), join(quarantine, stored));
    // A file cannot be renamed onto a folder that holds something, not even by root.
    await mkdir(join(quarantine, stored, `HEAD${DEFUSED_SUFFIX}`, "x"), { recursive: true });
    expect(() => defuse(stored)).toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(existsSync(join(quarantine, stored, "HEAD"))).toBe(true);
  });
});
