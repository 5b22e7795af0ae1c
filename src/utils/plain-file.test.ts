import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotPlainFileError, readPlainFile, readPlainFileSync } from "./plain-file.js";

let dir: string;
let server: Server;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "toolgate-plain-"));
  writeFileSync(join(dir, "file"), "hello");
  execFileSync("mkfifo", [join(dir, "fifo")]);
  mkdirSync(join(dir, "folder"));
  symlinkSync(join(dir, "file"), join(dir, "link"));
  symlinkSync(join(dir, "fifo"), join(dir, "link-to-fifo"));
  symlinkSync("/dev/zero", join(dir, "link-to-zero"));
  writeFileSync(join(dir, "big"), Buffer.alloc(2048));
  server = createServer();
  await new Promise<void>((done) => server.listen(join(dir, "socket"), done));
});
afterAll(async () => {
  await new Promise((done) => server.close(done));
  rmSync(dir, { recursive: true, force: true });
});

// Each row: a path, how it is read, and the kind the refusal names (undefined: read).
const rows: [string, { follow?: boolean; maxBytes?: number }, string | undefined][] = [
  ["file", {}, undefined],
  ["link", {}, undefined],
  ["fifo", {}, "a FIFO"],
  ["fifo", { follow: false }, "a FIFO"],
  ["link-to-fifo", {}, "a FIFO"],
  ["link-to-zero", {}, "a character device"],
  ["link", { follow: false }, "a symbolic link"],
  ["socket", {}, "a socket"],
  ["socket", { follow: false }, "a socket"],
  ["folder", {}, "a directory"],
  ["big", { maxBytes: 1024 }, "too large"],
];

describe("reading only regular files", () => {
  it.each(rows)("sync: %s %j → %s", (name, options, kind) => {
    const read = () => readPlainFileSync(join(dir, name), options);
    if (kind === undefined) expect(read().toString()).toBe("hello");
    else expect(read).toThrow(expect.objectContaining({ kind, code: "ENOTPLAIN" }));
  });
  it.each(rows)("async: %s %j → %s", async (name, options, kind) => {
    const read = readPlainFile(join(dir, name), options);
    if (kind === undefined) expect((await read).toString()).toBe("hello");
    else await expect(read).rejects.toMatchObject({ kind, code: "ENOTPLAIN" });
  });
  it("a missing file is the usual ENOENT, and a refusal names the path and the kind", () => {
    expect(() => readPlainFileSync(join(dir, "missing"))).toThrow(
      expect.objectContaining({ code: "ENOENT" }),
    );
    const error = (() => {
      try {
        readPlainFileSync(join(dir, "fifo"));
      } catch (e) {
        return e as NotPlainFileError;
      }
    })();
    expect(error).toBeInstanceOf(NotPlainFileError);
    expect(error?.message).toBe(
      `${join(dir, "fifo")} is a FIFO, not a regular file: not read (a FIFO or device could block or never end)`,
    );
  });
});
