/**
 * The launcher's descriptors: bytes through a pipe and open descriptors, placed at the child's fd 3, 4, … in
 * order (how bwrap gets its seccomp filter), with real child processes.
 */
import { closeSync, openSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findShell, type LauncherFd } from "./process-group.js";
import { runCommand } from "./run-command.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tg-launcher-fds-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs `command` through `env` as the launcher, with `fds`. */
const run = (command: string, fds: readonly LauncherFd[]) =>
  runCommand({
    command,
    cwd: dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    shell: findShell(),
    maxOutputBytes: 1 << 16,
    timeoutMs: 60_000,
    launcher: { argv: ["env"], fds },
  });

describe("launcher descriptors", () => {
  it("places bytes and open descriptors at fd 3, 4, … in order", async () => {
    const file = join(dir, "in.txt");
    await writeFile(file, "from a file");
    const fd = openSync(file, "r");
    try {
      const outcome = await run("cat <&3; echo; cat <&4", [
        { data: new TextEncoder().encode("from a pipe") },
        { fd },
      ]);
      expect(outcome.stdout).toBe("from a pipe\nfrom a file");
      expect(outcome.exit.code).toBe(0);
    } finally {
      closeSync(fd);
    }
  });

  it("delivers more bytes than a pipe holds, then end of file", async () => {
    const outcome = await run("wc -c <&3", [{ data: new Uint8Array(1 << 20).fill(7) }]);
    expect(outcome.stdout.trim()).toBe(String(1 << 20));
  });

  it("is not troubled by a child that never reads its pipe", async () => {
    const outcome = await run("exec 3<&-; exit 3", [{ data: new Uint8Array(1 << 22) }]);
    expect(outcome.exit.code).toBe(3);
  });
});
