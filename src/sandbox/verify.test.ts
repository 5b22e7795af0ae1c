/**
 * The check inside the sandbox, run by real bwrap: it lets a command run only when every planned mount is at
 * its path, read-only where planned, and holds the file that was opened; it closes the descriptors it was
 * given; odd names pass through it byte for byte.
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bytesOf, rawOf } from "./descriptors.js";
import { sandboxSupport } from "./detect.js";
import {
  CHECK_FAILED_PREFIX,
  CHECK_FAILED_STATUS,
  CHECK_SCRIPT,
  checkArgs,
  type Expected,
} from "./verify.js";

const O_PATH = 0o10000000;
let base: string;
let ws: string;
const fds: number[] = [];

beforeAll(async () => {
  // Outside /tmp: the sandbox's private /tmp would hide it.
  base = await mkdtemp("/var/tmp/toolgate-verify-");
  ws = join(base, "ws");
  mkdirSync(join(ws, "sub dir\nwith lines"), { recursive: true });
  writeFileSync(join(ws, "config"), "x");
  writeFileSync(join(ws, "other"), "y");
  writeFileSync(Buffer.concat([Buffer.from(`${ws}/odd-`), Buffer.from([0xff])]), "z");
});
afterAll(async () => {
  for (const fd of fds) closeSync(fd);
  await rm(base, { recursive: true, force: true });
});

/** Opens raw paths as the survey does; the child gets them at 3, 4, … */
function open(...paths: string[]): number[] {
  const opened = paths.map((p) => openSync(bytesOf(p), O_PATH));
  fds.push(...opened);
  return opened;
}

/** Runs bwrap with `mountArgs` (raw) and the check for `expected`, then `command`; stdout, stderr, status. */
function run(
  mountArgs: string[],
  expected: Expected[],
  sources: number[],
  command: string,
  shell = "/bin/bash",
): Promise<{ stdout: string; stderr: string; status: number | null }> {
  const args = [
    ...["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session"],
    ...["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"],
    ...mountArgs,
    ...["--chdir", rawOf(ws)],
  ];
  return new Promise((resolve) => {
    const child = spawn(
      sandboxSupport().bwrap!,
      [
        "--args",
        "3",
        "--",
        "/bin/bash",
        "-c",
        CHECK_SCRIPT,
        shell,
        ...checkArgs(expected),
        shell,
        "-c",
        command,
      ],
      { stdio: ["ignore", "pipe", "pipe", "pipe", ...sources] },
    );
    (child.stdio[3] as NodeJS.WritableStream).end(Buffer.from(args.map((a) => `${a}\0`).join(""), "latin1"));
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    child.on("close", (status) => resolve({ stdout, stderr, status }));
  });
}

describe("the check inside the sandbox", () => {
  it("runs the command in the same bash when every mount is as planned, with its descriptors closed", async () => {
    const [root, config] = open(rawOf(ws), rawOf(`${ws}/config`));
    const r = await run(
      ["--bind", "/proc/self/fd/4", rawOf(ws), "--ro-bind", "/proc/self/fd/5", rawOf(`${ws}/config`)],
      [
        { path: rawOf(ws), writable: true, ref: "/proc/self/fd/4" },
        { path: rawOf(`${ws}/config`), writable: false, ref: "/proc/self/fd/5" },
      ],
      [root!, config!],
      'echo "pid=$$ args=$# zero=$0"; ls /proc/self/fd; echo x > config || echo refused; exit 7',
    );
    expect(r.stderr).toContain("Read-only file system");
    expect(r.stdout).toContain("args=0 zero=/bin/bash");
    expect(r.stdout).toContain("refused");
    // Only stdin, stdout, stderr and ls's own listing are open: the survey's descriptors are closed.
    expect(r.stdout.split("\n").filter((l) => /^\d+$/.test(l))).toEqual(["0", "1", "2", "3"]);
    expect(r.status).toBe(7);
  });

  it("starts another shell with exec, and passes names with spaces, lines and bytes that are not UTF-8", async () => {
    const odd = `${rawOf(ws)}/odd-\xff`;
    const lines = rawOf(`${ws}/sub dir\nwith lines`);
    const [a, b] = open(odd, lines);
    const r = await run(
      ["--ro-bind", "/proc/self/fd/4", odd, "--ro-bind", "/proc/self/fd/5", lines],
      [
        { path: odd, writable: false, ref: "/proc/self/fd/4" },
        { path: lines, writable: false, ref: "/proc/self/fd/5" },
      ],
      [a!, b!],
      "echo ran",
      "/bin/sh",
    );
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("ran\n");
  });

  const cases: { note: string; mounts: (fd: string) => string[]; why: RegExp }[] = [
    { note: "a planned mount that is missing", mounts: () => [], why: /nothing is mounted at .*\/config/ },
    {
      note: "a mount that is writable where read-only was planned",
      mounts: (fd) => ["--bind", fd, rawOf(`${ws}/config`)],
      why: /config is not read-only/,
    },
    {
      note: "a mount of another file than the one opened",
      mounts: () => ["--ro-bind", rawOf(`${ws}/other`), rawOf(`${ws}/config`)],
      why: /config is not what was checked/,
    },
  ];
  it.each(cases.map((c) => [c.note, c] as const))("stops the command: %s", async (_note, c) => {
    const [config] = open(rawOf(`${ws}/config`));
    const r = await run(
      c.mounts("/proc/self/fd/4"),
      [{ path: rawOf(`${ws}/config`), writable: false, ref: "/proc/self/fd/4" }],
      [config!],
      "echo ran",
    );
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(new RegExp(`^${CHECK_FAILED_PREFIX}: `));
    expect(r.stderr).toMatch(c.why);
    expect(r.status).toBe(CHECK_FAILED_STATUS);
  });

  it("stops the command when its list was cut short", async () => {
    const [config] = open(rawOf(`${ws}/config`));
    const expected = [{ path: rawOf(`${ws}/config`), writable: false, ref: "/proc/self/fd/3" }];
    const args = checkArgs(expected);
    args[0] = "2";
    const r = await new Promise<{ stderr: string; status: number | null }>((resolve) => {
      const child = spawn(
        sandboxSupport().bwrap!,
        [
          "--ro-bind",
          "/",
          "/",
          "--ro-bind",
          "/proc/self/fd/3",
          rawOf(`${ws}/config`),
          "--",
          "/bin/bash",
        ].concat(["-c", CHECK_SCRIPT, "bash", ...args, "/bin/bash", "-c", "echo ran"]),
        { stdio: ["ignore", "pipe", "pipe", config!] },
      );
      let stderr = "";
      child.stderr!.on("data", (d) => (stderr += d));
      child.on("close", (status) => resolve({ stderr, status }));
    });
    expect(r.stderr).toMatch(/its list is (incomplete|too long|malformed)/);
    expect(r.status).toBe(CHECK_FAILED_STATUS);
  });
});
