/**
 * A toolgate killed while a sandboxed command runs leaves its placeholders (empty folders) in the workspace and
 * their journal in the user's state folder: `toolgate init` still works, and the next toolgate that starts
 * removes them; the check the killed one owed is recorded, so later commands are refused until the person has
 * looked — through the real binary, with a real SIGKILL.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { BIN, toolgate } from "../test-support/cli.js";

let base: string;
let ws: string;
let env: Record<string, string>;

beforeAll(async () => {
  base = await mkdtemp("/var/tmp/toolgate-recovery-");
  ws = join(base, "ws");
  const xdg = join(base, "xdg");
  await writeFile(
    join(base, "policy.toml"),
    'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "allow"\n',
  );
  const { mkdir } = await import("node:fs/promises");
  await mkdir(ws);
  await mkdir(join(xdg, "toolgate"), { recursive: true });
  // Trusted, so the workspace's own files count: as for a person's project.
  await writeFile(
    join(xdg, "toolgate", "trusted.json"),
    JSON.stringify({ version: 1, trusted: [{ path: ws, since: new Date(0).toISOString() }] }),
  );
  env = { XDG_CONFIG_HOME: xdg, HOME: join(base, "home") };
});
afterAll(() => rm(base, { recursive: true, force: true }));

const wait = (ms: number) => new Promise((done) => setTimeout(done, ms));

it("placeholders of a killed toolgate are removed by the next one, and toolgate init works meanwhile", async () => {
  const killed = spawn(
    process.execPath,
    [
      BIN,
      "call",
      "shell",
      '{"command":"echo started; sleep 600"}',
      "--workspace",
      ws,
      "--policy",
      join(base, "policy.toml"),
    ],
    { env: { ...process.env, ...env }, stdio: "ignore" },
  );
  // Wait (for state) until the command runs: its placeholders are there, and journaled.
  const journals = join(base, "xdg", "toolgate", "state", "sandbox");
  // …and the check it owes is recorded (written once the sandbox is set up, before the command starts).
  const journaled = () =>
    existsSync(join(journals, `placeholders-${killed.pid}.json`)) &&
    readdirSync(journals).some((n) => n.startsWith("owed-") && n.includes(`-${killed.pid}-`));
  for (let i = 0; i < 600 && !(existsSync(join(ws, ".mcp.json")) && journaled()); i++) await wait(100);
  expect(existsSync(join(ws, ".mcp.json")), "the sandboxed command started").toBe(true);
  const exited = new Promise((done) => killed.once("exit", done));
  killed.kill("SIGKILL");
  await exited;
  const left = readdirSync(ws);
  expect(left).toEqual(expect.arrayContaining([".envrc", ".mcp.json", ".vscode", ".toolgate"]));
  // The kill may land while the journal is rewritten after the placeholders are made: its `.tmp` copy stays too.
  // Beside it, the record of the check the killed command owed.
  expect(
    readdirSync(journals)
      .filter((n) => n.endsWith(".json"))
      .sort(),
  ).toEqual([
    expect.stringMatching(new RegExp(`^owed-[0-9a-f]{16}-${killed.pid}-1\\.json$`)),
    `placeholders-${killed.pid}.json`,
  ]);

  const init = await toolgate(["init", "--workspace", ws], { cwd: ws, env });
  expect(init.code, init.stderr).toBe(0);

  // Any toolgate start cleans up (here one that runs no command at all).
  const read = await toolgate(["call", "read_file", '{"path":".toolgate/policy.toml"}', "--workspace", ws], {
    cwd: ws,
    env,
  });
  expect(read.code, read.stderr).toBe(0);
  expect(readdirSync(ws).sort()).toEqual([".gitignore", ".toolgate"]);
  // The check after the killed command never ran: its record stays, and sandboxed commands are refused with
  // the reason until the person has looked and deleted it (red team 2026-11-27e, G7: a check skipped by
  // ending the process that owes it).
  const owed = readdirSync(journals);
  expect(owed).toEqual([expect.stringMatching(new RegExp(`^owed-[0-9a-f]{16}-${killed.pid}-1\\.json$`))]);
  const shellArgs = [
    "call",
    "shell",
    '{"command":"echo again"}',
    "--workspace",
    ws,
    "--policy",
    join(base, "policy.toml"),
  ];
  const refused = await toolgate(shellArgs, { cwd: ws, env });
  expect(refused.code).not.toBe(0);
  expect(`${refused.stdout}${refused.stderr}`).toMatch(/ended before the check after a command/);
  await rm(join(journals, owed[0]!));
  const again = await toolgate(shellArgs, { cwd: ws, env });
  expect(again.code, again.stderr).toBe(0);
  expect(again.stdout).toContain("again");
  expect(readdirSync(journals)).toEqual([]);
});
