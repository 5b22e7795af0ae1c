import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import GIT_ENV from "../tools/shell/git-env.json" with { type: "json" };
import { hazardsInConfig, repositoryHazards, withGitConfigCheck } from "./git-config-hazards.js";
import { gitHazardTables, NEUTRALISED_GIT_KEYS } from "./git-hazards.js";
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

describe("git-hazards.json", () => {
  it("each neutralised key names a switch toolgate sets (git-env.json), or git's own rule", () => {
    const switches = new Set([
      ...GIT_ENV.config.map((c) => `${c.key}=${c.value}`.toLowerCase()),
      ...Object.entries(GIT_ENV.fixed).map(([k, v]) => `${k}=${v}`.toLowerCase()),
      "git ignores it in repository config",
    ]);
    for (const key of NEUTRALISED_GIT_KEYS)
      expect(switches, key.key).toContain(key.neutralisedBy!.toLowerCase());
  });

  it("docs/trust.md shows the tables generated from it", () => {
    const page = new URL("../../docs/trust.md", import.meta.url);
    const START = "<!-- git-hazards:start (generated from src/policy/git-hazards.json) -->";
    const END = "<!-- git-hazards:end -->";
    const text = readFileSync(page, "utf8");
    const from = text.indexOf(START);
    const to = text.indexOf(END);
    expect(from, "docs/trust.md lacks the git-hazards markers").toBeGreaterThan(-1);
    const want = `${START}\n${gitHazardTables()}\n${END}`;
    if (process.env.UPDATE_DOCS === "1") {
      writeFileSync(page, text.slice(0, from) + want + text.slice(to + END.length));
      return;
    }
    expect(text.slice(from, to + END.length)).toBe(want);
  });
});

describe("which repository a git command reads", () => {
  const repo = async (dir: string, config = "") => {
    await mkdir(join(dir, ".git"), { recursive: true });
    await writeFile(join(dir, ".git", "config"), config);
  };
  const check = (command: string, root: string, cwd?: string) =>
    withGitConfigCheck(createCommandKind()).prepare(command, { roots: [root], args: cwd ? { cwd } : {} });

  it("follows -C, --git-dir, --work-tree, --bare, cd and GIT_DIR= to the repository git uses", async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), "tg-hz-")));
    await repo(root);
    await repo(join(root, "a"), "[diff]\n\texternal = x\n");
    await mkdir(join(root, "plain"));
    const named = expect.stringContaining("the repository config in a sets diff.external");
    for (const command of [
      "git -C a diff",
      "git -C plain -C ../a diff",
      "git --git-dir=a/.git diff",
      "git --git-dir a/.git diff",
      "git --work-tree=a diff",
      "git -C a/.git --bare log",
      "cd a && git diff",
      "cd plain; cd ../a && git diff",
      "GIT_DIR=a/.git git diff",
      "GIT_WORK_TREE=a git diff",
    ])
      expect((await check(command, root)).unsafe, command).toContainEqual(named);
    for (const command of ["git diff", "(cd a); git diff", "cd a | git diff", "git -C plain diff"])
      expect((await check(command, root)).unsafe, command).not.toContainEqual(named);
    // The call's cwd, then a -C from there.
    expect((await check("git -C ../a diff", root, "plain")).unsafe).toContainEqual(
      expect.stringContaining("the repository config in ../a sets diff.external"),
    );
  });

  it("reads a config file GIT_CONFIG_GLOBAL= names", async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), "tg-hz-")));
    await repo(root);
    await writeFile(join(root, "evil.cfg"), "[alias]\n\tx = !touch y\n");
    expect((await check("GIT_CONFIG_GLOBAL=evil.cfg git x", root)).unsafe).toContainEqual(
      expect.stringContaining(`config file ${join(root, "evil.cfg")} sets alias.x`),
    );
  });

  it("does not vouch for git where the folder is not known", async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), "tg-hz-")));
    await repo(root);
    expect((await check("cd - && git status", root)).unsafe).toContainEqual(
      expect.stringContaining("git runs in a folder the analysis cannot tell"),
    );
  });

  it("reads submodules' configs for status and --recurse-submodules, nested ones and embedded ones too", async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), "tg-hz-")));
    await repo(root);
    const gitDir = async (dir: string, config: string) => {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, "HEAD"), "ref: refs/heads/main\n");
      await writeFile(join(dir, "config"), config);
    };
    await gitDir(join(root, ".git", "modules", "lib", "deep"), '[filter "f"]\n\tclean = x\n');
    await gitDir(
      join(root, ".git", "modules", "lib", "deep", "modules", "inner"),
      "[diff]\n\texternal = y\n",
    );
    await writeFile(join(root, ".gitmodules"), '[submodule "old"]\n\tpath = vendor/old\n');
    await repo(join(root, "vendor", "old"), "[alias]\n\tz = !w\n");
    const status = (await check("git status", root)).unsafe.join("\n");
    expect(status).toContain("the config of submodule .git/modules/lib/deep sets filter.f.clean");
    expect(status).toContain(
      "the config of submodule .git/modules/lib/deep/modules/inner sets diff.external",
    );
    expect(status).toContain("the config of submodule vendor/old sets alias.z");
    expect((await check("git grep --recurse-submodules x", root)).unsafe).toHaveLength(3);
    expect((await check("git diff --submodule=diff", root)).unsafe).toHaveLength(3);
    expect((await check("git log", root)).unsafe).toEqual([]);
    // The repository's own config can make every command go in.
    await writeFile(join(root, ".git", "config"), "[submodule]\n\trecurse = true\n");
    expect((await check("git log", root)).unsafe).toHaveLength(3);
  });

  it("a repository with more submodules than are checked is not vouched for", async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), "tg-hz-")));
    await repo(root);
    for (let i = 0; i < 65; i++) {
      await mkdir(join(root, ".git", "modules", `m${i}`), { recursive: true });
      await writeFile(join(root, ".git", "modules", `m${i}`, "HEAD"), "ref: refs/heads/main\n");
    }
    expect((await check("git status", root)).unsafe).toEqual([
      "repository config could not be checked (too many submodules to check)",
    ]);
  });
});
