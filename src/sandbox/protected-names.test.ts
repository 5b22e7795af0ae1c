/**
 * CI and start-up files a sandboxed command creates anywhere in the workspace are moved to quarantine when it
 * ends, and named in its result; ordinary files beside them stay (testdata/protected-names.json) — through the
 * real binary, one command creating them all.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { toolgate } from "../test-support/cli.js";
import names from "./testdata/protected-names.json" with { type: "json" };

let base: string;
let ws: string;
let env: Record<string, string>;
let policy: string;

beforeAll(async () => {
  base = await mkdtemp("/var/tmp/toolgate-protected-names-");
  ws = join(base, "ws");
  policy = join(base, "policy.toml");
  await writeFile(policy, 'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "allow"\n');
  env = { XDG_CONFIG_HOME: join(base, "xdg"), XDG_STATE_HOME: join(base, "state"), HOME: join(base, "home") };
  await mkdir(ws);
});
afterAll(() => rm(base, { recursive: true, force: true }));

it("moves every CI and start-up file a command created to quarantine, at any depth, and keeps the rest", async () => {
  const command = [...names.created, ...names.kept]
    .map((file) => `mkdir -p "$(dirname '${file}')" && echo 'run: evil' > '${file}'`)
    .join("; ");
  const r = await toolgate(
    ["call", "shell", JSON.stringify({ command }), "--json", "--workspace", ws, "--policy", policy],
    {
      cwd: ws,
      env,
    },
  );
  const out = JSON.parse(r.stdout) as { ok: boolean; llmContent: string };
  expect(out.ok, r.stderr).toBe(true);
  const left = names.created.filter((file) => existsSync(join(ws, file)));
  expect(left, "protected files the command left in place").toEqual([]);
  for (const file of names.kept) expect(existsSync(join(ws, file)), file).toBe(true);
  expect(out.llmContent).toContain("quarantine");
});
