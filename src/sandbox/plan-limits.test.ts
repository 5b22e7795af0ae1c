/**
 * A command cannot make later commands fail by leaving more than bwrap can mount (red team 2026-11-27): a
 * folder chain past PATH_MAX, and thousands of secret-named files — the next command runs, with what it cannot
 * hide one by one hidden whole; thousands at a workspace's top are refused with the reason and the fix. Through
 * the real binary.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { toolgate } from "../test-support/cli.js";

let base: string;
let env: Record<string, string>;
let policy: string;

beforeAll(async () => {
  base = await mkdtemp("/var/tmp/toolgate-plan-limits-");
  policy = join(base, "policy.toml");
  await writeFile(policy, 'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "allow"\n');
  env = { XDG_CONFIG_HOME: join(base, "xdg"), XDG_STATE_HOME: join(base, "state"), HOME: join(base, "home") };
});
// GNU rm walks by descriptor: Node's rm cannot remove a chain past PATH_MAX.
afterAll(() => execFileSync("rm", ["-rf", base]));

async function shell(ws: string, command: string) {
  const r = await toolgate(
    ["call", "shell", JSON.stringify({ command }), "--json", "--workspace", ws, "--policy", policy],
    { cwd: ws, env },
  );
  return {
    ...(JSON.parse(r.stdout) as { ok: boolean; llmContent: string; message?: string }),
    stderr: r.stderr,
  };
}

it("runs the next command after one left folders past PATH_MAX and 3,000 secret-named files in a folder", async () => {
  const ws = join(base, "ws");
  await mkdir(ws);
  const first = await shell(
    ws,
    'mkdir certs && (cd certs && for i in $(seq 3000); do : > k$i.pem; done) && echo tg-canary-xyz > certs/k1.pem; n=$(printf "d%.0s" {1..250}); (for i in $(seq 20); do mkdir $n && cd $n || break; done); echo made',
  );
  expect(first.ok, first.stderr).toBe(true);
  const next = await shell(ws, "echo still-works; cat certs/k1.pem || echo hidden");
  expect(next.ok, next.stderr).toBe(true);
  expect(next.llmContent).toContain("still-works");
  expect(next.llmContent).toContain("hidden");
  expect(next.llmContent).not.toContain("tg-canary-xyz");
  expect(next.llmContent).toMatch(/certs is hidden whole: it holds 3000 secret-named or protected paths/);
  expect(next.llmContent).toMatch(/hidden whole: it holds paths longer than the sandbox can mount/);
});

it("refuses with the reason and the fix when thousands sit at the workspace's top", async () => {
  const ws = join(base, "top");
  await mkdir(ws);
  await shell(ws, "for i in $(seq 600); do : > k$i.pem; done");
  const next = await shell(ws, "echo hi");
  expect(next.ok).toBe(false);
  expect(`${next.llmContent} ${next.message ?? ""} ${next.stderr}`).toMatch(
    /holds \d+ files the sandbox hides \(at most 512 in all\), and hiding them would hide the workspace .*; remove or move them into a folder/,
  );
});
