/**
 * @module test-support/gate-runner
 * A gate in a separate toolgate process (src/sandbox/network/testdata/gate-runner.mjs on the built dist/), so a
 * test can run calls as the non-root user `tgtest` (when the suite runs as root), or kill toolgate outright.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "./cli.js";

/** util-linux's runuser (in sbin, which a test user's PATH may not have). */
export const RUNUSER = ["/usr/sbin/runuser", "/sbin/runuser"].find((path) => existsSync(path)) ?? "runuser";

/** The non-root user sandbox tests run as when the suite runs as root (CI creates it). */
export const TEST_USER = "tgtest";

/** What a runner returns for a call (the parts the tests read). */
export interface RunnerResult {
  ok: boolean;
  llmContent: string;
  data?: { exitCode?: number | null; stdout?: string; stderr?: string; id?: string };
  sandbox?: string;
  error?: { type: string; message: string };
}

/** A running toolgate process. */
export interface GateRunner {
  pid: number;
  uid: number;
  execute(call: { name: string; args: Record<string, unknown> }): Promise<RunnerResult>;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  child: ChildProcess;
  close(): Promise<void>;
}

/**
 * The uid and gid of {@link TEST_USER} when this process is root (calls then run as that user), else
 * undefined (this process is not root: calls run as this user). Throws when root and the user is missing.
 */
export function testUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = spawnSync("id", ["-u", TEST_USER], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", TEST_USER], { encoding: "utf8" });
  if (id.status !== 0) {
    throw new Error(
      `the sandbox tests run commands as the non-root user ${TEST_USER}: create it (useradd -m ${TEST_USER})`,
    );
  }
  return { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Gives `paths` to the test user (when there is one), so its toolgate can write there. */
export function handOver(paths: readonly string[]): void {
  const user = testUser();
  if (user) for (const path of paths) chownSync(path, user.uid, user.gid);
}

/**
 * Starts a toolgate process with a gate over `roots`. `asTestUser` runs it as {@link TEST_USER} when this
 * process is root; `env` is its whole environment (HOME and XDG_CONFIG_HOME should be the user's own).
 */
export async function startGateRunner(options: {
  roots: readonly string[];
  policyText: string;
  config: Record<string, unknown>;
  env: Record<string, string>;
  asTestUser: boolean;
}): Promise<GateRunner> {
  const script = join(REPO_ROOT, "src", "sandbox", "network", "testdata", "gate-runner.mjs");
  const dist = pathToFileURL(join(REPO_ROOT, "dist", "index.js")).href;
  const payload = JSON.stringify({
    dist,
    roots: options.roots,
    config: options.config,
    policyText: options.policyText,
  });
  const user = options.asTestUser ? testUser() : undefined;
  const [program, ...args] = user
    ? [RUNUSER, "-u", TEST_USER, "--", process.execPath, script, payload]
    : [process.execPath, script, payload];
  const child = spawn(program!, args, { env: options.env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", (error) => {
      stderr += `${error.message}\n`;
      resolve();
    });
  });
  const waiting = new Map<number, (result: RunnerResult) => void>();
  let ready: (info: { pid: number; uid: number }) => void = () => {};
  const started = new Promise<{ pid: number; uid: number }>((resolve, reject) => {
    ready = resolve;
    void exited.then(() => reject(new Error(`the toolgate process exited before it was ready: ${stderr}`)));
  });
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const message = JSON.parse(line) as {
      ready?: boolean;
      pid: number;
      uid: number;
      id: number;
      result: RunnerResult;
    };
    if (message.ready) ready(message);
    else waiting.get(message.id)?.(message.result);
  });
  const info = await started;
  let next = 0;
  return {
    pid: info.pid,
    uid: info.uid,
    child,
    exited,
    execute(call) {
      const id = next++;
      return new Promise<RunnerResult>((resolve, reject) => {
        waiting.set(id, resolve);
        void exited.then(() => reject(new Error(`the toolgate process exited: ${stderr}`)));
        child.stdin!.write(`${JSON.stringify({ id, call })}\n`);
      });
    },
    async close() {
      child.stdin!.end();
      await exited;
    },
  };
}
