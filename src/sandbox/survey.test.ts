/**
 * The survey on real folders: what it covers read-only (existing or missing, at any depth), what it hides (and
 * what it leaves visible: tracked files, the home folder's toolchains), where it stops, and that it never
 * refuses for what a command could plant (links, odd names).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rawOf } from "./descriptors.js";
import { type CoverKind, resolveThroughLinks, SandboxSetupError, surveySandbox } from "./survey.js";

let base: string;
let ws: string;
let home: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "toolgate-survey-"));
  ws = join(base, "ws");
  home = join(base, "home");
  mkdirSync(ws);
  mkdirSync(home);
});
afterEach(async () => {
  chmodSync(base, 0o755);
  await rm(base, { recursive: true, force: true });
});

const env = { PATH: "/usr/bin:/bin" };
const survey = (extra: Partial<Parameters<typeof surveySandbox>[0]> = {}) =>
  surveySandbox({ mode: "workspace-write", network: false, roots: [ws], cwd: ws, home, env, ...extra });
/** The covers by path below `base`. */
const covers = (layout: { covers: Map<string, CoverKind> }) =>
  new Map([...layout.covers].map(([path, kind]) => [path.slice(base.length), kind]));
const git = (...args: string[]) => execFileSync("git", ["-C", ws, ...args], { stdio: "pipe" });

describe("surveySandbox: protected paths", () => {
  it("blocks missing protected names at the root, but lets a repository be created (git init)", () => {
    const layout = survey();
    const c = covers(layout);
    expect(c.get("/ws/.envrc")).toBe("empty");
    expect(c.get("/ws/.mcp.json")).toBe("empty");
    expect(c.get("/ws/.github/workflows")).toBe("empty");
    expect(c.get("/ws/.github/actions")).toBe("empty");
    expect(c.get("/ws/.devcontainer")).toBe("empty");
    expect(c.has("/ws/.git")).toBe(false);
    expect(layout.placeholders.map((p) => p.slice(base.length))).toContain("/ws/.envrc");
    expect(layout.pins.map((p) => p.slice(base.length))).toContain("/ws/.github");
  });

  it("blocks login start-up files only when the root is the home folder", () => {
    expect(covers(survey()).has("/ws/.bashrc")).toBe(false);
    expect(covers(survey()).has("/ws/.config/autostart")).toBe(false);
    const atHome = covers(survey({ roots: [home], cwd: home }));
    expect(atHome.get("/home/.bashrc")).toBe("empty");
    expect(atHome.get("/home/.config/autostart")).toBe("empty");
    expect(atHome.get("/home/.local/bin")).toBe("empty");
  });

  it("covers existing protected paths at any depth, read-only, and pins the folders above them", () => {
    for (const dir of ["a/.vscode", "a/b/.claude", "a/b/c/.github/workflows", "a/b/c/d/.kiro"]) {
      mkdirSync(join(ws, dir), { recursive: true });
    }
    writeFileSync(join(ws, "a/b/c/d/.mcp.json"), "{}");
    writeFileSync(join(ws, "a/x.code-workspace"), "{}");
    const layout = survey();
    const c = covers(layout);
    for (const path of [
      "a/.vscode",
      "a/b/.claude",
      "a/b/c/.github/workflows",
      "a/b/c/d/.kiro",
      "a/b/c/d/.mcp.json",
      "a/x.code-workspace",
    ]) {
      expect(c.get(`/ws/${path}`), path).toBe("self");
    }
    const pins = layout.pins.map((p) => p.slice(base.length));
    expect(pins).toEqual(expect.arrayContaining(["/ws/a", "/ws/a/b", "/ws/a/b/c", "/ws/a/b/c/d"]));
  });

  it("follows a link on the way to a protected name instead of refusing the command", () => {
    mkdirSync(join(ws, "real"));
    symlinkSync("real", join(ws, ".github"));
    symlinkSync(join(base, "nowhere"), join(ws, ".mcp.json"));
    const c = covers(survey());
    expect(c.get("/ws/real/workflows")).toBe("empty");
    expect(c.has("/ws/.mcp.json")).toBe(false); // outside the writable places: nothing a command could write
  });
});

describe("surveySandbox: git's own files", () => {
  it("keeps a repository's config and hooks read-only, the rest writable, and watches its state", () => {
    git("init", "-q");
    const layout = survey();
    const c = covers(layout);
    expect(c.get("/ws/.git/config")).toBe("self");
    expect(c.get("/ws/.git/hooks")).toBe("self");
    expect(c.has("/ws/.git")).toBe(false);
    expect(layout.pins.map((p) => p.slice(base.length))).toContain("/ws/.git");
    expect(layout.gitDirs.map((p) => p.slice(base.length))).toEqual(["/ws/.git"]);
  });

  it("protects the folder core.hooksPath names, and files the config includes", () => {
    git("init", "-q");
    git("config", "core.hooksPath", ".githooks");
    git("config", "include.path", "../shared.gitconfig");
    writeFileSync(join(ws, "shared.gitconfig"), "[core]\n\thooksPath = tools/hooks\n");
    const c = covers(survey());
    expect(c.get("/ws/.githooks")).toBe("empty");
    expect(c.get("/ws/shared.gitconfig")).toBe("self");
    expect(c.get("/ws/tools/hooks")).toBe("empty");
  });

  it("protects a submodule's and a linked worktree's git folders, and the target of a .git file", () => {
    git("init", "-q");
    mkdirSync(join(ws, ".git/modules/sub/hooks"), { recursive: true });
    writeFileSync(join(ws, ".git/modules/sub/config"), "[core]\n");
    mkdirSync(join(ws, ".git/worktrees/wt"), { recursive: true });
    writeFileSync(join(ws, ".git/worktrees/wt/commondir"), "../..\n");
    mkdirSync(join(ws, ".bare/objects"), { recursive: true });
    mkdirSync(join(ws, ".bare/refs"));
    writeFileSync(join(ws, ".bare/HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(ws, ".bare/config"), "[core]\n\tbare = true\n");
    mkdirSync(join(ws, "checkout"));
    writeFileSync(join(ws, "checkout/.git"), "gitdir: ../.bare\n");
    const c = covers(survey());
    expect(c.get("/ws/.git/modules/sub/config")).toBe("self");
    expect(c.get("/ws/.git/modules/sub/hooks")).toBe("self");
    expect(c.get("/ws/.git/worktrees/wt/commondir")).toBe("self");
    expect(c.get("/ws/.bare/config")).toBe("self");
    expect(c.get("/ws/.bare/hooks")).toBe("empty");
    expect(c.get("/ws/checkout/.git")).toBe("self");
  });

  it("keeps existing rebase state read-only", () => {
    git("init", "-q");
    mkdirSync(join(ws, ".git/rebase-merge"));
    writeFileSync(join(ws, ".git/rebase-merge/git-rebase-todo"), "exec touch /tmp/x\n");
    expect(covers(survey()).get("/ws/.git/rebase-merge")).toBe("self");
  });
});

describe("surveySandbox: secrets", () => {
  it("hides secrets by name at any depth, with every .env prefix", () => {
    mkdirSync(join(ws, "a/b/c/d/e"), { recursive: true });
    for (const name of [".env", ".env-production", ".env~", ".env_local", ".env.local", "a/b/c/d/e/.env"]) {
      writeFileSync(join(ws, name), "T=1");
    }
    writeFileSync(join(ws, "a/deploy.pem"), "k");
    mkdirSync(join(ws, "a/.ssh"));
    const c = covers(survey());
    for (const name of [
      ".env-production",
      ".env~",
      ".env_local",
      ".env.local",
      "a/b/c/d/e/.env",
      "a/deploy.pem",
    ]) {
      expect(c.get(`/ws/${name}`), name).toBe("null");
    }
    expect(c.get("/ws/.env")).toBe("null");
    expect(c.get("/ws/a/.ssh")).toBe("empty");
  });

  it("hides a folder it cannot read whole, and what lies past its folder limit", () => {
    mkdirSync(join(ws, "locked/inner"), { recursive: true });
    writeFileSync(join(ws, "locked/inner/.env"), "T=1");
    chmodSync(join(ws, "locked"), 0o000);
    for (let i = 0; i < 30; i++) mkdirSync(join(ws, `many/d${i}`), { recursive: true });
    const layout = survey({ maxDirs: 10 });
    chmodSync(join(ws, "locked"), 0o755);
    const c = covers(layout);
    // Also as root, which reads it anyway: the command (no capabilities) could not enter it, but could chmod it.
    expect(c.get("/ws/locked")).toBe("empty");
    expect(c.get("/ws/locked/inner/.env")).toBeUndefined();
    expect(layout.unsurveyed.length).toBeGreaterThan(0);
    for (const path of layout.unsurveyed) expect(layout.covers.get(path)).toBe("empty");
  });

  it("reads on past its limit when hiding the rest would hide the workspace, and says so (issue 26.7)", () => {
    for (let i = 0; i < 80; i++) mkdirSync(join(ws, `d${i}`));
    writeFileSync(join(ws, "d79/.env"), "T=1");
    const layout = survey({ maxDirs: 2 });
    expect(covers(layout).get("/ws/d79/.env")).toBe("null");
    expect(layout.unsurveyed).toEqual([]);
    expect(layout.notes.join("\n")).toMatch(/read past its limit of 2 rather than hide the workspace/);
  });

  it("refuses, with the reason, past the wider limit too (hiding the rest would hide the workspace)", () => {
    // 200 folders side by side: 160 left past the wider limit, more than are hidden one by one.
    for (let i = 0; i < 200; i++) mkdirSync(join(ws, `d${i}`));
    expect(() => survey({ maxDirs: 2, maxDirsWide: 40 })).toThrow(SandboxSetupError);
    expect(() => survey({ maxDirs: 2, maxDirsWide: 40 })).toThrow(/\[sandbox\] unchecked/);
  });

  it("leaves secret-named files git tracks unchanged visible (their content is in the history anyway)", () => {
    git("init", "-q");
    writeFileSync(join(ws, ".env.example"), "T=\n");
    writeFileSync(join(ws, "changed.pem"), "a");
    git("add", ".env.example", "changed.pem");
    // git counts an entry as unchanged only when it is older than the index: make both older.
    execFileSync("touch", ["-d", "2020-01-01", join(ws, ".env.example"), join(ws, "changed.pem")]);
    git("add", ".env.example", "changed.pem");
    writeFileSync(join(ws, "changed.pem"), "a secret written since");
    const c = covers(survey());
    expect(c.get("/ws/.env.example")).toBe("self"); // readable; read-only as .env* is also protected
    expect(c.get("/ws/changed.pem")).toBe("null");
  });

  it("does not refuse for a dangling secret-named link or a name that is not UTF-8", () => {
    symlinkSync("/nonexistent", join(ws, "x.pem"));
    const odd = Buffer.concat([Buffer.from(`${ws}/.env`), Buffer.from([0xff, 0xfe])]);
    writeFileSync(odd, "T=1");
    const layout = survey();
    expect(layout.covers.get(`${rawOf(ws)}/.env\xff\xfe`)).toBe("null");
    expect(covers(layout).has("/ws/x.pem")).toBe(false);
  });

  it("hides what a secret-named link inside the workspace points at", () => {
    writeFileSync(join(ws, "plain.txt"), "T=1");
    symlinkSync("plain.txt", join(ws, "key.pem"));
    expect(covers(survey()).get("/ws/plain.txt")).toBe("null");
  });
});

describe("surveySandbox: the home folder", () => {
  it("empties the home folder but for toolchains' parts that exist, PATH entries and [sandbox] readable", () => {
    mkdirSync(join(home, ".nvm"));
    writeFileSync(join(home, ".nvm/nvm.sh"), "");
    mkdirSync(join(home, ".cargo/bin"), { recursive: true });
    writeFileSync(join(home, ".cargo/credentials.toml"), "token");
    mkdirSync(join(home, "tools/bin"), { recursive: true });
    mkdirSync(join(home, "notes"));
    writeFileSync(join(home, ".pgpass"), "secret");
    const layout = survey({
      env: { PATH: `${join(home, "tools/bin")}:/usr/bin` },
      readable: [join(home, "notes")],
    });
    expect(layout.home).toBe(rawOf(home));
    const visible = layout.visible.map((v) => v.path.slice(base.length)).sort();
    expect(visible).toEqual(["/home/.cargo/bin", "/home/.nvm/nvm.sh", "/home/notes", "/home/tools/bin"]);
    // Not a part shown: nothing to cover.
    expect(covers(layout).has("/home/.cargo/credentials.toml")).toBe(false);
    expect(covers(layout).has("/home/.pgpass")).toBe(false); // not listed: the emptied home hides it
  });

  it("shows the home folder when it is a root (its credentials hidden by the list)", () => {
    mkdirSync(join(home, ".ssh"));
    const layout = survey({ roots: [home], cwd: home });
    expect(layout.home).toBeUndefined();
    expect(covers(layout).get("/home/.ssh")).toBe("empty");
  });
});

describe("resolveThroughLinks", () => {
  it("follows links on the way and at the end, keeps a missing tail, and gives up on loops", () => {
    mkdirSync(join(ws, "real"));
    symlinkSync("real", join(ws, "a"));
    symlinkSync("a/x", join(ws, "b"));
    symlinkSync("loop", join(ws, "loop"));
    expect(resolveThroughLinks(`${ws}/a/file`)).toBe(`${ws}/real/file`);
    expect(resolveThroughLinks(`${ws}/b/y`)).toBe(`${ws}/real/x/y`);
    expect(resolveThroughLinks(`${ws}/loop/z`)).toBeUndefined();
  });
});
