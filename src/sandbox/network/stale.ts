/**
 * @module sandbox/network/stale
 * Removes the socket folders of egress proxies whose toolgate was killed (`close()` never ran). A folder is
 * stale when it is this user's own, plain (no link) and nothing answers on its socket; one whose socket is
 * not there yet is left alone for a minute (a proxy between `mkdtemp` and `listen`).
 */
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";

/** The prefix of every proxy's folder below its parent. */
export const PROXY_DIR_PREFIX = "toolgate-net-";

const YOUNG_MS = 60_000;

/** Removes stale proxy folders below `parent`; resolves with the paths removed. Never throws. */
export async function sweepStaleProxyDirs(parent: string, now = Date.now()): Promise<string[]> {
  let names: string[];
  try {
    names = readdirSync(parent).filter((name) => name.startsWith(PROXY_DIR_PREFIX));
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of names) {
    const dir = join(parent, name);
    try {
      const stat = lstatSync(dir);
      if (!stat.isDirectory() || stat.uid !== uid) continue;
      const state = await socketState(join(dir, "proxy.sock"));
      if (state === "live" || (state === "missing" && now - stat.mtimeMs < YOUNG_MS)) continue;
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // Another process removed it meanwhile, or it is not ours to remove: either way, leave it.
    }
  }
  return removed;
}

/** Whether something listens on the unix socket at `path`. */
function socketState(path: string): Promise<"live" | "dead" | "missing"> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.destroy();
      resolve("live");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => {
      resolve(error.code === "ENOENT" ? "missing" : "dead");
    });
  });
}
