import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startEgressProxy } from "./proxy.js";
import { PROXY_DIR_PREFIX, sweepStaleProxyDirs } from "./stale.js";

let parent: string;

beforeEach(() => {
  parent = mkdtempSync(join(tmpdir(), "stale-proxy-"));
});
afterEach(() => {
  rmSync(parent, { recursive: true, force: true });
});

/** A proxy folder as a killed toolgate leaves it: its socket file is there, nothing listens on it. */
function deadProxyDir(name: string): string {
  const dir = join(parent, PROXY_DIR_PREFIX + name);
  mkdirSync(dir);
  // A process that binds the socket and ends without unlinking it, as a kill -9 leaves a listener's socket.
  const bind = "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])";
  execFileSync("python3", ["-c", bind, join(dir, "proxy.sock")]);
  return dir;
}

function old(dir: string) {
  const past = new Date(Date.now() - 3_600_000);
  utimesSync(dir, past, past);
}

describe("sweepStaleProxyDirs", () => {
  it("removes a folder whose socket nobody answers, and one left without a socket an hour ago", async () => {
    const dead = deadProxyDir("dead");
    const empty = join(parent, `${PROXY_DIR_PREFIX}empty`);
    mkdirSync(empty);
    old(empty);
    expect((await sweepStaleProxyDirs(parent)).sort()).toEqual([dead, empty].sort());
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(empty)).toBe(false);
  });

  it("keeps a live proxy's folder, a young folder without a socket, a link, and other names", async () => {
    const live = await startEgressProxy({ allowHosts: [], parentDir: parent });
    try {
      const young = join(parent, `${PROXY_DIR_PREFIX}young`);
      mkdirSync(young);
      const target = mkdtempSync(join(tmpdir(), "stale-target-"));
      symlinkSync(target, join(parent, `${PROXY_DIR_PREFIX}link`));
      const other = join(parent, "not-a-proxy");
      mkdirSync(other);
      old(other);
      writeFileSync(join(parent, `${PROXY_DIR_PREFIX}file`), "x");
      expect(await sweepStaleProxyDirs(parent)).toEqual([]);
      expect(existsSync(live.socketPath)).toBe(true);
      expect(existsSync(young)).toBe(true);
      expect(existsSync(target)).toBe(true);
      expect(existsSync(other)).toBe(true);
      rmSync(target, { recursive: true, force: true });
    } finally {
      live.close();
    }
  });

  it("a new proxy clears what a killed one left in the same parent", async () => {
    const dead = deadProxyDir("killed");
    const proxy = await startEgressProxy({ allowHosts: [], parentDir: parent });
    try {
      await expect.poll(() => existsSync(dead), { timeout: 10_000 }).toBe(false);
      expect(existsSync(proxy.socketPath)).toBe(true);
    } finally {
      proxy.close();
    }
  });
});
