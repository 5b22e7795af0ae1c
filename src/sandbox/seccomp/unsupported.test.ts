/**
 * On an architecture without a syscall table there is no seccomp filter, hence no sandbox: under `auto` commands
 * run unsandboxed and say why, an explicit mode refuses (as on a machine without bwrap). Run in a child Node
 * that reports another architecture, against the built `dist/`.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const SCRIPT = `
Object.defineProperty(process, "arch", { value: "riscv64" });
const m = await import(new URL("../../../dist/sandbox/index.js", process.argv[1]).href);
// A root of its own: with "/" as a root every system folder would be one a command writes (no bwrap found).
const { mkdtempSync } = await import("node:fs");
const root = mkdtempSync((await import("node:os")).tmpdir() + "/tg-arch-");
const auto = m.prepareSandbox(m.DEFAULT_SANDBOX_SETTINGS, { roots: [root], cwd: root });
let refused = "";
try {
  m.prepareSandbox({ ...m.DEFAULT_SANDBOX_SETTINGS, mode: "workspace-write" }, { roots: [root], cwd: root });
} catch (error) {
  refused = error.name + ": " + error.message;
}
console.log(JSON.stringify({ support: m.sandboxSupport(), auto, refused }));
(await import("node:fs")).rmSync(root, { recursive: true, force: true });
`;

describe("a machine without a syscall table", () => {
  it("has no sandbox: auto runs unsandboxed and says why; an explicit mode refuses", () => {
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", SCRIPT, import.meta.url], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const { support, auto, refused } = JSON.parse(run.stdout);
    expect(support.available).toBe(false);
    expect(support.reason).toMatch(/no seccomp syscall table for riscv64/);
    expect(auto).toMatchObject({ sandboxed: false, profile: "off:unavailable" });
    expect(auto.notice).toMatch(
      /^none: commands run UNSANDBOXED because toolgate has no seccomp syscall table/,
    );
    expect(refused).toMatch(
      /^SandboxSetupError: \[sandbox\] mode = "workspace-write" cannot be had here: toolgate has no seccomp/,
    );
  });
});
