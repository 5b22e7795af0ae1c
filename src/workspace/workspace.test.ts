import { link, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WorkspaceError } from "./errors.js";
import { type PathIntent, Workspace } from "./workspace.js";

let base: string;
let root: string;
let ws: Workspace;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "tg-ws-")));
  root = join(base, "proj");
  for (const dir of [
    "proj/sub/deep",
    "proj-evil",
    "proj_backup",
    "proj2",
    "proj/.git/hooks",
    "proj/real-git",
  ]) {
    await mkdir(join(base, dir), { recursive: true });
  }
  for (const file of ["proj-evil/secret.txt", "proj_backup/x", "proj2/x", "outside.txt", "proj/real.txt"]) {
    await writeFile(join(base, file), `content of ${file}\n`);
  }
  await writeFile(join(root, "sub/inner.txt"), "inner\n");
  await symlink(join(base, "outside.txt"), join(root, "link-out"));
  await symlink(join(base, "proj-evil"), join(root, "dir-out"));
  await symlink(join(base, "outside.txt"), join(root, "c3"));
  await symlink("c3", join(root, "c2"));
  await symlink(join(root, "c2"), join(root, "c1"));
  await symlink("real.txt", join(root, "i2"));
  await symlink("i2", join(root, "i1"));
  await symlink(join(base, "created-by-attack.txt"), join(root, "dangle"));
  await symlink("../dangle-target-rel.txt", join(root, "dangle-rel"));
  await symlink("loop2", join(root, "loop1"));
  await symlink("loop1", join(root, "loop2"));
  await symlink(".git", join(root, "git-alias"));
  // A .git that is a symlink to an ordinary-looking folder: protected by the path as written.
  await symlink("../../real-git", join(root, "sub/deep/.git"));
  ws = await Workspace.create([root], { protectedPaths: [join(base, "state-dir"), "secrets/**"] });
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function codeOf(path: string, intent: PathIntent): Promise<string> {
  try {
    const resolved = await ws.resolve(path, intent);
    return `ok:${resolved.relative}`;
  } catch (error) {
    if (error instanceof WorkspaceError) return error.code;
    throw error;
  }
}

describe("Workspace.create", () => {
  it("canonicalizes roots and refuses a missing root", async () => {
    expect(ws.roots).toEqual([root]);
    await expect(Workspace.create([join(base, "nope")])).rejects.toThrow(
      `workspace root "${base}/nope" does not exist`,
    );
    await expect(Workspace.create([])).rejects.toThrow("a workspace needs at least one root");
    await expect(Workspace.create([join(root, "real.txt")])).rejects.toThrow("is not a directory");
  });
});

describe("resolve: adversarial paths (read and write)", () => {
  // [name, path, expected code for read, expected code for write]
  const table: [string, () => string, string, string][] = [
    ["prefix sibling proj-evil", () => "../proj-evil/secret.txt", "outside_root", "outside_root"],
    ["prefix sibling proj_backup", () => "../proj_backup/x", "outside_root", "outside_root"],
    ["prefix sibling proj2", () => "../proj2/x", "outside_root", "outside_root"],
    ["absolute prefix sibling", () => `${base}/proj-evil/secret.txt`, "outside_root", "outside_root"],
    ["absolute sibling without slash", () => `${root}-evil/secret.txt`, "outside_root", "outside_root"],
    [".. leading", () => "../outside.txt", "outside_root", "outside_root"],
    [".. in the middle", () => "sub/../../outside.txt", "outside_root", "outside_root"],
    [".. deep in the middle", () => "sub/deep/../../../outside.txt", "outside_root", "outside_root"],
    [".. trailing", () => "sub/deep/../../..", "outside_root", "outside_root"],
    [".. alone", () => "..", "outside_root", "outside_root"],
    ["./.. prefix", () => "./../outside.txt", "outside_root", "outside_root"],
    [".. that stays inside", () => "sub/../real.txt", "ok:real.txt", "ok:real.txt"],
    ["absolute outside", () => "/etc/passwd", "outside_root", "outside_root"],
    ["absolute inside", () => `${root}/real.txt`, "ok:real.txt", "ok:real.txt"],
    [
      "/proc/self/root to outside",
      () => `/proc/self/root${base}/outside.txt`,
      "outside_root",
      "outside_root",
    ],
    [
      "/proc/self/root to inside is contained",
      () => `/proc/self/root${root}/real.txt`,
      "ok:real.txt",
      "ok:real.txt",
    ],
    ["~ is a literal name", () => "~/notes.txt", "not_found", "ok:~/notes.txt"],
    ["~ alone is a literal name", () => "~", "not_found", "ok:~"],
    ["%2e%2e stays literal", () => "%2e%2e/%2e%2e/outside.txt", "not_found", "ok:%2e%2e/%2e%2e/outside.txt"],
    ["NUL byte", () => "real.txt\0.png", "invalid_path", "invalid_path"],
    ["NUL byte with traversal", () => "../\0outside.txt", "invalid_path", "invalid_path"],
    ["Windows drive", () => "C:\\Windows\\win.ini", "invalid_path", "invalid_path"],
    ["Windows drive relative", () => "c:foo", "invalid_path", "invalid_path"],
    ["UNC", () => "\\\\server\\share\\x", "invalid_path", "invalid_path"],
    ["UNC with slashes", () => "//server/share/x", "invalid_path", "invalid_path"],
    ["device path", () => "\\\\?\\C:\\x", "invalid_path", "invalid_path"],
    ["empty", () => "", "invalid_path", "invalid_path"],
    ["symlink to outside file", () => "link-out", "outside_root", "outside_root"],
    ["symlinked dir as parent of a new file", () => "dir-out/new.txt", "outside_root", "outside_root"],
    [
      "symlinked dir as parent of an existing file",
      () => "dir-out/secret.txt",
      "outside_root",
      "outside_root",
    ],
    ["chain of symlinks to outside", () => "c1", "outside_root", "outside_root"],
    ["chain of symlinks inside", () => "i1", "ok:real.txt", "ok:real.txt"],
    ["dangling symlink to outside", () => "dangle", "outside_root", "outside_root"],
    ["dangling relative symlink to outside", () => "dangle-rel", "outside_root", "outside_root"],
    ["symlink loop", () => "loop1", "invalid_path", "invalid_path"],
  ];
  it.each(table)("%s", async (_name, path, read, write) => {
    expect(await codeOf(path(), "read")).toBe(read);
    expect(await codeOf(path(), "write")).toBe(write);
  });

  it("errors name the path and the reason", async () => {
    await expect(ws.resolve("../proj-evil/secret.txt", "read")).rejects.toThrow(
      `path "../proj-evil/secret.txt" is outside the workspace roots; allowed roots: ${root}`,
    );
    await expect(ws.resolve("link-out", "read")).rejects.toThrow(
      `path "link-out" is outside the workspace roots (it resolves to "${base}/outside.txt"); allowed roots: ${root}`,
    );
    await expect(ws.resolve("a\0b", "read")).rejects.toThrow(
      'path "a\\x00b" is refused: the path contains a NUL byte',
    );
    await expect(ws.resolve("missing.txt", "read")).rejects.toThrow("file not found: missing.txt");
    await expect(ws.resolve("missing", "list")).rejects.toThrow("directory not found: missing");
    await expect(ws.resolve(".git/config", "write")).rejects.toThrow(
      'path ".git/config" is protected and cannot be written by file tools (protected: .git/config)',
    );
  });

  it("refuses writing a directory", async () => {
    expect(await codeOf("sub", "write")).toBe("wrong_type");
    expect(await codeOf(".", "list")).toBe("ok:");
  });
});

describe("resolve: protected paths are never writable", () => {
  const protectedPaths = [
    ".git/config",
    ".git/hooks/pre-commit",
    ".GIT/HOOKS/pre-commit",
    ".Git/config",
    "sub/.git/config",
    ".git",
    ".git.",
    ".git /config",
    ".gitmodules",
    ".GITMODULES",
    ".gitconfig",
    ".config/git/config",
    ".husky/pre-commit",
    ".toolgate/policy.toml",
    ".TOOLGATE/agents/a.md",
    ".toolgate/state/memory.json",
    ".mcp.json",
    ".MCP.json",
    "sub/.mcp.json",
    ".env",
    ".ENV",
    ".env.local",
    ".Env.Production",
    "sub/deep/.env",
    ".vscode/settings.json",
    ".VSCode/tasks.json",
    ".idea/workspace.xml",
    ".IDEA/x",
    ".bashrc",
    ".BashRC",
    ".bash_profile",
    ".profile",
    ".zshrc",
    ".ZSHRC",
    ".zprofile",
    ".zshenv",
    ".npmrc",
    ".NPMRC",
    "git-alias/config",
    "sub/deep/.git/hooks/pre-commit",
    "secrets/key.txt",
    "SECRETS/deep/key.txt",
  ];
  it.each(protectedPaths)("%s", async (path) => {
    expect(await codeOf(path, "write")).toBe("protected");
  });

  it("protects an absolute extra (the user-scope state dir)", async () => {
    const extra = await Workspace.create([base], { protectedPaths: [join(base, "state-dir")] });
    await expect(extra.resolve("state-dir/memory.json", "write")).rejects.toMatchObject({
      code: "protected",
    });
    await expect(extra.resolve("STATE-DIR/memory.json", "write")).rejects.toMatchObject({
      code: "protected",
    });
    expect((await extra.resolve("state-dir-2/x", "write")).relative).toBe("state-dir-2/x");
  });

  it("an extra `!` pattern never takes a built-in path out (issue 27: `!*`, `!.git`)", async () => {
    const extra = await Workspace.create([base], {
      protectedPaths: ["!*", "!.git", "!.git/hooks/**", "mine/**"],
    });
    for (const path of [
      ".git/hooks/pre-commit",
      ".git/config",
      ".mcp.json",
      ".toolgate/policy.toml",
      "mine/a",
    ])
      await expect(extra.resolve(path, "write"), path).rejects.toMatchObject({ code: "protected" });
  });

  it("protects what runs on the next CI run or tool start, at any depth", async () => {
    for (const name of [
      ".github/workflows/ci.yml",
      "pkg/.github/workflows/ci.yml",
      ".gitlab-ci.yml",
      ".circleci/config.yml",
      ".pre-commit-config.yaml",
      ".husky/pre-commit",
      ".cargo/config.toml",
      "sub/.cargo/config",
      ".yarnrc.yml",
      ".bash_aliases",
      ".claude/settings.json",
      ".cursor/mcp.json",
      ".hg/hgrc",
      ".hg/sharedpath",
      "sub/.hg/requires",
      ".hg/hgrc-not-shared",
      "deep/.config/git/config",
    ]) {
      expect(await codeOf(name, "write"), name).toBe("protected");
    }
  });

  it("allows reading protected paths and writing look-alikes", async () => {
    expect(await codeOf(".git/config", "write")).toBe("protected");
    expect(await codeOf("real.txt", "read")).toBe("ok:real.txt");
    for (const name of [
      "git/config",
      ".gitignore",
      ".github/ISSUE_TEMPLATE/bug.md",
      "env.txt",
      "my.env",
      "bashrc",
    ]) {
      expect(await codeOf(name, "write")).toBe(`ok:${name}`);
    }
  });

  it("refuses an empty or invalid extra pattern instead of ignoring it", async () => {
    await expect(Workspace.create([root], { protectedPaths: [""] })).rejects.toThrow(
      'invalid protected path pattern: ""',
    );
  });
});

describe("read-sensitive paths and policy canonicalizer", () => {
  it("flags secrets and keys for confirmation", () => {
    for (const path of [".env", "sub/.env.local", "certs/server.pem", "id_rsa", ".ssh/config", "a\0b"]) {
      expect(ws.isReadSensitive(path)).toBe(true);
    }
    for (const path of ["README.md", "src/env.ts", "keys.txt"]) expect(ws.isReadSensitive(path)).toBe(false);
  });

  it("canonicalizes for the policy and fails closed outside the roots", async () => {
    expect(await ws.canonicalizeForPolicy("i1")).toEqual({
      canonical: join(root, "real.txt"),
      relative: "real.txt",
    });
    expect(await ws.canonicalizeForPolicy("link-out")).toBeUndefined();
    expect(await ws.canonicalizeForPolicy("a\0b")).toBeUndefined();
    expect(await ws.canonicalizeForPolicy(42)).toBeUndefined();
  });
});

describe("Workspace.contain", () => {
  async function containCode(path: string, intent: PathIntent): Promise<string> {
    try {
      await ws.contain(path, intent);
      return "ok";
    } catch (error) {
      if (error instanceof WorkspaceError) return error.code;
      throw error;
    }
  }

  it("refuses what resolve refuses for the path itself, and nothing that depends on the file being there", async () => {
    const rows: [string, PathIntent, string][] = [
      ["../outside.txt", "read", "outside_root"],
      ["link-out", "read", "outside_root"],
      ["dir-out/new.txt", "write", "outside_root"],
      ["dangle", "write", "outside_root"],
      ["a\0b", "read", "invalid_path"],
      [".git/config", "write", "protected"],
      ["sub/deep/.git/x", "write", "protected"],
      [".git/config", "read", "ok"],
      ["missing.txt", "read", "ok"],
      ["sub", "write", "ok"],
      ["new/dir/file.txt", "write", "ok"],
    ];
    for (const [path, intent, want] of rows) {
      expect({ path, intent, code: await containCode(path, intent) }).toEqual({ path, intent, code: want });
      // Wherever contain refuses, resolve refuses the same way.
      if (want !== "ok") expect(await codeOf(path, intent)).toBe(want);
    }
  });

  it("refuses a write to a file with other hard links, as the write itself would", async () => {
    await writeFile(join(base, "linked-outside.txt"), "x\n");
    await link(join(base, "linked-outside.txt"), join(root, "linked.txt"));
    expect(await containCode("linked.txt", "write")).toBe("hard_link");
    expect(await containCode("linked.txt", "read")).toBe("ok");
  });
});
