/**
 * Real-process tests of the stores: many writers at once, writers killed with SIGKILL mid-write, and a
 * full disk / refused permission. Children run `testdata/children/store-op.mjs` against the built `dist/`.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lockPathFor, MIN_STALE_MS } from "./file-lock.js";
import { openMemoryStore } from "./memory-store.js";
import { openTodoStore } from "./todo-store.js";

const here = dirname(fileURLToPath(import.meta.url));
const distIndex = pathToFileURL(join(here, "..", "..", "dist", "state", "index.js")).href;
const childScript = join(here, "testdata", "children", "store-op.mjs");
const STALE = MIN_STALE_MS;

type Line = Record<string, unknown>;
interface Child {
  proc: ChildProcess;
  lines: Line[];
  /** Resolves when a line satisfying `test` arrives. */
  waitFor(test: (line: Line) => boolean): Promise<Line>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startChild(
  file: string,
  ops: object[],
  options: { command?: string[]; uid?: number; gid?: number } = {},
): Child {
  const args = [childScript, distIndex, file, String(STALE), ...ops.map((op) => JSON.stringify(op))];
  const [cmd, ...pre] = options.command ?? [process.execPath];
  const proc = spawn(cmd as string, [...pre, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid }),
  });
  const lines: Line[] = [];
  const waiters: { test: (l: Line) => boolean; done: (l: Line) => void; fail: (e: Error) => void }[] = [];
  let buffer = "";
  let stderr = "";
  proc.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  proc.stdout?.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const line = JSON.parse(buffer.slice(0, nl)) as Line;
      buffer = buffer.slice(nl + 1);
      lines.push(line);
      for (const w of waiters.filter((w) => w.test(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.done(line);
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    // A child that cannot start at all (e.g. the node binary is not reachable for another uid) fails fast.
    proc.on("error", (error) => {
      lines.push({ stderr: `could not start the child: ${error.message}` });
      for (const w of waiters.splice(0)) w.fail(error);
      done({ code: null, signal: null });
    });
    proc.on("exit", (code, signal) => {
      if (code !== 0 && signal === null) lines.push({ stderr });
      // A child that dies before saying what a test waits for fails the wait instead of hanging it.
      for (const w of waiters.splice(0)) {
        w.fail(new Error(`child exited (${code ?? signal}) first; output ${JSON.stringify(lines)}`));
      }
      done({ code, signal });
    });
  });
  return {
    proc,
    lines,
    exited,
    waitFor: (test) =>
      new Promise((done, fail) => {
        const found = lines.find(test);
        if (found) done(found);
        else if (proc.exitCode !== null || proc.signalCode !== null) fail(new Error("child already exited"));
        else waiters.push({ test, done, fail });
      }),
  };
}

/** Same as the child's: every 10th write is 1–5 MB. */
function blobFor(seq: number): string {
  const size = seq % 10 === 0 ? 1_000_000 + ((seq * 7919) % 4_000_000) : 100;
  const head = `seq:${seq}:`;
  return head + "x".repeat(Math.max(0, size - head.length));
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolgate-state-proc-"));
});
afterEach(async () => {
  await chmod(join(dir, "state"), 0o755).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

/**
 * The many-writer tests use the store's own lock wait (twice the stale period plus 5 s without the lock
 * changing hands). The lock is not fair: on a 2-core machine busy with other work one writer can lose the
 * race for most of a run, which once took 21 s — longer than that wait. It keeps waiting because the lock
 * keeps changing hands (file-lock.test.ts shows that rule with a clock of its own); what these tests check
 * is that no write is lost or torn and that no writer gives up while others make progress.
 *
 * Sizes: four writers interleave as freely as eight (every write takes the lock, reads, writes and renames),
 * at a third of the writes: 1,600 writes once took over 120 s with two suites running on two cores.
 */
/** The bound for a test that runs many store processes: generous, as it only catches a hang. */
const PROCESSES_MS = 300_000;

describe("concurrent processes", () => {
  it("4 processes × 150 sets of distinct keys keep all 600 keys", { timeout: PROCESSES_MS }, async () => {
    const file = join(dir, "state", "memory.json");
    const children = Array.from({ length: 4 }, (_, p) => startChild(file, [{ setMany: [`p${p}`, 150] }]));
    await Promise.all(children.map((c) => c.exited));
    for (const c of children) expect(c.lines).toEqual([{ ok: true }]);
    const keys = await openMemoryStore(file).keys();
    expect(keys).toHaveLength(600);
    const expected = Array.from({ length: 4 }, (_, p) => Array.from({ length: 150 }, (_, i) => `p${p}-${i}`));
    expect(keys).toEqual(expected.flat().sort());
    expect(await openMemoryStore(file).get("p3-117")).toBe("value p3 117");
    expect(readdirSync(join(dir, "state")).sort()).toEqual(["memory.json"]);
  });

  it("4 processes × 100 todo adds give 400 items with 400 distinct ids", {
    timeout: PROCESSES_MS,
  }, async () => {
    const file = join(dir, "state", "todos.json");
    const children = Array.from({ length: 4 }, (_, p) => startChild(file, [{ addMany: [`p${p}`, 100] }]));
    await Promise.all(children.map((c) => c.exited));
    const reported = children.flatMap((c) => (c.lines[0]?.ids as string[] | undefined) ?? []);
    expect(reported).toHaveLength(400);
    const items = await openTodoStore(file).list();
    expect(items).toHaveLength(400);
    expect(new Set(items.map((it) => it.id)).size).toBe(400);
    expect(new Set(reported)).toEqual(new Set(items.map((it) => it.id)));
    // Each process's items appear in its own order.
    const texts = items.map((it) => it.text).filter((t) => t.startsWith("p2 "));
    expect(texts).toEqual(Array.from({ length: 100 }, (_, i) => `p2 ${i}`));
  });
});

describe("killed writers", () => {
  it("8 processes finding the same stale lock at once break it once and keep every key", {
    timeout: PROCESSES_MS,
  }, async () => {
    const file = join(dir, "state", "memory.json");
    await openMemoryStore(file).set("before", "1");
    // A lock left behind an hour ago: every child sees it stale on its first attempt.
    const lock = lockPathFor(file);
    await mkdir(lock);
    const old = new Date(Date.now() - 3_600_000);
    await utimes(lock, old, old);
    const children = Array.from({ length: 8 }, (_, p) => startChild(file, [{ setMany: [`s${p}`, 25] }]));
    await Promise.all(children.map((c) => c.exited));
    for (const c of children) expect(c.lines).toEqual([{ ok: true }]);
    expect(await openMemoryStore(file).keys()).toHaveLength(1 + 8 * 25);
    expect(readdirSync(join(dir, "state"))).toEqual(["memory.json"]);
  });

  it("recovers a lock left by a process killed while holding it, after the stale period", async () => {
    const file = join(dir, "state", "memory.json");
    await openMemoryStore(file).set("before", "1");
    const holder = startChild(file, [{ hold: true }]);
    await holder.waitFor((l) => l.locked === true);
    holder.proc.kill("SIGKILL");
    await holder.exited;
    expect(existsSync(lockPathFor(file))).toBe(true);
    await openMemoryStore(file, { staleMs: STALE }).set("after", "2");
    expect(await openMemoryStore(file).keys()).toEqual(["after", "before"]);
    expect(existsSync(lockPathFor(file))).toBe(false);
  });

  it("SIGKILL at random moments during 300 writes leaves the old or the new state", {
    timeout: PROCESSES_MS,
  }, async () => {
    const file = join(dir, "state", "memory.json");
    const store = openMemoryStore(file, { staleMs: STALE });
    await store.set("blob", blobFor(0));
    let stored = 0;
    let kills = 0;
    let locksLeft = 0;
    while (stored < 300) {
      const child = startChild(file, [{ blobs: [stored + 1, 300] }]);
      // The kill comes at a random moment once the child writes (so it does not just die waiting for the
      // lock); after 6 kills the last writer runs to the end, which bounds the test's time.
      let timer: NodeJS.Timeout | undefined;
      if (kills < 6) {
        void child
          .waitFor((l) => typeof l.done === "number")
          .then(() => {
            timer = setTimeout(() => child.proc.kill("SIGKILL"), Math.random() * 250);
          });
      }
      const { signal } = await child.exited;
      clearTimeout(timer);
      if (signal === "SIGKILL") kills++;
      const dones = child.lines.filter((l) => typeof l.done === "number").map((l) => l.done as number);
      const lastDone = dones.length > 0 ? (dones.at(-1) as number) : stored;
      if (existsSync(lockPathFor(file))) locksLeft++;
      const document = JSON.parse(readFileSync(file, "utf8")) as { entries: { blob: { value: string } } };
      const value = document.entries.blob.value;
      const seq = Number(/^seq:(\d+):/.exec(value)?.[1]);
      expect([lastDone, lastDone + 1]).toContain(seq);
      expect(value === blobFor(seq)).toBe(true);
      stored = seq;
    }
    expect(kills).toBeGreaterThanOrEqual(4);
    expect(locksLeft).toBeGreaterThanOrEqual(1);
    expect(await store.get("blob")).toBe(blobFor(300));
    // The writers after each kill cleaned up temp files and broken locks without help.
    expect(readdirSync(join(dir, "state")).sort()).toEqual(["memory.json"]);
    console.log(`kill test: ${kills} kills, ${locksLeft} left a lock behind`);
  });
});

/** Whether the unprivileged user "nobody" can read `path` (every folder above it must be searchable). */
function nobodyCanRead(path: string): boolean {
  const probe = spawnSync(process.execPath, ["-e", `require("fs").accessSync(${JSON.stringify(path)})`], {
    uid: 65534,
    gid: 65534,
    stdio: "ignore",
  });
  return probe.status === 0;
}

/** Whether this machine lets us mount a tiny tmpfs in a private mount namespace (real ENOSPC). */
function tmpfsAvailable(): boolean {
  const probe = spawnSync("unshare", ["-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"], {
    stdio: "ignore",
  });
  return probe.status === 0;
}

describe("write failures leave the old file intact", () => {
  const fileSizeLimit = (stateDir: string) => ({
    // RLIMIT_FSIZE: a write past 200 blocks fails with EFBIG (Node ignores SIGXFSZ). Works as root too.
    command: ["sh", "-c", 'ulimit -f 200 && exec "$@"', "sh", process.execPath],
    code: "EFBIG",
    reason: "file too large (file system or process file-size limit)",
    stateDir,
  });
  const diskFull = (stateDir: string) => ({
    // A 256 KiB tmpfs mounted over the state directory, visible only to the child: a real ENOSPC.
    command: [
      "unshare",
      "-m",
      "sh",
      "-c",
      'mount -t tmpfs -o size=256k tmpfs "$0" && exec "$@"',
      stateDir,
      process.execPath,
    ],
    code: "ENOSPC",
    reason: "no space left on device",
    stateDir,
  });
  const mechanisms = tmpfsAvailable() ? [fileSizeLimit, diskFull] : [fileSizeLimit];

  it.each(mechanisms.map((m) => [m.name, m] as const))(
    "%s: a 1 MB set fails cleanly",
    async (_name, make) => {
      const stateDir = join(dir, "state");
      const file = join(stateDir, "memory.json");
      const mechanism = make(stateDir);
      await openMemoryStore(file).set("a", "old");
      const child = startChild(
        file,
        [{ set: ["a", 10] }, { set: ["big", 1_000_000] }, { get: "a" }, { get: "big" }, { ls: stateDir }],
        { command: mechanism.command },
      );
      await child.exited;
      expect(child.lines).toEqual([
        { ok: true },
        {
          error: {
            name: "StateError",
            code: "io",
            message: `could not save ${file}: ${mechanism.reason} (${mechanism.code})`,
          },
        },
        { ok: true, length: 10 },
        { ok: true, length: null },
        { ok: true, names: ["memory.json"] },
      ]);
    },
  );

  it("a refused permission fails with a clear error and keeps the file", async () => {
    const stateDir = join(dir, "state");
    const file = join(stateDir, "memory.json");
    await openMemoryStore(file).set("a", "old");
    // root ignores file modes. Run the child as "nobody" then, which the modes do stop — when "nobody" can
    // reach this checkout at all; otherwise make the folder read-only for the child with a read-only bind
    // mount in a private mount namespace (EROFS), which stops root too.
    const asRoot = process.getuid?.() === 0;
    const asNobody = asRoot && nobodyCanRead(childScript);
    await chmod(dir, 0o755);
    await chmod(file, 0o644);
    await chmod(stateDir, 0o555);
    const readOnlyMount = [
      "unshare",
      "-m",
      "sh",
      "-c",
      'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"',
      stateDir,
      process.execPath,
    ];
    const how = !asRoot ? {} : asNobody ? { uid: 65534, gid: 65534 } : { command: readOnlyMount };
    const child = startChild(file, [{ set: ["a", 3] }, { get: "a" }], how);
    await child.exited;
    const reason = asRoot && !asNobody ? "read-only file system (EROFS)" : "permission denied (EACCES)";
    expect(child.lines).toEqual([
      { error: { name: "StateError", code: "io", message: `could not lock ${file}: ${reason}` } },
      { ok: true, length: 3 },
    ]);
    await chmod(stateDir, 0o755);
    expect(await openMemoryStore(file).get("a")).toBe("old");
    expect(readdirSync(stateDir)).toEqual(["memory.json"]);
  });
});
