/**
 * Breaks found by the red team of 2026-11-27 that cannot be rows of testdata/escapes.json because the escape
 * suite calls toolgate in its own process, and a synchronous read blocked on a FIFO would stop that process (and
 * the suite) for good. Here toolgate runs as the built binary in a child process, watched for the state of being
 * blocked on a FIFO, and killed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN } from "../test-support/cli.js";

interface HangCase {
  note: string;
  /** Run on the host in the repository first: what a sandboxed command could not plant. */
  setup?: string;
  /** Run sandboxed: what the red team's command did. */
  command?: string;
  /** The later call's arguments (default: a sandboxed `echo still-works`). */
  later?: string[];
  /** What the later call prints (default `still-works`). */
  expect?: string;
  hangs: "command" | "later";
}

const here = dirname(fileURLToPath(import.meta.url));
const cases = (
  JSON.parse(readFileSync(join(here, "testdata", "redteam-hangs.json"), "utf8")) as { cases: HangCase[] }
).cases;

let base: string;
let env: Record<string, string>;

beforeAll(async () => {
  base = await mkdtemp("/var/tmp/toolgate-redteam-");
  await writeFile(
    join(base, "policy.toml"),
    'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "allow"\n',
  );
  await mkdir(join(base, "xdg", "toolgate"), { recursive: true });
  await mkdir(join(base, "home"));
  env = { XDG_CONFIG_HOME: join(base, "xdg"), HOME: join(base, "home") };
});
afterAll(() => rm(base, { recursive: true, force: true }));

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Whether a thread of the process waits in the kernel for the other end of a FIFO. */
function blockedOnFifo(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/task`).some(
      (task) => readFileSync(`/proc/${pid}/task/${task}/wchan`, "utf8") === "wait_for_partner",
    );
  } catch {
    return false;
  }
}

interface CallResult {
  output: string;
  blocked: boolean;
}

/** Runs one sandboxed command through the CLI; stops it (SIGKILL) as soon as it blocks on a FIFO. */
function call(ws: string, command: string): Promise<CallResult> {
  return cli(ws, ["call", "shell", JSON.stringify({ command }), "--policy", join(base, "policy.toml")]);
}

/** Runs the CLI with `args` in `ws`; stops it (SIGKILL) as soon as it blocks on a FIFO. */
function cli(ws: string, args: readonly string[]): Promise<CallResult> {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args, "--workspace", ws], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  return new Promise((resolve, reject) => {
    let blocked = false;
    let done = false;
    child.on("error", reject);
    child.on("close", () => {
      done = true;
      resolve({ output, blocked });
    });
    void (async () => {
      while (!done) {
        if (child.pid !== undefined && blockedOnFifo(child.pid)) {
          blocked = true;
          child.kill("SIGKILL");
          return;
        }
        await pause(100);
      }
    })();
  });
}

function sh(ws: string, script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", script], { cwd: ws, stdio: "ignore" });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${script}: ${code}`))));
  });
}

async function repository(name: string): Promise<string> {
  const ws = join(base, name);
  await mkdir(ws);
  const git = (...args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn("git", ["-C", ws, ...args], { stdio: "ignore" });
      child.on("error", reject);
      child.on("close", (code) =>
        code === 0 ? resolve() : reject(new Error(`git ${args.join(" ")}: ${code}`)),
      );
    });
  await writeFile(join(ws, "README.md"), "hello\n");
  await git("init", "-q");
  await git("add", "-A");
  await git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init");
  return ws;
}

describe("a FIFO where toolgate reads a file cannot make it block", () => {
  it.each(cases.map((c, i) => [c.note, c, i] as const))("%s", async (_note, c, i) => {
    const ws = await repository(`ws-${i}`);
    if (c.setup) await sh(ws, c.setup);
    if (c.command !== undefined) {
      const first = await call(ws, c.command);
      expect(first.blocked, `the command's own call blocked on a FIFO: ${first.output}`).toBe(false);
    }
    const later = c.later ? await cli(ws, c.later) : await call(ws, "echo still-works");
    expect(later.blocked, `a later call blocked on a FIFO: ${later.output}`).toBe(false);
    expect(later.output).toContain(c.expect ?? "still-works");
  });
});

describe("a command's output cannot drive the person's terminal", () => {
  it("escape sequences (OSC 52 sets the clipboard, OSC 0 the title) do not reach toolgate's output raw", async () => {
    const ws = await repository("ws-escapes");
    const result = await call(ws, "printf '\\033]52;c;ZWNobyBwd25lZAo=\\007\\033]0;title\\007ok\\n'");
    expect(result.output).toContain("ok");
    expect(result.output.includes("\u001b"), JSON.stringify(result.output)).toBe(false);
    expect(result.output).toContain("\\x1b]52;c;");
  });

  it("--json keeps the output exact (JSON escapes the control characters itself)", async () => {
    const ws = await repository("ws-escapes-json");
    const command = "printf '\\033]0;title\\007ok\\n'";
    const result = await cli(ws, [
      "call",
      "shell",
      JSON.stringify({ command }),
      "--json",
      "--policy",
      join(base, "policy.toml"),
    ]);
    expect(result.output.includes("\u001b"), JSON.stringify(result.output)).toBe(false);
    const line = result.output.split("\n").find((l) => l.startsWith("{"));
    expect(JSON.parse(line ?? "null").returnDisplay).toContain("\u001b]0;title\u0007ok");
  });
});

describe("a secret written while a command runs (a documented limit: docs/sandbox.md)", () => {
  // The mounts are decided once, when the command starts: a secret the person (or a login tool) writes into the
  // workspace while a long command runs (a dev server, a watcher, a background job) is not hidden from it. bwrap
  // has no way to hide a path that does not exist yet; what toolgate does is say so in the result, naming it.
  it("a .pem file created on the host after the command started is readable by it, and the result says so", async () => {
    const ws = await repository("ws-later-secret");
    const secret = `LATER-SECRET-${process.pid}`;
    const running = call(ws, "touch started; while [ ! -e later.pem ]; do sleep 0.2; done; cat later.pem");
    while (!existsSync(join(ws, "started"))) await pause(100);
    await writeFile(join(ws, "later.pem"), `${secret}\n`);
    const result = await running;
    expect(result.output).toContain(secret);
    expect(result.output).toMatch(
      /\[sandbox: \S*later\.pem appeared or changed while the command ran and was not hidden from it/,
    );
  });

  it("a secret that was there when the command started is neither readable nor reported", async () => {
    const ws = await repository("ws-earlier-secret");
    const secret = `EARLIER-SECRET-${process.pid}`;
    await writeFile(join(ws, "earlier.pem"), `${secret}\n`);
    const result = await call(ws, "cat earlier.pem; echo done");
    expect(result.output).toContain("done");
    expect(result.output).not.toContain(secret);
    expect(result.output).not.toContain("appeared or changed");
  });
});
