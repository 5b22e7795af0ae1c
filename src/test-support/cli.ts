/**
 * Test helpers: run the built `toolgate` binary (dist/bin/toolgate.js, the bundled command the package's
 * `bin` names) as a real child process, and make
 * temporary workspaces.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BIN = join(REPO_ROOT, "dist", "bin", "toolgate.js");

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `toolgate ARGS` with stdin closed (or fed `input`), no TTY. */
export function toolgate(
  args: string[],
  options: { cwd?: string; input?: string; env?: Record<string, string> } = {},
): Promise<RunResult> {
  return runProcess(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, ...options.env },
    ...(options.input !== undefined ? { input: options.input } : {}),
  });
}

/** Runs a program with stdin closed (or fed `input`), no TTY, and collects what it printed. */
export function runProcess(
  file: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

/** A temporary workspace with the given files (paths relative to it); returns its canonical path. */
export async function tempWorkspace(files: Record<string, string> = {}, prefix = "tg-ws-"): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, rel)), { recursive: true });
    await writeFile(join(dir, rel), content);
  }
  return dir;
}
