/**
 * @module bench/run
 * `npm run bench`: runs every `*.bench.js` module in this folder (or those named on the command line, by
 * topic), each exporting `default async function run(): Promise<void>` that calls `report` per figure.
 */
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { reported } from "./harness.js";

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.js"))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();

for (const file of files) {
  console.log(`\n# ${file.replace(/\.bench\.js$/, "")}`);
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { default: () => Promise<void> };
  try {
    await mod.default();
  } catch (error) {
    console.log(`ERROR ${file}: ${(error as Error).stack ?? String(error)}`);
    process.exitCode = 1;
  }
}
const all = reported();
const missed = all.filter((l) => !l.pass).length;
console.log(`\n${all.length - missed} of ${all.length} benchmark figures within target`);
