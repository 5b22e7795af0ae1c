/**
 * @module test-support/abstract-canary
 * A listener on an abstract unix socket of the host, counting connections, for the sandbox's escape tests.
 * Written in Python on purpose: Node 20 cannot take part — its `connect("\0name")` is refused, and its
 * `listen("\0name")` binds the name padded with NUL bytes to 108, which no other program's connect matches
 * (so a Node canary could never be hit, and a test built on it could never fail).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

/** A running abstract-socket canary. */
export interface AbstractCanary {
  /** The name (without the leading NUL). */
  name: string;
  /** Connections accepted so far. */
  hits(): number;
  /** Resolves once `count` connections in all have arrived (for the checks that it is reachable at all). */
  waitForHits(count: number): Promise<void>;
  close(): Promise<void>;
}

const LISTENER = `
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind("\\0" + sys.argv[1])
s.listen(64)
print("ready", flush=True)
while True:
    c, _ = s.accept()
    print("hit", flush=True)
    c.close()
`;

/** Starts a canary on the abstract socket `name` (python3 must be installed). */
export async function startAbstractCanary(name: string): Promise<AbstractCanary> {
  const child: ChildProcess = spawn("python3", ["-c", LISTENER, name], { stdio: ["ignore", "pipe", "pipe"] });
  let count = 0;
  const waiters: { count: number; done: () => void }[] = [];
  const lines = createInterface({ input: child.stdout! });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the abstract canary exited (${code}): ${stderr}`)));
    lines.on("line", (line) => {
      if (line === "ready") resolve();
      if (line !== "hit") return;
      count++;
      for (const w of waiters.filter((w) => count >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.done();
      }
    });
  });
  return {
    name,
    hits: () => count,
    waitForHits: (target) =>
      count >= target ? Promise.resolve() : new Promise((done) => waiters.push({ count: target, done })),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}
