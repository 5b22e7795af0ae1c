/**
 * toolgate's own host programs never come from a folder a command can write (red team I5): a `bwrap` or `git`
 * first on PATH inside a workspace root, a relative PATH entry, or a folder others can write is passed over for
 * the system's.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { distrustHostPlaces, hostProgram, untrustedWhy } from "./host-programs.js";

// Not below /var/tmp: a folder anyone can write (sticky or not) is never trusted, and this test needs one that is.
const base = mkdtempSync(join(homedir(), ".toolgate-host-programs-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A folder holding an executable `name` (a wrapper that would run on the host). */
function plant(dir: string, name: string, mode = 0o755): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), "#!/bin/sh\ntouch /tmp/planted\n", { mode });
  chmodSync(join(dir, name), mode);
  return dir;
}

describe("hostProgram", () => {
  it("passes over a PATH folder inside a distrusted root (node_modules/.bin, .venv/bin) for the system's", () => {
    const ws = join(base, "ws");
    const bin = plant(join(ws, "node_modules", ".bin"), "git");
    const venv = plant(join(ws, ".venv", "bin"), "bwrap");
    // Trusted before the root is known (owned by this user, not writable by others) …
    expect(hostProgram("git", `${bin}:/usr/bin`)).toBe(join(bin, "git"));
    distrustHostPlaces([ws]);
    // … never once a sandbox may write there.
    expect(hostProgram("git", `${bin}:/usr/bin`)).toMatch(/^\/usr\/(local\/)?bin\/git$/);
    expect(hostProgram("bwrap", `${venv}:/usr/bin`)).not.toContain(ws);
    expect(untrustedWhy(bin)).toMatch(/sandboxed commands may write/);
  });

  it("takes nothing from a relative PATH entry", () => {
    expect(untrustedWhy("node_modules/.bin")).toBe("not an absolute path");
    expect(hostProgram("git", "node_modules/.bin:.:/usr/bin")).toMatch(/^\/usr\/(local\/)?bin\/git$/);
  });

  it("takes nothing from a folder others can write (sticky or not)", () => {
    const open = plant(join(base, "open"), "toolgate-host-program-probe");
    chmodSync(open, 0o1777);
    expect(untrustedWhy(open)).toMatch(/writable by others/);
    expect(hostProgram("toolgate-host-program-probe", open)).toBeUndefined();
  });

  it("takes nothing writable by others, even in a trusted folder", () => {
    const dir = plant(join(base, "tidy"), "toolgate-host-program-loose", 0o777);
    chmodSync(dir, 0o755);
    expect(hostProgram("toolgate-host-program-loose", dir)).toBeUndefined();
  });
});
