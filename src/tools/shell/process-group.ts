/**
 * @module tools/shell/process-group
 * One shell command running in its own process group: spawning (`detached`, stdin closed), capped output
 * capture, and stopping the whole group (utils/process-group: SIGTERM, then SIGKILL after a grace period) so no
 * grandchild survives.
 */
import type { ChildProcess, StdioOptions } from "node:child_process";
import type { Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { hostProgram, SYSTEM_PATH } from "../../sandbox/index.js";
import { liveGroupMembers, spawnGroup, stopGroup } from "../../utils/index.js";
import { HeadTailBuffer } from "./output-buffer.js";

/** What to run and how. */
export interface GroupOptions {
  command: string;
  cwd: string;
  env: Record<string, string>;
  /** The shell binary (`bash`, else `/bin/sh`); see {@link findShell}. */
  shell: string;
  /** Output kept per stream (head and tail halves). */
  maxOutputBytes: number;
  /** Called with each decoded chunk as it arrives. */
  onOutput?: (chunk: string, stream: "stdout" | "stderr") => void;
  /**
   * Runs the shell through this prefix (the sandbox: `bwrap … --`); `release` is called once when it has exited
   * (a text it returns is kept in `afterNote`: what the launcher did after the command, e.g. the sandbox's check).
   * `fds` become the child's descriptors 3, 4, … in order, which `argv` refers to by those numbers.
   */
  launcher?: { argv: readonly string[]; release?: () => unknown; fds?: readonly LauncherFd[] };
  /**
   * A descriptor the command reads as its stdin (default: none). Hooks pass a file: a Node pipe is a socket,
   * and bash with a socket on stdin runs `~/.bashrc`.
   */
  stdin?: number;
}

/**
 * A descriptor handed to the launcher: `fd`, one open in this process; `data`, bytes written into a pipe whose
 * write end is then closed (the child reads them to end of file, e.g. bwrap's `--seccomp`).
 */
export type LauncherFd = { fd: number } | { data: Uint8Array };

/** How the group leader ended. `error` is set when the shell could not be started at all. */
export interface GroupExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

/**
 * `bash` from a trusted folder of PATH, else of the system folders (sandbox/host-programs.ts: never one a command
 * could have planted in a workspace folder on PATH), else `/bin/sh`. Looked up once per factory.
 */
export function findShell(path = process.env.PATH ?? ""): string {
  return hostProgram("bash", `${path}:${SYSTEM_PATH}`) ?? "/bin/sh";
}

export { liveGroupMembers };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A running command and its process group. */
export class ProcessGroup {
  readonly child: ChildProcess;
  readonly stdout: HeadTailBuffer;
  readonly stderr: HeadTailBuffer;
  readonly startedAt = Date.now();
  /** Resolves on the leader's `exit` (not `close`: a leftover grandchild may hold the pipes open). */
  readonly exited: Promise<GroupExit>;
  exit: GroupExit | undefined;
  /** When output last arrived (ms since epoch). */
  lastOutputAt = Date.now();
  /**
   * What the launcher reported after the command (the sandbox's check), kept apart from the command's own
   * output: a command can neither bury it under output that gets truncated nor imitate its place.
   */
  afterNote: string | undefined;
  private stopping: Promise<void> | undefined;
  private readonly closed: Promise<void>;

  constructor(readonly options: GroupOptions) {
    this.stdout = new HeadTailBuffer(options.maxOutputBytes);
    this.stderr = new HeadTailBuffer(options.maxOutputBytes);
    const [program, ...prefix] = options.launcher ? options.launcher.argv : [options.shell];
    const args = options.launcher
      ? [...prefix, options.shell, "-c", options.command]
      : ["-c", options.command];
    const fds = options.launcher?.fds ?? [];
    const input = options.stdin ?? "ignore";
    const stdio: StdioOptions = [input, "pipe", "pipe", ...fds.map((f) => ("fd" in f ? f.fd : "pipe"))];
    this.child = spawnGroup(program!, args, { cwd: options.cwd, env: options.env, stdio });
    fds.forEach((f, i) => {
      const pipe = this.child.stdio[3 + i] as Writable | null | undefined;
      if (!("data" in f) || !pipe) return;
      // A child that dies before reading (bwrap refusing its arguments) closes the pipe: not an error here, the
      // exit status says what happened.
      pipe.on("error", () => {});
      pipe.end(f.data);
    });
    this.capture("stdout", this.stdout);
    this.capture("stderr", this.stderr);
    this.exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
      this.child.once("error", (error) => {
        this.exit ??= { code: null, signal: null, error };
        resolve(this.exit);
      });
    });
    const release = options.launcher?.release;
    if (release) {
      void this.exited.then(() => {
        let note: unknown;
        try {
          note = release();
        } catch (error) {
          note = `[after the command: ${(error as Error).message}]`;
        }
        if (typeof note === "string" && note) this.afterNote = note;
      });
    }
    const closeOf = (s: NodeJS.ReadableStream | null) =>
      new Promise<void>((resolve) => (s ? s.once("close", () => resolve()) : resolve()));
    this.closed = Promise.all([closeOf(this.child.stdout), closeOf(this.child.stderr)]).then(() => undefined);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  private capture(name: "stdout" | "stderr", buffer: HeadTailBuffer): void {
    const stream = this.child[name];
    if (!stream) return;
    const decoder = new StringDecoder("utf8");
    stream.on("data", (chunk: Buffer) => {
      this.lastOutputAt = Date.now();
      buffer.write(chunk);
      const text = decoder.write(chunk);
      if (text) this.options.onOutput?.(text, name);
    });
    stream.on("error", () => {});
  }

  /** Waits up to `ms` for both pipes to close, then stops reading them (a leftover child may keep them open). */
  async drain(ms: number): Promise<void> {
    await Promise.race([this.closed, sleep(ms)]);
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
  }

  /** True while any member of the group is alive. */
  alive(): boolean {
    const pid = this.pid;
    return pid !== undefined && liveGroupMembers(pid).length > 0;
  }

  /** SIGTERM to the whole group; SIGKILL after `graceMs` if anything is left. Idempotent. */
  stop(graceMs: number): Promise<void> {
    const pid = this.pid;
    this.stopping ??= pid === undefined ? Promise.resolve() : stopGroup(pid, graceMs);
    return this.stopping;
  }
}
