/**
 * Builds `dist/` once before the test run (tsc, then the bundled command and the shipped grammar, as
 * `npm run build` does), so tests that drive the real `toolgate` binary (`node dist/bin/toolgate.js`) run
 * what users run.
 */
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export default function setup(): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  try {
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "pipe" });
  } catch (error) {
    // tsc still emits on type errors; `npm test` reports them in its typecheck step, so only warn here.
    const out = (error as { stdout?: Buffer }).stdout?.toString() ?? "";
    console.warn(`global setup: tsc reported problems (the build was still emitted):\n${out.slice(0, 4000)}`);
  }
  execFileSync(process.execPath, [join(root, "scripts", "bundle.mjs")], { cwd: root, stdio: "pipe" });
}
