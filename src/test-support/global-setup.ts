/**
 * Builds `dist/` before the test run, as `npm run build` does, when the build's inputs changed since the last
 * build (scripts/build.mjs), so tests that drive the real `toolgate` binary (`node dist/bin/toolgate.js`)
 * run what users run.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Tests run with their own user configuration folder, never the developer's: `XDG_CONFIG_HOME` points at a
 * fresh temp folder whose trust list trusts the system temp folder, where tests make their workspaces, with
 * `content: "any"` — whatever files appear there count, as a user's trusted project's would, without each
 * test trusting its files' digests (a record toolgate never writes itself; docs/trust.md). Tests of trust
 * set their own `XDG_CONFIG_HOME` or pass `trustWorkspace: false`.
 */
function isolateUserConfig(): void {
  const home = mkdtempSync(join(tmpdir(), "tg-xdg-"));
  mkdirSync(join(home, "toolgate"), { recursive: true });
  const trusted = [{ path: realpathSync(tmpdir()), since: new Date(0).toISOString(), content: "any" }];
  writeFileSync(join(home, "toolgate", "trusted.json"), JSON.stringify({ version: 2, trusted }));
  process.env["XDG_CONFIG_HOME"] = home;
}

export default function setup(): void {
  isolateUserConfig();
  // Set when another user built dist/ beforehand (the sandbox's tests run as a user that is not root).
  if (process.env.TOOLGATE_TEST_PREBUILT === "1") return;
  const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
  execFileSync(process.execPath, [join(root, "scripts", "build.mjs"), "--if-changed"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
  });
}
