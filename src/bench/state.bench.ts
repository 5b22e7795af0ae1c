/**
 * @module bench/state
 * Throughput of memory `set` (lock → read → change → temp → fsync → rename → fsync dir → unlock) from 1 and
 * from 4 processes, beside the same loop with a plain `fs.writeFile` (no lock, no fsync) as the ceiling.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { report } from "./harness.js";

const SETS_PER_PROCESS = 300;
const stateIndex = pathToFileURL(
  join(dirname(fileURLToPath(import.meta.url)), "..", "state", "index.js"),
).href;

// Each child runs one loop and prints when it started and ended (wall clock, shared across processes).
const CHILD = `
const [mode, file, prefix, count, index] = process.argv.slice(1);
const { readFile, writeFile, mkdir } = await import("node:fs/promises");
const { dirname } = await import("node:path");
let set;
if (mode === "store") {
  const { openMemoryStore } = await import(index);
  const store = openMemoryStore(file);
  set = (k, v) => store.set(k, v);
} else {
  await mkdir(dirname(file), { recursive: true });
  set = async (k, v) => {
    let doc = { version: 1, kind: "toolgate-memory", entries: {} };
    try { doc = JSON.parse(await readFile(file, "utf8")); } catch {}
    doc.entries[k] = { value: v, updatedAt: new Date().toISOString() };
    await writeFile(file, JSON.stringify(doc, null, 2) + "\\n");
  };
}
const start = Date.now();
for (let i = 0; i < Number(count); i++) await set(prefix + "-" + i, "value " + prefix + " " + i);
process.stdout.write(JSON.stringify({ start, end: Date.now() }));
`;

function runChild(mode: string, file: string, prefix: string): Promise<{ start: number; end: number }> {
  return new Promise((done, fail) => {
    const args = [
      "--input-type=module",
      "-e",
      CHILD,
      mode,
      file,
      prefix,
      String(SETS_PER_PROCESS),
      stateIndex,
    ];
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.on("exit", (code) =>
      code === 0 ? done(JSON.parse(out)) : fail(new Error(`child exited ${code}`)),
    );
  });
}

/** Sets per second over all processes, and how many keys the file holds afterwards. */
async function throughput(mode: string, processes: number): Promise<{ perSecond: number; kept: number }> {
  const dir = await mkdtemp(join(tmpdir(), "toolgate-bench-state-"));
  try {
    const file = join(dir, "state", "memory.json");
    const runs = await Promise.all(
      Array.from({ length: processes }, (_, p) => runChild(mode, file, `p${p}`)),
    );
    const seconds = (Math.max(...runs.map((r) => r.end)) - Math.min(...runs.map((r) => r.start))) / 1000;
    let kept = 0;
    try {
      kept = Object.keys(JSON.parse(await readFile(file, "utf8")).entries).length;
    } catch {
      kept = -1; // the unlocked loop can leave a torn file behind
    }
    return { perSecond: (processes * SETS_PER_PROCESS) / Math.max(seconds, 0.001), kept };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export default async function run(): Promise<void> {
  for (const processes of [1, 4]) {
    const ours = await throughput("store", processes);
    const plain = await throughput("plain", processes);
    const total = processes * SETS_PER_PROCESS;
    const lost = plain.kept < 0 ? "file torn" : `${total - plain.kept} of ${total} keys lost`;
    report({
      name: `memory set, ${processes} process${processes > 1 ? "es" : ""} × ${SETS_PER_PROCESS} (ours kept ${ours.kept}/${total}; plain: ${lost})`,
      ours: `${ours.perSecond.toFixed(0)} sets/s`,
      anchor: `plain fs.writeFile ${plain.perSecond.toFixed(0)} sets/s`,
      ratio: ours.perSecond / plain.perSecond,
      // Durability costs two fsyncs and a lock directory per set, so the plain loop is far faster (and loses
      // keys). An agent makes a few tool calls a second at most: 50 sets/s with nothing lost is ample.
      target: "≥ 50 sets/s, every key kept",
      pass: ours.perSecond >= 50 && ours.kept === total,
    });
  }
}
