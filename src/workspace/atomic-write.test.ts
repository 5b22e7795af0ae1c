import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileAtomic } from "./atomic-write.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "tg-atomic-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("writeFileAtomic", () => {
  it("creates a new file and leaves no temp file behind", async () => {
    const target = join(dir, "a.txt");
    await writeFileAtomic(target, "hello\n");
    expect(await readFile(target, "utf8")).toBe("hello\n");
    expect(await readdir(dir)).toEqual(["a.txt"]);
  });

  it("replaces an existing file and writes bytes as given", async () => {
    const target = join(dir, "a.bin");
    await writeFile(target, "old");
    await writeFileAtomic(target, new Uint8Array([0xff, 0xfe, 0x41, 0x00]));
    expect([...(await readFile(target))]).toEqual([0xff, 0xfe, 0x41, 0x00]);
  });

  it("applies an explicit mode even against the umask", async () => {
    const target = join(dir, "m.sh");
    await writeFileAtomic(target, "#!/bin/sh\n", { mode: 0o751 });
    expect((await stat(target)).mode & 0o777).toBe(0o751);
  });

  it("exclusive fails with EEXIST on an existing file and keeps it", async () => {
    const target = join(dir, "a.txt");
    await writeFile(target, "keep");
    await expect(writeFileAtomic(target, "new", { exclusive: true })).rejects.toMatchObject({
      code: "EEXIST",
    });
    expect(await readFile(target, "utf8")).toBe("keep");
    expect(await readdir(dir)).toEqual(["a.txt"]);
  });

  it("exclusive fails on a dangling symlink and never creates its target", async () => {
    const target = join(dir, "link");
    const outside = join(dir, "outside-target");
    await symlink(outside, target);
    await expect(writeFileAtomic(target, "x", { exclusive: true })).rejects.toMatchObject({ code: "EEXIST" });
    await expect(stat(outside)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("replaces a symlink at the target instead of following it", async () => {
    const victim = join(dir, "victim.txt");
    await writeFile(victim, "victim");
    const target = join(dir, "swapped");
    await symlink(victim, target);
    await writeFileAtomic(target, "new");
    expect(await readFile(victim, "utf8")).toBe("victim");
    expect((await lstat(target)).isSymbolicLink()).toBe(false);
    expect(await readFile(target, "utf8")).toBe("new");
  });

  it("leaves the old file intact and removes the temp file when the write fails", async () => {
    const sub = join(dir, "sub");
    const target = join(sub, "a.txt");
    // A non-empty directory at the target path makes the final rename fail after the temp file was written.
    await mkdir(target, { recursive: true });
    await writeFile(join(target, "inner"), "inner");
    await expect(writeFileAtomic(target, "data")).rejects.toBeInstanceOf(Error);
    expect((await readdir(sub)).sort()).toEqual(["a.txt"]);
    expect(await readFile(join(target, "inner"), "utf8")).toBe("inner");
  });
});
