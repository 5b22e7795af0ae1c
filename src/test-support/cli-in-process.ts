/**
 * `toolgate ARGS` run inside the test's own process: the dispatcher the binary runs (`runCli`, which
 * `cli/main.ts` calls with the real streams) with an io of strings, stdin closed or fed `input`, no terminal,
 * the test process's environment. The exit code is what the binary would exit with. There is no `env`
 * option: parts of a gate read `process.env` themselves (the user's configuration folder, state paths), so
 * a test that needs other variables spawns the binary.
 *
 * For tests of what a command says and does; a test about the process itself (signals, the bundled binary,
 * its start-up, what it prints on a real stream) spawns it with `toolgate` from cli.ts. A spawn costs a Node
 * start and loading the bundle, seconds on a busy two-core machine; here the modules load once per file.
 */
import { Readable } from "node:stream";
import { runCli } from "../cli/run.js";
import { REPO_ROOT, type RunResult } from "./cli.js";

export async function toolgateInProcess(
  args: string[],
  options: { cwd?: string; input?: string } = {},
): Promise<RunResult> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    stdin: Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]),
    isTTY: false,
    env: process.env,
    cwd: options.cwd ?? REPO_ROOT,
  });
  return { code, stdout, stderr };
}
