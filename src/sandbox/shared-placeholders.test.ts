/**
 * Two toolgates in one workspace share the placeholder folders the sandbox makes for missing protected names:
 * while one runs a long command (holding them), the other's commands run (they hold the same folders rather
 * than taking them for a change in the workspace), and its globs do not list them — through the real binary.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { BIN, toolgate } from "../test-support/cli.js";

let base: string;
let ws: string;
let env: Record<string, string>;
let policy: string;

beforeAll(async () => {
  base = await mkdtemp("/var/tmp/toolgate-shared-");
  ws = join(base, "ws");
  await mkdir(ws);
  await writeFile(join(ws, "a.txt"), "a\n");
  await writeFile(join(ws, ".real"), "r\n");
  policy = join(base, "policy.toml");
  await writeFile(policy, 'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "allow"\n');
  env = { XDG_CONFIG_HOME: join(base, "xdg"), XDG_STATE_HOME: join(base, "state"), HOME: join(base, "home") };
});
afterAll(() => rm(base, { recursive: true, force: true }));

const wait = (ms: number) => new Promise((done) => setTimeout(done, ms));

it("a second toolgate runs beside one holding placeholders, and its globs skip them", async () => {
  const holder = spawn(
    process.execPath,
    [BIN, "call", "shell", '{"command":"sleep 600"}', "--workspace", ws, "--policy", policy],
    { env: { ...process.env, ...env }, stdio: "ignore" },
  );
  try {
    for (let i = 0; i < 600 && !existsSync(join(ws, ".mcp.json")); i++) await wait(100);
    expect(existsSync(join(ws, ".mcp.json")), "the first command holds its placeholders").toBe(true);

    const r = await toolgate(
      [
        "call",
        "shell",
        JSON.stringify({ command: "printf '<%s>' * .*" }),
        "--json",
        "--workspace",
        ws,
        "--policy",
        policy,
      ],
      { cwd: ws, env },
    );
    const out = JSON.parse(r.stdout) as { ok: boolean; decision: string; llmContent: string };
    expect(out, r.stderr).toMatchObject({ ok: true, decision: "allow" });
    expect(out.llmContent).toContain("command: printf '<%s>' a.txt .real");
    expect(out.llmContent).toContain("<a.txt><.real>");
  } finally {
    const exited = new Promise((done) => holder.once("exit", done));
    holder.kill("SIGTERM");
    await exited;
  }
});
