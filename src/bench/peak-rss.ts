/**
 * @module bench/peak-rss
 * Preloaded with `node --import` by the CLI benchmark: when the process exits, appends its peak RSS in KB
 * (`VmHWM`, this process image only) to the file named by `TOOLGATE_BENCH_RSS`. Loaded the same way into
 * `node -e 0`, so both sides carry it.
 */
import { appendFileSync, readFileSync } from "node:fs";

const out = process.env.TOOLGATE_BENCH_RSS;
if (out) {
  process.on("exit", () => {
    const kb = /VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kb) appendFileSync(out, `${kb}\n`);
  });
}
