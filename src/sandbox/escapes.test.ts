/**
 * Real escape attempts through the shell tool inside real bubblewrap, under a policy that allows (and a person
 * who approves) every command: each attempt in testdata/escapes.json must fail, foreground and background, and the
 * everyday work in testdata/everyday.json must keep working. Where bwrap cannot run, the first test says why and
 * fails: the sandbox is never skipped quietly.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AbstractCanary, startAbstractCanary } from "../test-support/abstract-canary.js";
import { createToolgate, type Toolgate } from "../toolgate.js";
import { sandboxSupport } from "./detect.js";
import { flushPlaceholders } from "./placeholders.js";

interface EscapeCase {
  note: string;
  command: string;
  check: "absent" | "unchanged" | "secret" | "canary" | "victim" | "leftover" | "later" | "git-runs";
  path?: string;
  tag?: string;
  /** A command run first (sandboxed), e.g. to prepare what the attempt relies on. */
  setup?: string;
  /** A command run on the host before the setup: the person's own state that the attempt relies on. */
  before?: string;
  /** write_file must refuse `path` as well. */
  files?: boolean;
  /**
   * A command run on the host (unsandboxed, as the person would) after the sandboxed command and before the
   * check: some effects show only once an ordinary host program (git, npm) runs. `$SECRET` is filled in.
   */
  host?: string;
  /** A command run on the host (unsandboxed) after the check, to undo what the setup made for later cases. */
  cleanup?: string;
}
interface EverydayCase {
  note: string;
  command: string;
  stdout?: string;
  exitCode?: number;
}

const here = dirname(fileURLToPath(import.meta.url));
const escapes = (
  JSON.parse(readFileSync(join(here, "testdata", "escapes.json"), "utf8")) as { cases: EscapeCase[] }
).cases;
const everyday = (
  JSON.parse(readFileSync(join(here, "testdata", "everyday.json"), "utf8")) as { cases: EverydayCase[] }
).cases;

const SECRET = `S3CRET-${process.pid}-${Date.now()}`;
let base: string;
/** Outside /tmp: the private /tmp would hide a folder under it, and attempts there would fail for the wrong reason. */
let hostBase: string;
let ws: string;
let out: string;
let home: string;
let gate: Toolgate;
let canary: Server;
/** The same canary on a unix socket file listed in `[sandbox] hidden`, and one on an abstract unix socket. */
let socketCanary: Server;
/** Unix sockets no list hides: one in a readable folder outside (a terminal multiplexer's, PostgreSQL's), and a
 * Docker Desktop socket under the home folder. Only the seccomp filter (and, for the second, the emptied home
 * folder) keeps a command from them. */
const openSockets: Server[] = [];
let abstractCanary: AbstractCanary;
const ABSTRACT = `toolgate-canary-${process.pid}`;
let port = 0;
let hits = 0;
let victim: ChildProcess;
const savedHome = process.env.HOME;
const savedPath = process.env.PATH;
const savedXdg = process.env.XDG_CONFIG_HOME;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "toolgate-sandbox-"));
  ws = join(base, "ws");
  // /var/tmp is on the root file system (visible, read-only, inside); fall back to /tmp where it is missing.
  hostBase = await mkdtemp(join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), "toolgate-sandbox-host-"));
  out = join(hostBase, "outside");
  home = join(hostBase, "home");
  await mkdir(join(ws, ".toolgate"), { recursive: true });
  await mkdir(join(ws, "keys"), { recursive: true });
  await mkdir(out, { recursive: true });
  await mkdir(join(home, ".config", "toolgate", "state"), { recursive: true });
  await writeFile(join(home, ".config", "toolgate", "trusted.json"), `{"token":"${SECRET}"}\n`);
  await writeFile(join(home, ".config", "toolgate", "state", "memory.json"), `{"note":"${SECRET}"}\n`);
  await writeFile(join(home, ".bashrc"), "original\n");
  await mkdir(join(home, ".ssh"), { recursive: true });
  await mkdir(join(home, ".aws"), { recursive: true });
  await writeFile(join(ws, ".env"), `TOKEN=${SECRET}\n`);
  await writeFile(join(ws, "keys", "deploy.pem"), `-----BEGIN KEY-----\n${SECRET}\n`);
  await writeFile(join(ws, ".toolgate", "existing.toml"), 'default = "ask"\n');
  // What a transcript and the project memory hold after a person approved reading a secret once.
  await mkdir(join(ws, ".toolgate", "sessions"));
  await mkdir(join(ws, ".toolgate", "state"));
  await writeFile(join(ws, ".toolgate", "sessions", "s.jsonl"), `{"type":"result","text":"${SECRET}"}\n`);
  await writeFile(join(ws, ".toolgate", "state", "memory.json"), `{"note":"${SECRET}"}\n`);
  await writeFile(join(out, "existing"), "original\n");
  // Another project's git folder outside the workspace, with a token in a subsection (a command may name it
  // from a .git file; the check must not read it and say what it holds).
  await mkdir(join(out, "victim-repo"), { recursive: true });
  await writeFile(
    join(out, "victim-repo", "config"),
    `[url "https://u:${SECRET}@example.invalid/"]\n\tinsteadOf = https://example.invalid/\n`,
  );
  await writeFile(join(home, ".ssh", "id_rsa"), `${SECRET}\n`);
  await writeFile(join(home, ".aws", "credentials"), `aws_secret_access_key=${SECRET}\n`);
  // Credentials no list names: the emptied home folder keeps them out of reach.
  for (const file of [
    ".pgpass",
    ".bash_history",
    ".zsh_history",
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".cache/huggingface/token",
    ".config/rclone/rclone.conf",
    ".local/share/keyrings/login.keyring",
    "other-project/.env",
  ]) {
    await mkdir(dirname(join(home, file)), { recursive: true });
    await writeFile(join(home, file), `${SECRET}\n`);
  }
  // A toolchain that stays visible (read-only).
  await mkdir(join(home, ".cargo", "bin"), { recursive: true });
  await writeFile(join(home, ".cargo", "bin", "tool"), "original\n");
  // Cargo's credentials, and a registry token in its config: hidden though ~/.cargo stays visible.
  await writeFile(join(home, ".cargo", "credentials"), `token = "${SECRET}"\n`);
  await writeFile(join(home, ".cargo", "credentials.toml"), `[registry]\ntoken = "${SECRET}"\n`);
  await writeFile(join(home, ".cargo", "config.toml"), `[registries.corp]\ntoken = "${SECRET}"\n`);
  for (const name of [".env-production", ".env~", ".env_local"])
    await writeFile(join(ws, name), `${SECRET}\n`);
  // Cloud and cluster credentials kept in a project: a GCP key, Terraform state, a cluster's kubeconfig.
  await mkdir(join(ws, "infra", ".kube"), { recursive: true });
  for (const name of [
    "service-account.json",
    "infra/prod-service-account-key.json",
    "infra/terraform.tfstate",
    "infra/terraform.tfstate.backup",
    "infra/kubeconfig",
    "infra/.kube/config",
  ])
    await writeFile(join(ws, name), `${SECRET}\n`);
  await mkdir(join(ws, "deep", "a", "b", "c", "d", "e"), { recursive: true });
  await writeFile(join(ws, "deep", "a", "b", "c", "d", "e", ".env"), `${SECRET}\n`);
  await mkdir(join(ws, "locked"));
  await writeFile(join(ws, "locked", ".env"), `${SECRET}\n`);
  // As in a real project: the secrets are not committed.
  await writeFile(
    join(ws, ".gitignore"),
    ".env*\nkeys/\n*.pem\n*.key\n*service-account*.json\n*.tfstate*\nkubeconfig\n.kube/\n",
  );
  await run("git", ["init", "-q", ws]);
  await run("git", ["-C", ws, "config", "core.hooksPath", ".githooks"]);
  // A secret-named file the project commits (a template): staged while older than the index, so git (and
  // the survey) count it unchanged.
  await writeFile(join(ws, ".env.example"), "TOKEN=\n");
  await run("touch", ["-d", "2020-01-01", join(ws, ".env.example")]);
  await run("git", ["-C", ws, "add", "-f", ".env.example"]);
  // The survey reads the home folder from HOME; this file runs in its own process.
  process.env.HOME = home;
  // A key in toolgate's own environment: the sanitizer must keep it from every process in the sandbox.
  process.env.TOOLGATE_ESCAPE_API_KEY = SECRET;
  canary = createServer((socket) => {
    hits++;
    socket.destroy();
  });
  await new Promise<void>((done) => canary.listen(0, "127.0.0.1", done));
  port = (canary.address() as { port: number }).port;
  const count = (socket: import("node:net").Socket) => {
    hits++;
    socket.destroy();
  };
  abstractCanary = await startAbstractCanary(ABSTRACT);
  socketCanary = createServer(count);
  await new Promise<void>((done) => socketCanary.listen(join(out, "host.sock"), done));
  await mkdir(join(home, ".docker", "run"), { recursive: true });
  for (const path of [join(out, "open.sock"), join(home, ".docker", "run", "docker.sock")]) {
    const server = createServer(count);
    await new Promise<void>((done) => server.listen(path, done));
    openSockets.push(server);
  }
  // A folder where setups add more folders than the survey reads (a .env past its limit).
  await mkdir(join(ws, "many", "zz", "a"), { recursive: true });
  await writeFile(join(ws, "many", "zz", "a", ".env"), `TOKEN=${SECRET}\n`);
  // Outlives the whole file however slow the machine (killed in afterAll): a victim that ends by itself would fail
  // the "victim" cases.
  victim = spawn("sleep", ["86400"], { env: { ...process.env, VICTIM_TOKEN: SECRET }, stdio: "ignore" });
  // Workspace folders first on toolgate's PATH, as an activated virtual environment or direnv's PATH_add puts
  // them (red team I5/I5c): read-only to commands, and never where toolgate finds bwrap or git.
  for (const dir of [".venv/bin", ".direnv/bin"]) await mkdir(join(ws, dir), { recursive: true });
  process.env.PATH = `${join(ws, ".venv/bin")}:${join(ws, ".direnv/bin")}:${savedPath}`;
  // The toolgate folders are found from XDG_CONFIG_HOME first: point it at the fake home for this file.
  process.env.XDG_CONFIG_HOME = join(home, ".config");
  gate = await createToolgate({
    roots: [ws],
    policyText: 'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "allow"\n',
    config: { sandbox: { mode: "workspace-write", hidden: [join(out, "host.sock")] } },
  });
  // Whatever the analysis cannot vouch for is asked about: a person approves every command here.
  gate.bus.onConfirmation(async () => ({ approved: true }));
});

afterAll(async () => {
  await run("chmod", ["-R", "u+rwx", base]);
  process.env.HOME = savedHome;
  process.env.PATH = savedPath;
  delete process.env.TOOLGATE_ESCAPE_API_KEY;
  if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedXdg;
  victim?.kill("SIGKILL");
  await gate?.close();
  await new Promise((done) => canary?.close(done));
  await abstractCanary?.close();
  await new Promise((done) => socketCanary?.close(done));
  for (const server of openSockets) await new Promise((done) => server.close(done));
  await rm(base, { recursive: true, force: true });
  await rm(hostBase, { recursive: true, force: true });
});

/** Connections every canary has seen (loopback, socket file, abstract socket). */
const allHits = () => hits + abstractCanary.hits();

function run(cmd: string, args: string[]): Promise<number | null> {
  return new Promise((done) => spawn(cmd, args, { stdio: "ignore" }).on("exit", done));
}

const fill = (text: string) =>
  text
    .replaceAll("$WS", ws)
    .replaceAll("$OUT", out)
    .replaceAll("$HOME", home)
    .replaceAll("$PORT", String(port))
    .replaceAll("$ABSTRACT", ABSTRACT)
    .replaceAll("$VICTIM", String(victim.pid))
    .replaceAll("$SECRET", SECRET);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Host processes whose command line is `sleep TAG` (the kernel may take a moment to reap a dead namespace). */
/** Whether a `sleep TAG` process runs now. */
function running(tag: string): boolean {
  return readdirSync("/proc").some((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8") === `sleep\0${tag}\0`;
    } catch {
      return false;
    }
  });
}

async function survivors(tag: string): Promise<number[]> {
  const find = () =>
    readdirSync("/proc")
      .filter((e) => /^\d+$/.test(e))
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, "utf8") === `sleep\0${tag}\0`;
        } catch {
          return false;
        }
      })
      .map(Number);
  for (let i = 0; i < 50; i++) {
    if (find().length === 0) return [];
    await new Promise((done) => setTimeout(done, 100));
  }
  return find();
}

async function waitForExit(id: string): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const read = await gate.execute({ name: "shell_processes", args: { action: "read", id } });
    const data = read.data as { status?: string; stdout?: string; stderr?: string } | undefined;
    if (data?.status === "exited") return `${data.stdout ?? ""}${data.stderr ?? ""}`;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`background process ${id} did not exit`);
}

async function expectContained(c: EscapeCase, output: string, hitsBefore: number): Promise<void> {
  try {
    await expectContainedOnce(c, output, hitsBefore);
  } finally {
    if (c.cleanup) await run("bash", ["-c", fill(c.cleanup)]);
  }
}

async function expectContainedOnce(c: EscapeCase, output: string, hitsBefore: number): Promise<void> {
  const path = c.path ? fill(c.path) : "";
  // Placeholders linger a few seconds for the next command; what the command made must be gone without them.
  flushPlaceholders();
  if (c.host) await run("bash", ["-c", fill(c.host)]);
  switch (c.check) {
    case "absent":
      expect(existsSync(path), `${path} was created`).toBe(false);
      break;
    case "later": {
      const later = await gate.execute({ name: "shell", args: { command: "echo still-works" } });
      expect(later.llmContent).toContain("still-works");
      expect(later.ok, later.llmContent).toBe(true);
      break;
    }
    case "git-runs":
      // As a person would, outside the sandbox: git must not run what the command planted.
      if (existsSync(path)) await run("git", ["-C", path, "status", "--short"]);
      expect(existsSync(join(out, "git-ran")), "git ran a command the sandboxed command planted").toBe(false);
      break;
    case "unchanged": {
      const original = path.endsWith("existing") ? "original\n" : undefined;
      if (original) expect(readFileSync(path, "utf8")).toBe(original);
      else expect(existsSync(path), `${path} is gone`).toBe(true);
      if (path.endsWith(".env")) expect(readFileSync(path, "utf8")).toBe(`TOKEN=${SECRET}\n`);
      if (path.endsWith("config")) expect(readFileSync(path, "utf8")).not.toMatch(/fsmonitor|pwned/);
      if (path.endsWith(".toml")) expect(readFileSync(path, "utf8")).toBe('default = "ask"\n');
      if (path.endsWith(".bashrc") || path.endsWith("tool"))
        expect(readFileSync(path, "utf8")).toBe("original\n");
      break;
    }
    case "secret":
      expect(output).not.toContain(SECRET);
      break;
    case "canary":
      expect(allHits() - hitsBefore, "the canary server was reached").toBe(0);
      break;
    case "victim":
      expect(alive(victim.pid!), "the process outside was killed").toBe(true);
      break;
    case "leftover":
      expect(await survivors(c.tag!), "a process outlived the call").toEqual([]);
      break;
  }
}

it("bwrap can create sandboxes on this machine (the tests below need it; install bubblewrap)", () => {
  const support = sandboxSupport();
  expect(support.reason ?? "available").toBe("available");
});

/** Runs a case's setup command, sandboxed like the attempt. */
async function setUp(c: EscapeCase): Promise<void> {
  if (c.before) await run("bash", ["-c", fill(c.before)]);
  if (c.setup) await gate.execute({ name: "shell", args: { command: fill(c.setup), timeout: 30_000 } });
}

it("the abstract-socket canary is reachable from outside the sandbox (so its cases can fail)", async () => {
  const before = abstractCanary.hits();
  const connect = `import socket; socket.socket(socket.AF_UNIX).connect("\\0${ABSTRACT}")`;
  expect(await run("python3", ["-c", connect])).toBe(0);
  expect(await run("socat", ["-u", "OPEN:/dev/null", `ABSTRACT-CONNECT:${ABSTRACT}`])).toBe(0);
  await abstractCanary.waitForHits(before + 2);
});

describe("escape attempts fail (foreground)", () => {
  it.each(escapes.map((c) => [c.note, c] as const))("%s", async (_note, c) => {
    await setUp(c);
    const before = allHits();
    const result = await gate.execute({ name: "shell", args: { command: fill(c.command), timeout: 30_000 } });
    expect(result.decision).not.toBe("deny");
    expect(result.sandbox).toBe("workspace-write");
    // The attempt ran inside the sandbox: a sandbox that failed to start would make every check pass.
    expect(`${result.llmContent}`).not.toMatch(/^bwrap: /m);
    await expectContained(c, `${result.llmContent}`, before);
  });
});

describe("escape attempts fail (background)", () => {
  it.each(escapes.map((c) => [c.note, c] as const))("%s", async (_note, c) => {
    await setUp(c);
    const before = allHits();
    // Tags differ from the foreground run's, so a survivor there cannot pass for one here.
    const command = c.tag ? fill(c.command).replaceAll(c.tag, `${c.tag}9`) : fill(c.command);
    const started = await gate.execute({ name: "shell", args: { command, background: true } });
    expect(started.ok, started.llmContent).toBe(true);
    const output = await waitForExit((started.data as { id: string }).id);
    expect(output).not.toMatch(/^bwrap: /m);
    await expectContained(c.tag ? { ...c, tag: `${c.tag}9` } : c, output, before);
  });

  it("shell_processes stop ends everything the command started, setsid included", async () => {
    const command = "setsid sleep 3301 & nohup sleep 3302 & sleep 3303";
    const started = await gate.execute({ name: "shell", args: { command, background: true } });
    const id = (started.data as { id: string }).id;
    // Stop only once all three run (however slow the machine), so the stop has something to end.
    for (let i = 0; i < 600 && !["3301", "3302", "3303"].every(running); i++)
      await new Promise((done) => setTimeout(done, 100));
    expect(["3301", "3302", "3303"].every(running)).toBe(true);
    const stopped = await gate.execute({ name: "shell_processes", args: { action: "stop", id } });
    expect(stopped.ok, stopped.llmContent).toBe(true);
    for (const tag of ["3301", "3302", "3303"]) expect(await survivors(tag)).toEqual([]);
  });
});

describe("the file tools refuse the same paths", () => {
  const paths = escapes.filter((c) => c.files);
  it.each(paths.map((c) => [c.note, c] as const))("%s", async (_note, c) => {
    const result = await gate.execute({ name: "write_file", args: { path: fill(c.path!), content: "x" } });
    expect(result.ok).toBe(false);
    expect(result.llmContent).toMatch(/protected/);
  });
});

describe("everyday work keeps working", () => {
  it.each(everyday.map((c) => [c.note, c] as const))("%s", async (_note, c) => {
    const result = await gate.execute({ name: "shell", args: { command: fill(c.command), timeout: 60_000 } });
    const data = result.data as { exitCode: number | null; stdout: string };
    expect(data.exitCode, result.llmContent).toBe(c.exitCode ?? 0);
    if (c.stdout) expect(data.stdout).toContain(c.stdout);
  });

  it("streams output as it comes", async () => {
    const chunks: string[] = [];
    const result = await gate.execute(
      { name: "shell", args: { command: "echo one; sleep 0.3; echo two" } },
      { onOutput: (chunk) => chunks.push(chunk) },
    );
    expect(result.ok).toBe(true);
    expect(chunks.join("")).toContain("one");
    expect(chunks.join("")).toContain("two");
  });

  it("leaves no placeholder behind in the workspace", async () => {
    await gate.execute({ name: "shell", args: { command: "true" } });
    flushPlaceholders();
    const names = readdirSync(ws).sort();
    for (const name of [".envrc", ".mcp.json", ".vscode", ".bashrc", ".github", ".gitmodules", ".npmrc"]) {
      expect(names).not.toContain(name);
    }
  });
});
