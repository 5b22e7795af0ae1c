/**
 * Credential files kept in a project are unreadable by a sandboxed command wherever they sit, and look-alike
 * names stay readable (testdata/secret-names.json) — through the real binary, one command reading them all.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { toolgate } from "../test-support/cli.js";
import names from "./testdata/secret-names.json" with { type: "json" };

const SECRET = "tg-secret-names-canary";
let base: string;
let ws: string;
let env: Record<string, string>;
let policy: string;

beforeAll(async () => {
  base = await mkdtemp("/var/tmp/toolgate-secret-names-");
  ws = join(base, "ws");
  for (const file of [...names.hidden, ...names.visible]) {
    await mkdir(dirname(join(ws, file)), { recursive: true });
    await writeFile(join(ws, file), `${SECRET} ${file}\n`);
  }
  policy = join(base, "policy.toml");
  await writeFile(policy, 'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "allow"\n');
  env = { XDG_CONFIG_HOME: join(base, "xdg"), XDG_STATE_HOME: join(base, "state"), HOME: join(base, "home") };
});
afterAll(() => rm(base, { recursive: true, force: true }));

it("hides every credential file on the list and leaves look-alikes readable", async () => {
  const all = [...names.hidden, ...names.visible];
  const command = all.map((file) => `cat '${file}' 2>/dev/null || echo 'unread ${file}'`).join("; ");
  const r = await toolgate(
    ["call", "shell", JSON.stringify({ command }), "--json", "--workspace", ws, "--policy", policy],
    {
      cwd: ws,
      env,
    },
  );
  const out = JSON.parse(r.stdout) as { ok: boolean; llmContent: string };
  expect(out.ok, r.stderr).toBe(true);
  const readable = names.hidden.filter((file) => out.llmContent.includes(`${SECRET} ${file}`));
  expect(readable, "credential files a sandboxed command could read").toEqual([]);
  for (const file of names.visible) expect(out.llmContent).toContain(`${SECRET} ${file}`);
});
