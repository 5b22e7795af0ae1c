/** Owner permissions given back to folders the person owns, through a descriptor, never through a link. */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { reopenFolder, reopenWay } from "./reopen.js";

const base = mkdtempSync(join(tmpdir(), "tg-reopen-"));
afterAll(() => {
  chmodSync(base, 0o700);
  rmSync(base, { recursive: true, force: true });
});
const mode = (path: string) => statSync(path).mode & 0o777;

it("gives the owner read, write and search back, keeping the other bits; leaves a full folder alone", () => {
  const dir = join(base, "a");
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o111);
  expect(reopenFolder(dir)).toBe(true);
  expect(mode(dir)).toBe(0o711);
  expect(reopenFolder(dir)).toBe(false);
});

it("does not follow a link, and opens every folder on the way", () => {
  const target = join(base, "t");
  mkdirSync(target, { mode: 0o500 });
  symlinkSync(target, join(base, "link"));
  expect(reopenFolder(join(base, "link"))).toBe(false);
  expect(mode(target)).toBe(0o500);
  mkdirSync(join(base, "w/x/y"), { recursive: true });
  chmodSync(join(base, "w/x"), 0o100);
  chmodSync(join(base, "w"), 0o300);
  expect(reopenWay(base, join(base, "w/x/y/.git"))).toBe(true);
  expect([mode(join(base, "w")), mode(join(base, "w/x"))]).toEqual([0o700, 0o700]);
  expect(reopenFolder(join(base, "missing"))).toBe(false);
});
