/**
 * The examples in README.md and docs/*.md are tests (issue #11): every block meant to run is extracted and
 * run — shell blocks with the built command line in a fresh workspace, js/ts blocks against the built package in one
 * Node process, toml blocks through the policy or config loader, json blocks parsed. Blocks marked
 * `<!-- illustrative -->` (and text/markdown samples) are not run. Failures name the block as FILE:LINE.
 * Relative links must lead to a file that exists and, with `#anchor`, to a heading of that page.
 * The convention is documented in docs/contributing.md.
 */
import { spawn } from "node:child_process";
import {
  chmod,
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, normalize } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "./config/index.js";
import { parsePolicy } from "./policy/index.js";
import { BIN, REPO_ROOT } from "./test-support/cli.js";
import { BASH_TOOLGATE_FUNCTION, type CliServer, startCliServer } from "./test-support/cli-server.js";
import { type DocBlock, extractBlocks, shellCommands } from "./test-support/doc-blocks.js";
import { headingAnchors, relativeLinks } from "./test-support/doc-links.js";
import { createToolgate } from "./toolgate.js";

async function docFiles(): Promise<string[]> {
  const docs = await readdir(join(REPO_ROOT, "docs")).catch(() => [] as string[]);
  return [
    "README.md",
    ...docs
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((f) => `docs/${f}`),
  ];
}

const blocks: DocBlock[] = [];
/** Each Markdown file's text, by its path relative to the repository. */
const texts = new Map<string, string>();
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "tg-docs-"));
  for (const file of await docFiles()) {
    const text = await readFile(join(REPO_ROOT, file), "utf8");
    texts.set(file, text);
    blocks.push(...extractBlocks(text, file));
  }
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const of = (mode: DocBlock["mode"]) => blocks.filter((b) => b.mode === mode);

/** A fresh workspace with the files the examples talk about. */
async function exampleWorkspace(name: string): Promise<string> {
  const dir = join(scratch, name);
  await mkdir(join(dir, "src"), { recursive: true });
  await copyFile(join(REPO_ROOT, "README.md"), join(dir, "README.md"));
  await writeFile(join(dir, "notes.txt"), "helo world\n");
  await writeFile(join(dir, "src", "app.ts"), "// TODO: greet\nexport const greeting = 'hello';\n");
  return dir;
}

function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs `tasks` at most `limit` at a time (the machine has two cores). */
async function inBatches<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await task(item);
    }),
  );
}

describe("examples in README.md and docs/*.md", () => {
  it("every block is runnable, checkable, or marked illustrative", () => {
    // extractBlocks throws for a language it cannot run or check; here: there is something to run.
    expect(of("shell").length).toBeGreaterThan(0);
    expect(of("js").length + of("ts").length).toBeGreaterThan(0);
    expect(of("toml").length).toBeGreaterThan(0);
  });

  it("shell blocks run the built toolgate command, each in a fresh workspace", async () => {
    const home = join(scratch, "home");
    await mkdir(home, { recursive: true });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      NO_COLOR: "1",
    };
    // By default one Node process serves every command line (src/test-support/cli-server.ts): Node's start-up
    // costs seconds per command on a loaded machine. TOOLGATE_DOCS_REAL_BIN=1 runs dist/cli/main.js each time.
    const realBin = process.env.TOOLGATE_DOCS_REAL_BIN === "1";
    let prelude = "";
    let server: CliServer | undefined;
    if (realBin) {
      const shim = join(scratch, "bin");
      await mkdir(shim, { recursive: true });
      await writeFile(join(shim, "toolgate"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
      await chmod(join(shim, "toolgate"), 0o755);
      env.PATH = `${shim}:${process.env.PATH ?? ""}`;
    } else {
      server = await startCliServer(scratch, env);
      env.TG_CLI_PORT = String(server.port);
      prelude = BASH_TOOLGATE_FUNCTION;
    }
    const failures: string[] = [];
    try {
      await inBatches(
        of("shell").map((block, n) => ({ block, n })),
        2,
        async ({ block, n }) => {
          const ws = await exampleWorkspace(`sh-${n}`);
          const file = block.where.replace(/:\d+$/, "");
          const script = shellCommands(block)
            .map(
              ({ line, command, exit }) =>
                `{ ${command}\n}; rc=$?\nif [ "$rc" != "${exit}" ]; then echo "@@FAIL@@ ${file}:${line}: exit $rc, expected ${exit}" >&2; exit 99; fi`,
            )
            .join("\n");
          const r = await run("bash", ["-c", `${prelude}\n${script}`], { cwd: ws, env, timeoutMs: 120_000 });
          if (r.code !== 0) {
            const failed = /@@FAIL@@ (.*)/.exec(r.stderr)?.[1] ?? `${block.where}: bash exited ${r.code}`;
            failures.push(`${failed}\n  stdout: ${r.stdout.slice(-600)}\n  stderr: ${r.stderr.slice(-600)}`);
          }
        },
      );
    } finally {
      server?.close();
    }
    expect(failures).toEqual([]);
  }, 240_000);

  it('js and ts blocks run against the built package (import from "toolgate"), in one Node process', async () => {
    const dir = join(scratch, "js");
    await mkdir(join(dir, "node_modules"), { recursive: true });
    await symlink(REPO_ROOT, join(dir, "node_modules", "toolgate"), "dir");
    const entries: { where: string; file: string; cwd: string }[] = [];
    const runnable = [...of("js"), ...of("ts")];
    for (const [n, block] of runnable.entries()) {
      const code =
        block.mode === "ts"
          ? ts.transpileModule(block.code, {
              compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
            }).outputText
          : block.code;
      const file = join(dir, `block-${n}.mjs`);
      await writeFile(file, code);
      entries.push({ where: block.where, file, cwd: await exampleWorkspace(`js-${n}`) });
    }
    const runner = join(dir, "run.mjs");
    await writeFile(
      runner,
      `const entries = JSON.parse(process.argv[2]);
const results = [];
for (const e of entries) {
  process.chdir(e.cwd);
  let timer;
  let printed = "";
  const write = process.stdout.write;
  process.stdout.write = (chunk) => { printed += String(chunk); return true; };
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error("did not finish within 30 s")), 30000); });
  try {
    await Promise.race([import(e.file), timeout]);
    results.push({ where: e.where, ok: true, stdout: printed });
  } catch (error) {
    results.push({ where: e.where, ok: false, error: String(error && error.stack ? error.stack : error) });
  } finally {
    clearTimeout(timer);
    process.stdout.write = write;
  }
}
process.stdout.write("\\n@@RESULTS@@" + JSON.stringify(results) + "\\n");
process.exit(0);
`,
    );
    const r = await run(process.execPath, [runner, JSON.stringify(entries)], {
      cwd: dir,
      env: { ...process.env, HOME: join(scratch, "home"), XDG_CONFIG_HOME: join(scratch, "home", ".config") },
      timeoutMs: 180_000,
    });
    const marker = r.stdout.lastIndexOf("@@RESULTS@@");
    if (marker < 0)
      throw new Error(`the block runner did not finish (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
    const results = JSON.parse(r.stdout.slice(marker + "@@RESULTS@@".length)) as {
      where: string;
      ok: boolean;
      error?: string;
      stdout?: string;
    }[];
    expect(results.filter((x) => !x.ok).map((x) => `${x.where}: ${x.error}`)).toEqual([]);
    expect(results.map((x) => x.where)).toEqual(runnable.map((b) => b.where));
    // A json block marked <!-- output --> is what the block above it prints.
    for (const block of of("output")) {
      const printed = results.find((x) => x.where === block.outputOf)?.stdout ?? "";
      let actual: unknown;
      try {
        actual = JSON.parse(printed);
      } catch {
        throw new Error(`${block.where}: ${block.outputOf} printed no JSON: ${printed.slice(0, 300)}`);
      }
      expect({ where: block.where, output: actual }).toEqual({
        where: block.where,
        output: JSON.parse(block.code),
      });
    }
  }, 240_000);

  it("toml blocks load with the policy loader (rules) or the config loader (settings)", async () => {
    const gate = await createToolgate({ roots: [REPO_ROOT], policy: false });
    const failures: string[] = [];
    try {
      for (const block of of("toml")) {
        const isPolicy = /^\s*(\[\[rules\]\]|default\s*=)/m.test(block.code);
        try {
          if (isPolicy)
            await parsePolicy(block.code, block.where, {
              plugins: gate.policy.plugins,
              roots: gate.roots,
              tools: gate.registry.list(),
            });
          else parseConfig(block.code, block.where);
        } catch (error) {
          failures.push(`${block.where} (${isPolicy ? "policy" : "config"}): ${(error as Error).message}`);
        }
      }
    } finally {
      await gate.close();
    }
    expect(failures).toEqual([]);
  });

  it("relative links lead to files that exist, and anchors to headings of the page they name", async () => {
    const failures: string[] = [];
    for (const [file, text] of texts) {
      for (const link of relativeLinks(text, file)) {
        const target = link.path === "" ? file : normalize(join(dirname(file), decodeURI(link.path)));
        let page = texts.get(target);
        if (page === undefined) {
          const exists = await stat(join(REPO_ROOT, target)).then(
            () => true,
            () => false,
          );
          if (!exists) {
            failures.push(`${link.where}: ${link.path} does not exist`);
            continue;
          }
          if (link.anchor !== undefined && target.endsWith(".md"))
            page = await readFile(join(REPO_ROOT, target), "utf8");
        }
        if (link.anchor !== undefined && page !== undefined && !headingAnchors(page).has(link.anchor))
          failures.push(`${link.where}: ${target} has no heading for #${link.anchor}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("json blocks parse", () => {
    const failures: string[] = [];
    for (const block of of("json")) {
      try {
        JSON.parse(block.code);
      } catch (error) {
        failures.push(`${block.where}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
