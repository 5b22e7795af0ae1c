/**
 * The README's quick starts, run as a newcomer would (issue 30): a fresh `git clone` of this repository,
 * installed as "Install" says, then quick starts 1–3 as written, each in a fresh folder of its own, by a
 * fresh user (nothing trusted, no settings). The blocks are read from the clone's README, so what is
 * checked is what a reader sees. It clones what is committed: uncommitted edits are not in the clone.
 *
 * Install: `npm ci` (from the npm cache the repository's own install filled; install scripts off, since
 * ripgrep's would download its binary from GitHub, so its `prepare` build runs on its own: buildLikeInstall), and
 * `npm link`, done by hand in a test: a folder first on PATH holding `toolgate` → the package's `bin`.
 * Quick start 1: every line exits as its comment says, and each `policy check` answers the decision its
 * comment names. Quick start 2: the library block prints what its comment says. Quick start 3 needs a model:
 * a stand-in speaking Ollama's API on 127.0.0.1 (`OLLAMA_HOST`) replaces its two `ollama` lines.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../llm/testdata/model-server.js";
import { REPO_ROOT, runProcess } from "../test-support/cli.js";
import { type DocBlock, extractBlocks, shellCommands } from "../test-support/doc-blocks.js";

const exec = promisify(execFile);
/** Installing and building a clone on a busy two-core machine takes minutes. */
const SLOW = 900_000;
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

let work: string;
let clone: string;
let readme: string;
let bin: string;
let blocks: DocBlock[];

/** The code blocks of the README section whose heading starts with `heading`. */
function section(heading: string): DocBlock[] {
  const lines = readme.split("\n");
  const start = lines.findIndex((l) => l.startsWith(`## ${heading}`));
  expect(start, `README has a section "## ${heading}"`).toBeGreaterThanOrEqual(0);
  const next = lines.findIndex((l, i) => i > start && l.startsWith("## "));
  const end = next < 0 ? lines.length : next;
  return blocks.filter((b) => {
    const line = Number(b.where.split(":")[1]) - 1;
    return line > start && line < end;
  });
}

/** A fresh folder with a README.md (as quick start 1 asks), and a fresh user: its own HOME, nothing trusted. */
async function newcomer(name: string, files: Record<string, string> = {}) {
  const dir = await realpath(await mkdtemp(join(work, `${name}-`)));
  const folder = join(dir, "project");
  const home = join(dir, "home");
  await mkdir(join(folder, "src"), { recursive: true });
  await mkdir(home);
  await writeFile(join(folder, "README.md"), readme);
  for (const [path, text] of Object.entries(files)) await writeFile(join(folder, path), text);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    NO_COLOR: "1",
  };
  return { folder, env };
}

/** One command line, run by bash in `cwd` (no terminal, stdin closed). */
const bash = (command: string, cwd: string, env: NodeJS.ProcessEnv) =>
  runProcess("bash", ["-c", command], { cwd, env });

/** The decision a line's comment names (`# allow, by …`, `# decide without running: ask …`), if any. */
function statedDecision(command: string): string | undefined {
  const comment = command.slice(command.lastIndexOf(" # ") + 3);
  return /\b(allow|ask|deny)\b/.exec(comment)?.[1];
}

/**
 * The build `npm ci`'s `prepare` runs. When the clone's build inputs have the digest of this checkout's
 * dist/.build-stamp (scripts/build.mjs: sources, data, compiler settings, bundler, lock), that build's output
 * is this checkout's dist/, which the test run's set-up built from them: copy it rather than compile the same
 * sources again (over a minute on a busy two-core machine). Any difference — an uncommitted edit, a file
 * git does not track — and the clone builds itself.
 */
async function buildLikeInstall(): Promise<void> {
  const digest = (await exec(process.execPath, ["scripts/build.mjs", "--digest", clone], { cwd: clone }))
    .stdout;
  const stamp = await readFile(join(REPO_ROOT, "dist", ".build-stamp"), "utf8").catch(() => "");
  if (stamp.trim() !== "" && stamp.trim() === digest.trim()) {
    await cp(join(REPO_ROOT, "dist"), join(clone, "dist"), { recursive: true });
  } else {
    await exec(npm, ["run", "build"], { cwd: clone, maxBuffer: 64 * 1024 * 1024 });
  }
}

beforeAll(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), "tg-quick-start-")));
  clone = join(work, "toolgate");
  await exec("git", ["clone", "--quiet", "--no-hardlinks", REPO_ROOT, clone]);
  await exec(npm, ["ci", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"], {
    cwd: clone,
    maxBuffer: 64 * 1024 * 1024,
  });
  await buildLikeInstall();
  // What `npm link` does for the command: `toolgate` on PATH is the package's bin.
  const pkg = JSON.parse(await readFile(join(clone, "package.json"), "utf8")) as {
    bin: { toolgate: string };
  };
  bin = join(work, "bin");
  await mkdir(bin);
  await symlink(join(clone, pkg.bin.toolgate), join(bin, "toolgate"));
  readme = await readFile(join(clone, "README.md"), "utf8");
  blocks = extractBlocks(readme, "README.md");
}, SLOW);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("README, from a fresh clone", () => {
  it("Install names the package's bin, and `toolgate --version` answers through it", async () => {
    const pkg = JSON.parse(await readFile(join(clone, "package.json"), "utf8")) as {
      version: string;
      bin: { toolgate: string };
    };
    const [install] = section("Install").filter((b) => b.lang === "sh");
    expect(install?.code).toContain(pkg.bin.toolgate);
    expect(install?.code).toContain("toolgate --version");
    const { folder, env } = await newcomer("install");
    const r = await bash("toolgate --version", folder, env);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toContain(pkg.version);
  });

  it(
    "quick start 1: every line exits as its comment says; each policy check answers the decision it names",
    async () => {
      const [block] = section("Quick start 1").filter((b) => b.mode === "shell");
      expect(block, "quick start 1 has a shell block that runs").toBeDefined();
      const { folder, env } = await newcomer("qs1");
      const commands = shellCommands(block!);
      const checks = commands.filter((c) => c.command.includes("policy check"));
      expect(checks.length).toBeGreaterThanOrEqual(3);
      for (const { line, command, exit } of commands) {
        const r = await bash(command, folder, env);
        const seen = { line, command, code: r.code, stdout: r.stdout, stderr: r.stderr };
        expect(seen).toEqual({ ...seen, code: exit });
        const stated = statedDecision(command);
        if (!command.includes("policy check") || !stated) continue;
        const answered = command.includes("--json")
          ? (JSON.parse(r.stdout) as { decision: string }).decision
          : r.stdout.split(/\s/)[0];
        expect({ line, command, answered, stdout: r.stdout }).toEqual({
          line,
          command,
          answered: stated,
          stdout: r.stdout,
        });
      }
    },
    SLOW,
  );

  it(
    "quick start 2: the library block runs against the clone and prints what its comment says",
    async () => {
      const [block] = section("Quick start 2").filter((b) => b.mode === "js");
      expect(block, "quick start 2 has a js block").toBeDefined();
      const { folder, env } = await newcomer("qs2");
      // `npm install ../toolgate` links a local folder the same way.
      await mkdir(join(folder, "node_modules"));
      await symlink(clone, join(folder, "node_modules", "toolgate"));
      await writeFile(join(folder, "quick-start.mjs"), block!.code);
      const r = await bash(`node quick-start.mjs`, folder, env);
      expect(r).toMatchObject({ code: 0, stderr: "" });
      // `console.log(…); // true allow Read README.md (…)`: the comment, with … standing for anything.
      const printed = /console\.log\(.*\/\/\s*(.+)$/m.exec(block!.code)?.[1];
      expect(printed).toBeDefined();
      const pattern = printed!
        .split("…")
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*?");
      expect(r.stdout).toMatch(new RegExp(`^${pattern}`));
    },
    SLOW,
  );

  describe("quick start 3, with a stand-in Ollama", () => {
    let ollama: ModelServer;
    beforeAll(async () => {
      ollama = await startModelServer(["qwen3"]);
    });
    afterAll(async () => {
      await ollama.close();
    });

    it(
      "chat opens a session with qwen3 and ends at the end of its input; run answers the task with the tools",
      async () => {
        const [block] = section("Quick start 3").filter((b) => b.lang === "sh");
        expect(block, "quick start 3 has a shell block").toBeDefined();
        const { folder, env } = await newcomer("qs3", {
          "src/app.ts": "// TODO: greet the user\nexport const greeting = 'hello';\n",
        });
        const host = { ...env, OLLAMA_HOST: ollama.url };
        const commands = shellCommands(block!).map((c) => c.command.replace(/\s+#.*$/, ""));
        // The stand-in is the server `ollama serve` starts and `ollama pull qwen3` fills.
        expect(commands.filter((c) => c.startsWith("ollama "))).toEqual([
          "ollama serve &",
          "ollama pull qwen3",
        ]);
        const [chat, task] = commands.filter((c) => !c.startsWith("ollama "));
        expect(chat).toBe("toolgate chat");
        expect(task).toMatch(/^toolgate run ".+" --quiet$/);

        const opened = await bash(chat!, folder, host);
        expect(opened).toMatchObject({ code: 0 });
        expect(opened.stdout).toContain(`toolgate chat — qwen3 via ollama at ${ollama.url}`);
        expect(opened.stdout).toContain("model: ready");
        expect(opened.stdout).toContain("(no terminal: every ask is refused)");

        ollama.push(
          { toolCalls: [{ name: "read_file", arguments: { path: "src/app.ts" } }] },
          { text: "One TODO in src/app.ts: greet the user." },
        );
        const answered = await bash(task!, folder, host);
        expect(answered).toMatchObject({ code: 0 });
        expect(answered.stdout).toContain("One TODO in src/app.ts: greet the user.");
        const last = ollama.requests.at(-1)!;
        expect(last.model).toBe("qwen3");
        expect(JSON.stringify(last.messages)).toContain("TODO: greet the user");
        expect(ollama.remaining()).toBe(0);
      },
      SLOW,
    );
  });
});
