/**
 * The chains that armed git under a policy that "only allows reading": `find -fprintf` writing `.git/config`
 * (core.fsmonitor) followed by `git status`, and a bare repository planted in a sub-folder. Each must fail to run
 * code — with the sandbox (the write is refused by the OS), and without it (the write is asked about, and even
 * when a person approves it, git's own switches in the command environment keep the planted config inert).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createToolgate, type Toolgate } from "../toolgate.js";

const POLICY = `
[[rules]]
tool = "shell"
decision = "allow"
when.command = { prefix = ["find", "git status", "git log", "git init", "git add", "git commit", "mkdir", "printf", "cd", "cat"] }
`;

let base: string;
let ws: string;
let canary: string;
const gates: Toolgate[] = [];

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "toolgate-git-chain-"));
  ws = join(base, "ws");
  canary = join(base, "pwned");
});
afterEach(async () => {
  for (const gate of gates.splice(0)) await gate.close();
  await rm(base, { recursive: true, force: true });
});

async function gate(mode: "workspace-write" | "off", approve: boolean): Promise<Toolgate> {
  const { mkdir } = await import("node:fs/promises");
  await mkdir(ws, { recursive: true });
  const g = await createToolgate({ roots: [ws], policyText: POLICY, config: { sandbox: { mode } } });
  if (approve) g.bus.onConfirmation(async () => ({ approved: true }));
  gates.push(g);
  execFileSync("git", ["init", "-q", ws]);
  execFileSync("git", [
    "-C",
    ws,
    "-c",
    "user.name=t",
    "-c",
    "user.email=t@e",
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    "i",
  ]);
  return g;
}

const plantConfig = () =>
  `find . -maxdepth 0 -fprintf .git/config '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch ${canary}\\n'`;

describe("find -fprintf → .git/config → git status", () => {
  it("with the sandbox, the write is refused by the OS even when approved, and git status runs nothing", async () => {
    const g = await gate("workspace-write", true);
    const before = readFileSync(join(ws, ".git", "config"), "utf8");
    await g.execute({ name: "shell", args: { command: plantConfig() } });
    expect(readFileSync(join(ws, ".git", "config"), "utf8")).toBe(before);
    const status = await g.execute({ name: "shell", args: { command: "git status --short" } });
    expect(status.ok, status.llmContent).toBe(true);
    expect(existsSync(canary)).toBe(false);
  });

  it("without the sandbox, the write is asked about, not allowed by the find rule", async () => {
    const g = await gate("off", false);
    const result = await g.execute({ name: "shell", args: { command: plantConfig() } });
    expect(result.decision).toBe("ask");
    expect(result.reason).toMatch(/-fprintf/);
    expect(result.error?.type).toBe("denied_by_policy");
    expect(readFileSync(join(ws, ".git", "config"), "utf8")).not.toContain("fsmonitor");
  });

  it("without the sandbox and with the write approved, git status still does not run the planted monitor", async () => {
    const g = await gate("off", true);
    await g.execute({ name: "shell", args: { command: plantConfig() } });
    expect(readFileSync(join(ws, ".git", "config"), "utf8")).toContain("fsmonitor");
    await g.execute({ name: "shell", args: { command: "git status --short" } });
    expect(existsSync(canary)).toBe(false);
  });
});

describe("a bare repository planted in a sub-folder", () => {
  const plant = () =>
    "mkdir -p planted/objects planted/refs && printf 'ref: refs/heads/main\\n' > planted/HEAD && " +
    `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = true\\n\\tfsmonitor = touch ${canary}\\n' > planted/config`;

  it.each([["workspace-write"], ["off"]] as const)(
    "git status inside it runs nothing (sandbox %s)",
    async (mode) => {
      const g = await gate(mode, true);
      const planted = await g.execute({ name: "shell", args: { command: plant() } });
      expect(planted.ok, planted.llmContent).toBe(true);
      const status = await g.execute({
        name: "shell",
        args: { command: "cd planted && git status; git log -1" },
      });
      expect(existsSync(canary), status.llmContent).toBe(false);
    },
  );
});
