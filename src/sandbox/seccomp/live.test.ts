/**
 * The seccomp filter in the real kernel. testdata/live.json's commands run as a non-root user (`tgtest` when the
 * tests run as root: root inside a sandbox hides real breaks) through toolgate's own shell tool inside real
 * bwrap; each attempt that names a control runs again in the same bwrap without the filter, where it must get
 * through — so the filter, not something else, is what refuses it. A unix socket on the host counts connections:
 * none may come from a filtered command. The commands start in a session keyring holding a canary key.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmod, chown, copyFile, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxSupport } from "../detect.js";
import LIVE from "./testdata/live.json" with { type: "json" };

interface LiveCase {
  note: string;
  command: string;
  want: string;
  exitCode?: number;
  quiet?: boolean;
  control?: string;
}
interface Outcome {
  note: string;
  stdout: string;
  stderr: string;
  exitCode: number | null;
}

const rows = LIVE.cases as LiveCase[];
const testdata = join(dirname(fileURLToPath(import.meta.url)), "testdata");
const USER = "tgtest";

let ws: string;
let hostDir: string;
let canary: Server;
let hits = 0;
let hitsFromFiltered = -1;
const filtered = new Map<string, Outcome>();
const control = new Map<string, Outcome>();

/** How to run a command as a non-root user: as is when the tests are not root, else through runuser. */
function asNonRoot(): { prefix: string[]; uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return { prefix: [] };
  const id = (flag: string) => spawnSync("id", [flag, USER], { encoding: "utf8" });
  const uid = id("-u");
  if (uid.status !== 0)
    throw new Error(
      `the live seccomp tests run commands as a non-root user: create one (useradd -m ${USER})`,
    );
  return { prefix: ["runuser", "-u", USER, "--"], uid: Number(uid.stdout), gid: Number(id("-g").stdout) };
}

function runAs(
  prefix: string[],
  mode: "filtered" | "control",
  subs: Record<string, string>,
): Promise<Outcome[]> {
  const path = `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;
  const probe = join(testdata, "probe.py");
  const runner = join(testdata, "live-runner.mjs");
  const argv = [...prefix, "env", `PATH=${path}`, "python3", probe, "with-session-key"];
  argv.push(process.execPath, runner, mode, ws, JSON.stringify(subs));
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0) reject(new Error(`the ${mode} runner exited ${code}: ${err}`));
      else
        resolve(
          out
            .trim()
            .split("\n")
            .map((line) => JSON.parse(line) as Outcome),
        );
    });
  });
}

beforeAll(async () => {
  if (!sandboxSupport().available) return;
  const user = asNonRoot();
  ws = await mkdtemp(join(tmpdir(), "toolgate-seccomp-"));
  // /var/tmp is on the root file system: visible inside the sandbox (its /tmp is private).
  hostDir = await mkdtemp(join("/var/tmp", "toolgate-seccomp-host-"));
  if (user.uid !== undefined) await chown(ws, user.uid, user.gid!);
  await chmod(hostDir, 0o755);
  const socket = join(hostDir, "canary.sock");
  // Counts each connection and reads it to its end (closing at once would fail a writer with EPIPE).
  canary = createServer((connection) => {
    hits++;
    connection.on("error", () => {});
    connection.resume();
    connection.on("end", () => connection.end());
  });
  await new Promise<void>((done) => canary.listen(socket, done));
  await chmod(socket, 0o777);
  // The probe runs inside the sandbox: from /var/tmp, since a checkout under /tmp is not visible there.
  const probe = join(hostDir, "probe.py");
  await copyFile(join(testdata, "probe.py"), probe);
  await chmod(probe, 0o644);
  const subs = { probe, canary: socket };
  for (const o of await runAs(user.prefix, "filtered", subs)) filtered.set(o.note, o);
  hitsFromFiltered = hits;
  for (const o of await runAs(user.prefix, "control", subs)) control.set(o.note, o);
}, 600_000);

afterAll(async () => {
  if (canary) await new Promise((done) => canary.close(done));
  if (ws) await rm(ws, { recursive: true, force: true });
  if (hostDir) await rm(hostDir, { recursive: true, force: true });
});

describe("the seccomp filter in real bwrap, as a non-root user", () => {
  it("runs here (bwrap works and the commands ran)", () => {
    const support = sandboxSupport();
    expect(support.available, `the sandbox cannot run here: ${support.reason}; ${support.fix}`).toBe(true);
    expect(filtered.size).toBe(rows.length);
  });

  it.each(rows.map((row) => [row.note, row] as const))("%s", (_note, row) => {
    const got = filtered.get(row.note);
    expect(got, "the runner gave no result").toBeDefined();
    const shown = `stdout: ${got!.stdout}\nstderr: ${got!.stderr}`;
    expect(got!.stdout, shown).toContain(row.want);
    expect(got!.exitCode, shown).toBe(row.exitCode ?? 0);
    if (row.quiet) expect(got!.stderr, shown).toBe("");
    if (row.control === undefined) return;
    const without = control.get(row.note);
    expect(without?.stdout, `without the filter: ${JSON.stringify(without)}`).toContain(row.control);
  });

  it("let no filtered command connect to the host's unix socket, which the same commands reach without it", () => {
    expect(hitsFromFiltered).toBe(0);
    const reaching = rows.filter((r) => r.command.includes("{canary}") && r.control !== undefined).length;
    expect(hits - hitsFromFiltered).toBe(reaching);
  });
});
