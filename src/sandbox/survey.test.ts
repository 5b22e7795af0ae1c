/**
 * The survey on real folders: what it makes read-only (existing or missing), what it hides, where it stops, and
 * when it refuses.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PlannedPath } from "./bwrap-args.js";
import { SandboxSetupError, surveySandbox } from "./survey.js";

let base: string;
let ws: string;
let home: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "toolgate-survey-"));
  ws = join(base, "ws");
  home = join(base, "home");
  await mkdir(ws);
  await mkdir(home);
});
afterEach(() => rm(base, { recursive: true, force: true }));

const survey = (extra: Partial<Parameters<typeof surveySandbox>[0]> = {}) =>
  surveySandbox({ mode: "workspace-write", network: false, roots: [ws], cwd: ws, home, ...extra });
const byPath = (list: readonly PlannedPath[]) =>
  new Map(list.map((p) => [p.path.slice(base.length), p.type]));

describe("surveySandbox", () => {
  it("blocks missing protected names at the root, but lets a repository be created (git init)", () => {
    const readOnly = byPath(survey().readOnly);
    expect(readOnly.get("/ws/.envrc")).toBe("missing");
    expect(readOnly.get("/ws/.mcp.json")).toBe("missing");
    expect(readOnly.get("/ws/.github/workflows")).toBe("missing");
    expect(readOnly.has("/ws/.git/config")).toBe(false);
    expect(readOnly.has("/ws/.git/hooks")).toBe(false);
  });

  it("keeps an existing repository's config and hooks read-only, and a missing hooks folder blocked", async () => {
    await mkdir(join(ws, ".git"));
    await writeFile(join(ws, ".git", "config"), "[core]\n");
    const readOnly = byPath(survey().readOnly);
    expect(readOnly.get("/ws/.git/config")).toBe("file");
    expect(readOnly.get("/ws/.git/hooks")).toBe("missing");
    expect(readOnly.has("/ws/.git")).toBe(false); // objects, index and refs stay writable for git add/commit
  });

  it("holds a worktree's .git pointer file itself read-only", async () => {
    await writeFile(join(ws, ".git"), "gitdir: /elsewhere/.git/worktrees/x\n");
    expect(byPath(survey().readOnly).get("/ws/.git")).toBe("file");
  });

  it("finds existing protected paths and secrets below the root, down to three levels", async () => {
    await mkdir(join(ws, "pkg", "sub", ".git"), { recursive: true });
    await writeFile(join(ws, "pkg", "sub", ".git", "config"), "");
    await mkdir(join(ws, "pkg", ".vscode"), { recursive: true });
    await writeFile(join(ws, "pkg", ".env.local"), "T=1");
    await mkdir(join(ws, "a", "b", "c", "d"), { recursive: true });
    await writeFile(join(ws, "a", "b", "c", "d", ".envrc"), "");
    const plan = survey();
    const readOnly = byPath(plan.readOnly);
    expect(readOnly.get("/ws/pkg/sub/.git/config")).toBe("file");
    expect(readOnly.get("/ws/pkg/.vscode")).toBe("dir");
    expect(readOnly.has("/ws/a/b/c/d/.envrc")).toBe(false); // deeper than the scan: the file tools still refuse it
    expect(byPath(plan.hidden).get("/ws/pkg/.env.local")).toBe("file");
  });

  it("hides the user's credential folders that exist, and extra hidden paths", async () => {
    await mkdir(join(home, ".ssh"));
    await writeFile(join(home, ".netrc"), "machine x");
    await writeFile(join(base, "extra"), "x");
    const hidden = byPath(survey({ hidden: [join(base, "extra"), join(base, "absent")] }).hidden);
    expect(hidden.get("/home/.ssh")).toBe("dir");
    expect(hidden.get("/home/.netrc")).toBe("file");
    expect(hidden.get("/extra")).toBe("file");
    expect(hidden.has("/home/.aws")).toBe(false);
    expect(hidden.has("/absent")).toBe(false);
  });

  it("hides only the outermost of nested hidden folders (bwrap cannot mount inside an emptied one)", async () => {
    await mkdir(join(base, "cfg", "toolgate", "state"), { recursive: true });
    const hidden = byPath(
      survey({ hidden: [join(base, "cfg", "toolgate", "state"), join(base, "cfg", "toolgate")] }).hidden,
    );
    expect(hidden.get("/cfg/toolgate")).toBe("dir");
    expect(hidden.has("/cfg/toolgate/state")).toBe(false);
  });

  it("hides toolgate's transcripts and project state inside the read-only .toolgate folder", async () => {
    await mkdir(join(ws, ".toolgate", "sessions"), { recursive: true });
    await writeFile(join(ws, ".toolgate", "policy.toml"), "");
    const plan = survey();
    expect(byPath(plan.hidden).get("/ws/.toolgate/sessions")).toBe("dir");
    expect(byPath(plan.hidden).has("/ws/.toolgate/state")).toBe(false); // missing: nothing to hide
    expect(byPath(plan.readOnly).get("/ws/.toolgate")).toBe("dir");
  });

  it("read-only mode needs no protected mounts (nothing is writable) but still hides secrets", async () => {
    await writeFile(join(ws, ".env"), "T=1");
    const plan = survey({ mode: "read-only" });
    expect(plan.readOnly).toEqual([]);
    expect(byPath(plan.hidden).get("/ws/.env")).toBe("file");
  });

  it("refuses a protected name that is a symbolic link, and a writable path that does not exist", async () => {
    await symlink(join(base, "target"), join(ws, ".mcp.json"));
    expect(() => survey()).toThrow(SandboxSetupError);
    expect(() => survey()).toThrow(/\.mcp\.json is a symbolic link/);
    await rm(join(ws, ".mcp.json"));
    await symlink(home, join(ws, ".github"));
    expect(() => survey()).toThrow(/\.github holds a protected path but is a symbolic link/);
    await rm(join(ws, ".github"));
    expect(() => survey({ writable: [join(base, "nope")] })).toThrow("[sandbox] writable path");
  });
});
