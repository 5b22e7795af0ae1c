/**
 * A placeholder is a real file on the host. A background command whose sandbox started before a later
 * command's survey made one (`sub/.git/commondir`, holding ".") sees it as a plain workspace file and can fill
 * it: git on the host would then follow the `commondir` to a config the command wrote (red team 2026-11-27e,
 * G3). A placeholder counts as toolgate's only while it holds exactly what toolgate wrote, so the check after
 * the background command moves the repository away. Through real bwrap, in one gate (as one session's
 * commands are).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createToolgate, type Toolgate } from "../toolgate.js";

let base: string;
let ws: string;
let gate: Toolgate;
const savedXdg = process.env.XDG_CONFIG_HOME;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd, encoding: "utf8" });

beforeAll(async () => {
  // Outside /tmp: the sandbox's private /tmp would hide the workspace.
  base = await mkdtemp("/var/tmp/toolgate-placeholder-fill-");
  ws = join(base, "ws");
  await mkdir(ws);
  git(ws, "init", "-q");
  git(ws, "commit", "-q", "--allow-empty", "-m", "one");
  const xdg = join(base, "xdg");
  await mkdir(join(xdg, "toolgate"), { recursive: true });
  await writeFile(
    join(xdg, "toolgate", "trusted.json"),
    JSON.stringify({ version: 1, trusted: [{ path: ws, since: new Date(0).toISOString() }] }),
  );
  process.env.XDG_CONFIG_HOME = xdg;
  gate = await createToolgate({
    roots: [ws],
    policyText: 'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "allow"\n',
    config: { sandbox: { mode: "workspace-write" } },
  });
  gate.bus.onConfirmation(async () => ({ approved: true }));
});

afterAll(async () => {
  await gate?.close();
  if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedXdg;
  await rm(base, { recursive: true, force: true });
});

it("a background command that fills a later command's placeholder commondir has the repository moved", async () => {
  const marker = join(base, "PWNED");
  // The background command makes a gitlinked repository, then waits for the next command's survey to block
  // its commondir with a placeholder, and points it at a git folder whose config runs a command.
  const background = [
    "git init -q sub && git -C sub -c user.email=t@t -c user.name=t commit -q --allow-empty -m x && git add sub",
    "mkdir -p node_modules/evil && cp -r sub/.git/objects sub/.git/refs node_modules/evil/",
    `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = "touch ${marker}; false"\\n' > node_modules/evil/config`,
    "for i in $(seq 600); do [ -f sub/.git/commondir ] && break; sleep 0.1; done",
    "[ -f sub/.git/commondir ] || { echo no-placeholder; exit 3; }",
    // Once the later command's sandbox is up (its setup fails closed on a file that changes under it).
    "sleep 3",
    `printf '${ws}/node_modules/evil\\n' > sub/.git/commondir && echo filled`,
  ].join("\n");
  const started = await gate.execute({ name: "shell", args: { command: background, background: true } });
  expect(started.ok, started.llmContent).toBe(true);
  const id = (started.data as { id: string }).id;
  // A later command, once the repository is in the index: its survey makes the placeholder.
  for (let i = 0; i < 600 && !git(ws, "ls-files", "-s").includes("160000"); i++)
    await new Promise((done) => setTimeout(done, 100));
  const later = await gate.execute({ name: "shell", args: { command: "sleep 8" } });
  expect(later.ok, later.llmContent).toBe(true);
  let output = "";
  for (let i = 0; i < 600; i++) {
    const read = await gate.execute({ name: "shell_processes", args: { action: "read", id } });
    const data = read.data as { status?: string; stdout?: string } | undefined;
    if (data?.status === "exited") {
      output = `${read.llmContent}`;
      break;
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  // The attack got as far as filling the placeholder (else this test could not fail).
  expect(output).toContain("filled");
  expect(output).toMatch(/moved sub\/\.git/);
  // The person's git on the host runs nothing the command planted.
  git(ws, "status", "--short");
  expect(existsSync(marker), "git on the host ran the planted fsmonitor").toBe(false);
  if (existsSync(join(ws, "sub", ".git", "commondir")))
    expect(readFileSync(join(ws, "sub", ".git", "commondir"), "utf8")).not.toContain("evil");
});
