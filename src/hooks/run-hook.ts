/**
 * @module hooks/run-hook
 * Runs one hook script: by `/bin/sh -c` in the workspace, as Claude Code and gemini-cli run them, in its own process group (the shell's `ProcessGroup`), with
 * the shell's scrubbed environment, the JSON on stdin and stdin then closed, output bounded. It either ends
 * with an exit status, or fails: could not start, timed out, killed, printed too much, or left a process
 * running — and when it returns, nothing of its group is left running.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProcessGroup } from "../tools/shell/process-group.js";

/** Stdout or stderr a hook may print; past it the hook is stopped and fails. */
export const HOOK_MAX_OUTPUT_BYTES = 1024 * 1024;
/** Time between SIGTERM and SIGKILL when a hook's group is stopped. */
const GRACE_MS = 500;

/** How one run ended: an exit status (0, 2, …) with its output, or a failure saying why there is none. */
export interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the hook gave no usable answer: the cause, in words. */
  failure?: string;
  durationMs: number;
}

export interface RunHookOptions {
  command: string;
  timeoutMs: number;
  input: string;
  cwd: string;
  env: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * `/bin/sh`, as the hosts use: not bash, which sources `~/.bashrc` when its stdin is a socket (Node's pipes
 * are), seconds of a user's shell start-up before every hook.
 */
const SHELL = "/bin/sh";

/**
 * Runs the hook and waits for it and its whole group.
 * @example await runHook({ command: "./check.sh", timeoutMs: 60_000, input: "{}", cwd, env }) // { code: 0, … }
 */
export async function runHook(options: RunHookOptions): Promise<HookRun> {
  const started = performance.now();
  let stopped: string | undefined;
  let stdin: number;
  try {
    stdin = inputFile(options.input);
  } catch (error) {
    const failure = `could not be given its input (${(error as Error).message})`;
    return { code: null, stdout: "", stderr: "", failure, durationMs: 0 };
  }
  // The child has its own copy of the descriptor once spawned; ours is closed either way.
  const group: ProcessGroup = (() => {
    try {
      return startGroup();
    } finally {
      closeSync(stdin);
    }
  })();
  function startGroup(): ProcessGroup {
    return new ProcessGroup({
      command: options.command,
      cwd: options.cwd,
      env: options.env,
      shell: SHELL,
      maxOutputBytes: HOOK_MAX_OUTPUT_BYTES,
      stdin,
      onOutput: () => {
        if (
          stopped ||
          (group.stdout.total <= HOOK_MAX_OUTPUT_BYTES && group.stderr.total <= HOOK_MAX_OUTPUT_BYTES)
        )
          return;
        stopped = `printed more than ${HOOK_MAX_OUTPUT_BYTES} bytes`;
        void group.stop(GRACE_MS);
      },
    });
  }
  const stop = (why: string) => {
    stopped ??= why;
    void group.stop(GRACE_MS);
  };
  const timer = setTimeout(() => stop(`did not finish within ${options.timeoutMs} ms`), options.timeoutMs);
  const onAbort = () => stop("was stopped: the call was cancelled");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  const exit = await group.exited;
  clearTimeout(timer);
  options.signal?.removeEventListener("abort", onAbort);
  // A child the hook forked and left behind: stopped, and the hook fails (its answer came with a process
  // nobody asked for still running).
  if (!exit.error && group.alive()) {
    stopped ??= "left a process running after it exited";
    await group.stop(GRACE_MS);
  } else if (stopped) await group.stop(GRACE_MS);
  await group.drain(200);
  const run: HookRun = {
    code: exit.code,
    stdout: group.stdout.text(),
    stderr: group.stderr.text(),
    durationMs: performance.now() - started,
  };
  const failure = stopped ?? exitFailure(exit);
  if (failure) run.failure = failure;
  return run;
}

function exitFailure(exit: {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}): string | undefined {
  if (exit.error) return `could not be started (${exit.error.message})`;
  if (exit.signal) return `was killed by ${exit.signal}`;
  if (exit.code === 0 || exit.code === 2) return undefined;
  if (exit.code === 127) return "exited with status 127 (command not found: is the script there?)";
  return `exited with status ${exit.code}`;
}

let inputDir: string | undefined;
let inputs = 0;

/**
 * The hook's stdin: a file holding the JSON, already unlinked, open for reading — the script reads it to its
 * end, and nobody else can open it. (A Node pipe would be a socket, on which bash runs `~/.bashrc`.)
 */
function inputFile(input: string): number {
  inputDir ??= mkdtempSync(join(tmpdir(), "toolgate-hook-"));
  const path = join(inputDir, `${process.pid}-${inputs++}.json`);
  writeFileSync(path, input, { mode: 0o600 });
  try {
    return openSync(path, "r");
  } finally {
    rmSync(path, { force: true });
  }
}
