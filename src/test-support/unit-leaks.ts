/**
 * Set-up of every `unit` and `system` file (vitest.config.ts): they share workers and loaded modules, so a file
 * must leave the process as it found it. After the file's tests, a variable of `process.env` added, changed or
 * removed, another working folder, or fake timers still on fail the file, naming what changed — and are put
 * back, so the next file in the worker starts clean (only the file that changed them fails).
 */
import { afterAll, beforeAll, vi } from "vitest";

let env: Record<string, string | undefined> = {};
let cwd = "";

beforeAll(() => {
  env = { ...process.env };
  cwd = process.cwd();
});

afterAll(() => {
  const names = new Set([...Object.keys(env), ...Object.keys(process.env)]);
  const changed = [...names].filter((name) => env[name] !== process.env[name]).sort();
  const left: string[] = [];
  if (changed.length > 0) left.push(`process.env ${changed.join(", ")} changed`);
  for (const name of changed) {
    if (env[name] === undefined) delete process.env[name];
    else process.env[name] = env[name];
  }
  if (process.cwd() !== cwd) {
    left.push(`the working folder is ${process.cwd()}, not ${cwd}`);
    process.chdir(cwd);
  }
  if (vi.isFakeTimers()) {
    left.push("fake timers are still on");
    vi.useRealTimers();
  }
  if (left.length > 0)
    throw new Error(`this file left the shared worker changed (files share one): ${left.join("; ")}`);
});
