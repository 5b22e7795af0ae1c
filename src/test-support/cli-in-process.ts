/**
 * `toolgate ARGS` run inside the test's own process: the dispatcher the binary runs (`runCli`, which
 * `cli/main.ts` calls with the real streams) with an io of strings, stdin closed or fed `input`, no terminal.
 * The exit code is what the binary would exit with.
 *
 * For tests of what a command says and does; a test about the process itself (signals, the bundled binary,
 * its start-up, what it prints on a real stream) spawns it with `toolgate` from cli.ts. A spawn costs a Node
 * start and loading the bundle, seconds on a busy two-core machine; here the modules load once per file.
 *
 * `env` is set on `process.env` for the command's run and put back after it: parts of a gate read the
 * process's environment themselves (the user's configuration folder, state paths, HOME), as they would in
 * the binary. Calls with `env` therefore run one at a time; one started while another runs is refused.
 */
import { Readable } from "node:stream";
import { runCli } from "../cli/run.js";
import { REPO_ROOT, type RunResult } from "./cli.js";

let envInUse = false;

export async function toolgateInProcess(
  args: string[],
  options: { cwd?: string; input?: string; env?: Record<string, string> } = {},
): Promise<RunResult> {
  const env = options.env ?? {};
  if (Object.keys(env).length > 0 && envInUse)
    throw new Error("toolgateInProcess: a call with env is running; await it before the next one");
  const saved = new Map(Object.keys(env).map((name) => [name, process.env[name]]));
  envInUse = saved.size > 0;
  Object.assign(process.env, env);
  let stdout = "";
  let stderr = "";
  try {
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
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    if (saved.size > 0) envInUse = false;
  }
}
