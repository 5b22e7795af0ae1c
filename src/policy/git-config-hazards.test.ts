import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hazardsInConfig, repositoryHazards, withGitConfigCheck } from "./git-config-hazards.js";
import { createCommandKind } from "./shell/index.js";

interface Case {
  note: string;
  config: string;
  want: string[];
}
const cases = JSON.parse(
  readFileSync(new URL("./testdata/git-config-cases.json", import.meta.url), "utf8"),
) as Case[];

describe("hazardsInConfig (testdata/git-config-cases.json)", () => {
  it.each(cases.map((c) => [c.note, c] as const))("%s", (_note, c) => {
    const keys = hazardsInConfig(c.config).map((h) => h.split(" (")[0]);
    expect(keys).toEqual(c.want);
  });
});

describe("repositoryHazards", () => {
  it("reads the repository of a sub-folder, and a .git file's gitdir", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "tg-hz-")));
    await mkdir(join(dir, ".git"), { recursive: true });
    await writeFile(join(dir, ".git", "config"), '[diff "c"]\n\ttextconv = x\n');
    await mkdir(join(dir, "a", "b"), { recursive: true });
    expect(repositoryHazards(join(dir, "a", "b"))).toEqual([
      expect.stringMatching(/^repository config sets diff\.c\.textconv \(a textconv driver/),
    ]);
    await mkdir(join(dir, "wt"));
    await mkdir(join(dir, "elsewhere"));
    await writeFile(join(dir, "wt", ".git"), "gitdir: ../elsewhere\n");
    await writeFile(join(dir, "elsewhere", "config"), "[diff]\n\texternal = x\n");
    expect(repositoryHazards(join(dir, "wt"))).toEqual([
      expect.stringContaining("repository config sets diff.external"),
    ]);
  });

  it("the wrapped command kind marks only git commands in such a repository", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "tg-hz-")));
    await mkdir(join(dir, ".git"));
    await writeFile(join(dir, ".git", "config"), '[filter "f"]\n\tclean = touch x\n');
    const kind = withGitConfigCheck(createCommandKind());
    const git = await kind.prepare("git status", { roots: [dir], args: {} });
    expect(git.unsafe).toEqual([expect.stringContaining("filter.f.clean")]);
    const ls = await kind.prepare("ls", { roots: [dir], args: {} });
    expect(ls.unsafe).toEqual([]);
    const test = kind.operators.prefix!(["git status"]);
    expect(test(git, "allow")).toEqual({
      ask: expect.stringContaining("repository config sets filter.f.clean"),
    });
  });

  it("sees a config written after an earlier check (no stale cache)", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "tg-hz-")));
    await mkdir(join(dir, ".git"));
    await writeFile(join(dir, ".git", "config"), "[core]\n\tbare = false\n");
    expect(repositoryHazards(dir)).toEqual([]);
    await writeFile(join(dir, ".git", "config"), "[core]\n\tbare = false\n[diff]\n\texternal = x\n");
    expect(repositoryHazards(dir)).toEqual([expect.stringContaining("diff.external")]);
  });

  // git reads `.git/config.worktree` only when `.git/config` turns `extensions.worktreeConfig` on: each row
  // is checked against git itself, so the shortcut can never skip a file git reads.
  it.each([
    ["no extension", "", false],
    ["worktreeConfig = true", "[extensions]\n\tworktreeConfig = true\n", true],
    ["worktreeConfig = yes", "[extensions]\n\tworktreeconfig = yes\n", true],
    ["worktreeConfig with no value", "[extensions]\n\tworktreeConfig\n", true],
    ["worktreeConfig = false", "[extensions]\n\tworktreeConfig = false\n", false],
    ["worktreeConfig = off", "[extensions]\n\tworktreeConfig = OFF\n", false],
  ] as const)("reads config.worktree as git does: %s", async (_note, extension, read) => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "tg-hz-")));
    execFileSync("git", ["init", "-q"], { cwd: dir });
    const config = join(dir, ".git", "config");
    await writeFile(config, `${readFileSync(config, "utf8")}${extension}`);
    await writeFile(join(dir, ".git", "config.worktree"), "[diff]\n\texternal = x\n");
    const listed = execFileSync("git", ["config", "--list", "--show-origin"], { cwd: dir, encoding: "utf8" });
    expect(listed.includes("config.worktree")).toBe(read);
    expect(repositoryHazards(dir)).toEqual(read ? [expect.stringContaining("diff.external")] : []);
    // Turning it on later is seen at once.
    if (!read) {
      await writeFile(config, `${readFileSync(config, "utf8")}[extensions]\n\tworktreeConfig = true\n`);
      expect(repositoryHazards(dir)).toEqual([expect.stringContaining("diff.external")]);
    }
  });
});
