/**
 * @module bench/harness
 * The small harness every benchmark uses: time a function many times, report our figure beside its anchor
 * (measured in the same run) and the ratio, and check it against the target the issue sets.
 */
import { seededRandom } from "../utils/index.js";

export interface Stats {
  /** Samples in milliseconds. */
  n: number;
  p50: number;
  p99: number;
  mean: number;
  min: number;
}

/** One printed line: our figure, the anchor's, the ratio, the target. */
export interface BenchLine {
  name: string;
  ours: string;
  anchor?: string;
  ratio?: number;
  target: string;
  pass: boolean;
}

const lines: BenchLine[] = [];

/** Times `fn` `iterations` times (after `warmup` untimed runs); returns per-call stats in ms. */
export async function measure(
  fn: () => unknown,
  iterations: number,
  warmup = Math.min(50, iterations),
): Promise<Stats> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    await fn();
    samples[i] = performance.now() - t0;
  }
  return stats(samples);
}

/** Times `fn` synchronously (no await per call), for sub-microsecond work. */
export function measureSync(
  fn: () => unknown,
  iterations: number,
  warmup = Math.min(1000, iterations),
): Stats {
  for (let i = 0; i < warmup; i++) fn();
  const samples = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    fn();
    samples[i] = performance.now() - t0;
  }
  return stats(samples);
}

export function stats(samples: Float64Array | number[]): Stats {
  const sorted = Float64Array.from(samples).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  let sum = 0;
  for (const s of sorted) sum += s;
  return {
    n: sorted.length,
    p50: at(0.5),
    p99: at(0.99),
    mean: sum / Math.max(1, sorted.length),
    min: sorted[0] ?? 0,
  };
}

/**
 * Times functions in turn, one call each per round in a shuffled order (after one warm-up call each), so
 * cache state and machine noise hit all alike; returns one set of stats per function, in order.
 */
export async function interleaved(
  ours: () => unknown,
  anchor: () => unknown,
  iterations: number,
  ...more: (() => unknown)[]
): Promise<[Stats, Stats, ...Stats[]]> {
  const fns = [ours, anchor, ...more];
  for (const fn of fns) await fn();
  const samples: number[][] = fns.map(() => []);
  // Each round runs the sides in a fresh random order (seeded: the same every run): a fixed order lets the
  // side that runs second find caches warm from the first, and a simple alternation lines up with callers
  // that step through an even number of inputs.
  const random = seededRandom(0x70015);
  const order = fns.map((_, k) => k);
  for (let i = 0; i < iterations; i++) {
    for (let j = order.length - 1; j > 0; j--) {
      const swap = Math.floor(random() * (j + 1));
      [order[j], order[swap]] = [order[swap]!, order[j]!];
    }
    for (const k of order) {
      const t0 = performance.now();
      await fns[k]!();
      samples[k]!.push(performance.now() - t0);
    }
  }
  const [a, b, ...rest] = samples.map((s) => stats(s));
  return [a!, b!, ...rest];
}

/** "p50 X p99 Y" for a line of the report. */
export function p50p99(s: Stats): string {
  return `p50 ${fmt(s.p50)} p99 ${fmt(s.p99)}`;
}

/** Formats milliseconds with a sensible unit. */
export function fmt(ms: number): string {
  if (ms < 0.001) return `${(ms * 1e6).toFixed(0)} ns`;
  if (ms < 1) return `${(ms * 1000).toFixed(2)} µs`;
  if (ms < 1000) return `${ms.toFixed(2)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** Records and prints one benchmark line. */
export function report(line: BenchLine): void {
  lines.push(line);
  const ratio = line.ratio === undefined ? "" : `  ratio ${line.ratio.toFixed(2)}×`;
  const anchor = line.anchor === undefined ? "" : `  anchor ${line.anchor}`;
  console.log(
    `${line.pass ? "PASS" : "MISS"}  ${line.name}: ours ${line.ours}${anchor}${ratio}  (target ${line.target})`,
  );
}

export function reported(): readonly BenchLine[] {
  return lines;
}

/** Peak RSS of a child process run via `/usr/bin/time`-free means: sample `process.memoryUsage.rss` in-process. */
export function rssMb(): number {
  return process.memoryUsage.rss() / (1024 * 1024);
}
