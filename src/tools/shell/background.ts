/**
 * @module tools/shell/background
 * Commands started with `background: true`: each runs in its own process group with capped output; the
 * manager lists them, reads their output so far, stops one, and stops all when the toolgate instance closes.
 */
import { type GroupOptions, ProcessGroup } from "./process-group.js";

/** A background process as callers see it. */
export interface BackgroundInfo {
  id: string;
  command: string;
  cwd: string;
  pid: number | undefined;
  status: "running" | "exited";
  exitCode: number | null;
  signal: string | null;
  startedAt: string;
  elapsedMs: number;
}

/** Output so far, with status. */
export interface BackgroundOutput extends BackgroundInfo {
  stdout: string;
  stderr: string;
  /** What the sandbox's check after the command reported, once it has ended (apart from the output). */
  notes?: string;
}

/** Manager options. */
export interface BackgroundOptions {
  /** Most processes kept at once (running or finished, default 32); finished ones are forgotten first. */
  maxProcesses?: number;
  /** SIGTERM → SIGKILL grace when stopping (default 2000 ms). */
  killGraceMs?: number;
}

interface Entry {
  id: string;
  group: ProcessGroup;
  endedAt?: number;
}

/**
 * Background processes of one toolgate instance.
 * @example
 * const processes = new BackgroundProcesses();
 * const { id } = processes.start({ command: "npm run dev", cwd, env, shell, maxOutputBytes: 1 << 20 });
 * processes.read(id)?.stdout; await processes.stopAll();
 */
export class BackgroundProcesses {
  private readonly entries = new Map<string, Entry>();
  private next = 1;
  private readonly max: number;
  private readonly grace: number;

  constructor(options: BackgroundOptions = {}) {
    this.max = options.maxProcesses ?? 32;
    this.grace = options.killGraceMs ?? 2000;
  }

  /**
   * Starts a command and returns at once. Throws when too many processes are still running.
   * A process that could not be started is recorded as exited (its error in stderr).
   */
  start(options: Omit<GroupOptions, "onOutput">): BackgroundInfo {
    this.forgetFinished();
    if (this.entries.size >= this.max) {
      throw new Error(`too many background processes (${this.max}); stop one first`);
    }
    const id = `bg${this.next++}`;
    const group = new ProcessGroup(options);
    const entry: Entry = { id, group };
    void group.exited.then((exit) => {
      entry.endedAt = Date.now();
      if (exit.error) group.stderr.write(Buffer.from(`failed to start: ${exit.error.message}\n`));
    });
    this.entries.set(id, entry);
    return this.info(entry);
  }

  /** Every known process, oldest first. */
  list(): BackgroundInfo[] {
    return [...this.entries.values()].map((e) => this.info(e));
  }

  /** Output so far of process `id`, or undefined if unknown. */
  read(id: string): BackgroundOutput | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    const { stdout, stderr, afterNote } = entry.group;
    return {
      ...this.info(entry),
      stdout: stdout.text(),
      stderr: stderr.text(),
      ...(afterNote ? { notes: afterNote } : {}),
    };
  }

  /** Stops process `id` (its whole group); resolves with its final state, or undefined if unknown. */
  async stop(id: string): Promise<BackgroundOutput | undefined> {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    await entry.group.stop(this.grace);
    await entry.group.exited;
    await entry.group.drain(100);
    return this.read(id);
  }

  /** Stops every process (call when the toolgate instance closes). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((id) => this.stop(id)));
  }

  private info({ id, group, endedAt }: Entry): BackgroundInfo {
    const exit = group.exit;
    return {
      id,
      command: group.options.command,
      cwd: group.options.cwd,
      pid: group.pid,
      status: exit ? "exited" : "running",
      exitCode: exit?.code ?? null,
      signal: exit?.signal ?? null,
      startedAt: new Date(group.startedAt).toISOString(),
      elapsedMs: (endedAt ?? Date.now()) - group.startedAt,
    };
  }

  private forgetFinished(): void {
    for (const [id, entry] of this.entries) {
      if (this.entries.size < this.max) return;
      if (entry.group.exit) this.entries.delete(id);
    }
  }
}
