import {
  chmod,
  link,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  stat,
  symlink,
  unlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkspaceError } from "./errors.js";
import { openForRead, readChecked, writeChecked } from "./safe-io.js";
import { Workspace } from "./workspace.js";

let base: string;
let root: string;
let outside: string;
let ws: Workspace;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "tg-safeio-")));
  root = join(base, "proj");
  outside = join(base, "outside.txt");
  await mkdir(join(root, "d"), { recursive: true });
  await mkdir(join(base, "evil"));
  await writeFile(outside, "outside\n");
  ws = await Workspace.create([root]);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof WorkspaceError) return error.code;
    throw error;
  }
}

describe("writeChecked", () => {
  it("creates a new file and its missing parent folders inside the root", async () => {
    const resolved = await ws.resolve("a/b/c/new.txt", "write");
    expect(await writeChecked(resolved, "hi\n")).toEqual({ created: true });
    expect(await readFile(join(root, "a/b/c/new.txt"), "utf8")).toBe("hi\n");
  });

  it("refuses an existing file without overwrite and replaces it with overwrite, keeping the mode", async () => {
    await writeFile(join(root, "x.sh"), "old");
    await chmod(join(root, "x.sh"), 0o754);
    const resolved = await ws.resolve("x.sh", "write");
    await expect(writeChecked(resolved, "new")).rejects.toThrow("file already exists: x.sh");
    expect(await writeChecked(resolved, "new", { overwrite: true })).toEqual({ created: false });
    expect(await readFile(join(root, "x.sh"), "utf8")).toBe("new");
    expect((await stat(join(root, "x.sh"))).mode & 0o777).toBe(0o754);
    expect((await readdir(root)).sort()).toEqual(["d", "x.sh"]);
  });

  it("refuses a hard link to an outside file and leaves the outside file unchanged", async () => {
    await link(outside, join(root, "hard.txt"));
    const resolved = await ws.resolve("hard.txt", "write");
    await expect(writeChecked(resolved, "pwned", { overwrite: true })).rejects.toThrow(
      'refusing to overwrite "hard.txt": it has 2 hard links',
    );
    expect(await readFile(outside, "utf8")).toBe("outside\n");
  });

  it("replaces a symlink swapped in after validation instead of following it", async () => {
    await writeFile(join(root, "f.txt"), "mine");
    const resolved = await ws.resolve("f.txt", "write");
    await unlink(join(root, "f.txt"));
    await symlink(outside, join(root, "f.txt"));
    await writeChecked(resolved, "new", { overwrite: true });
    expect(await readFile(outside, "utf8")).toBe("outside\n");
    expect((await lstat(join(root, "f.txt"))).isSymbolicLink()).toBe(false);
    expect(await readFile(join(root, "f.txt"), "utf8")).toBe("new");
  });

  it("does not follow a dangling symlink planted at a new file's name after validation", async () => {
    const resolved = await ws.resolve("n.txt", "write");
    await symlink(join(base, "created.txt"), join(root, "n.txt"));
    expect(await code(writeChecked(resolved, "x"))).toBe("exists");
    await expect(stat(join(base, "created.txt"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("refuses when the parent folder is swapped for a symlink to outside after validation", async () => {
    const resolved = await ws.resolve("d/new.txt", "write");
    await rename(join(root, "d"), join(root, "d-moved"));
    await symlink(join(base, "evil"), join(root, "d"));
    expect(await code(writeChecked(resolved, "x"))).toBe("changed");
    expect(await readdir(join(base, "evil"))).toEqual([]);
  });

  it("refuses when a missing parent is created as a symlink to outside after validation", async () => {
    const resolved = await ws.resolve("m/new.txt", "write");
    await symlink(join(base, "evil"), join(root, "m"));
    expect(await code(writeChecked(resolved, "x"))).toBe("changed");
    expect(await readdir(join(base, "evil"))).toEqual([]);
  });

  it("refuses to create parents through a file", async () => {
    await writeFile(join(root, "plain"), "");
    const resolved = await ws.resolve("plain/x.txt", "write");
    await expect(writeChecked(resolved, "x")).rejects.toThrow(
      'cannot create "plain/x.txt": "plain" is not a directory',
    );
  });
});

describe("openForRead / readChecked", () => {
  it("reads a file and refuses one over the size limit, naming size and limit", async () => {
    await writeFile(join(root, "big.txt"), "x".repeat(100));
    const resolved = await ws.resolve("big.txt", "read");
    expect((await readChecked(resolved, 100)).length).toBe(100);
    await expect(readChecked(resolved, 99)).rejects.toThrow(
      'file "big.txt" is too large: 100 bytes, limit 99 bytes',
    );
  });

  it("refuses a file swapped for a symlink to outside after validation", async () => {
    await writeFile(join(root, "r.txt"), "mine");
    const resolved = await ws.resolve("r.txt", "read");
    await unlink(join(root, "r.txt"));
    await symlink(outside, join(root, "r.txt"));
    expect(await code(openForRead(resolved))).toBe("changed");
  });

  it("refuses when a parent folder is swapped for a symlink to outside after validation", async () => {
    await writeFile(join(root, "d/r.txt"), "mine");
    await writeFile(join(base, "evil/r.txt"), "evil");
    const resolved = await ws.resolve("d/r.txt", "read");
    await rename(join(root, "d"), join(root, "d-moved"));
    await symlink(join(base, "evil"), join(root, "d"));
    expect(await code(openForRead(resolved))).toBe("changed");
  });

  it("refuses directories and says so", async () => {
    const resolved = await ws.resolve("d", "read");
    await expect(openForRead(resolved)).rejects.toThrow('path "d" is a directory, not a file');
  });
});
