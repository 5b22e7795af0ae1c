/**
 * The approvals folder as found (testdata/folder-cases.json), with real folders, modes and symlinks in the
 * temp folder: a folder others could change is refused, naming it; a good one is used, and what is missing is
 * made 0700. "Another user's" folder is real under root (chowned to nobody); run as any other user, the check
 * is told it runs as a different uid, so the same rule is met. The store reads no record through a symlink.
 */
import { randomUUID } from "node:crypto";
import {
  chmodSync,
  lchownSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ask } from "../test-support/console.js";
import { FileApprovalStore } from "./file-store.js";
import { ensurePrivateFolder, UnsafeFolderError } from "./private-folder.js";
import cases from "./testdata/folder-cases.json" with { type: "json" };

interface Step {
  mkdir?: string;
  mode?: string;
  file?: string;
  symlink?: string;
  to?: string;
}

interface FolderCase {
  note: string;
  base?: "symlink";
  foreign?: boolean;
  layout: Step[];
  dir: string;
  refused: { path: string; says: string } | null;
}

const uid = process.getuid?.() as number;
const NOBODY = 65534;
const made: string[] = [];

/** A fresh B in the temp folder: a folder, or a symlink to a fresh private folder. */
function base(kind?: "symlink"): string {
  const root = mkdtempSync(join(tmpdir(), "tg-folder-"));
  made.push(root);
  if (kind !== "symlink") return root;
  const link = join(tmpdir(), `tg-folder-link-${randomUUID()}`);
  symlinkSync(root, link);
  made.push(link);
  return link;
}

describe("the approvals folder as found", () => {
  afterEach(() => {
    for (const path of made.splice(0)) rmSync(path, { recursive: true, force: true });
  });

  it.each(cases.cases as FolderCase[])("$note", (c) => {
    const b = base(c.base);
    for (const step of c.layout) {
      if (step.mkdir) {
        mkdirSync(join(b, step.mkdir));
        chmodSync(join(b, step.mkdir), Number.parseInt(step.mode ?? "700", 8));
      }
      if (step.file) writeFileSync(join(b, step.file), "{}");
      if (step.symlink) symlinkSync(step.to as string, join(b, step.symlink));
    }
    // Another user's: as root, truly (lchown: a symlink itself); otherwise, we say we are someone else.
    let as = uid;
    if (c.foreign && uid === 0) lchownSync(b, NOBODY, NOBODY);
    else if (c.foreign) as = uid + 1;
    const dir = join(b, c.dir);
    const check = () => ensurePrivateFolder(dir, { uid: as });
    if (c.refused === null) {
      check();
      const stat = statSync(dir);
      expect({ mode: (stat.mode & 0o7777).toString(8), uid: stat.uid }).toEqual({ mode: "700", uid });
      // Every level it made is 0700 too.
      for (let p = dir; p !== b && !c.layout.some((s) => join(b, s.mkdir ?? "-") === p); p = resolve(p, ".."))
        expect((statSync(p).mode & 0o777).toString(8)).toBe("700");
      return;
    }
    const named = resolve(b, c.refused.path);
    expect(check).toThrow(UnsafeFolderError);
    expect(check).toThrow(`approvals folder ${resolve(dir)}: refused, ${named} `);
    expect(check).toThrow(c.refused.says);
    // A store refuses it the same way, before writing anything.
    if (as === uid) expect(() => new FileApprovalStore({ dir })).toThrow(c.refused.says);
  });

  it("reads no record through a symlink planted in the folder", async () => {
    const dir = join(base(), "approvals");
    const store = new FileApprovalStore({ dir });
    const real = await store.publish(ask());
    const secret = join(dir, "..", "secret.json");
    writeFileSync(secret, JSON.stringify({ ...real, id: undefined }));
    const planted = randomUUID();
    symlinkSync(secret, join(dir, `${planted}.json`));
    expect((await store.list()).map((r) => r.id)).toEqual([real.id]);
    await expect(store.get(planted)).rejects.toThrow(/ELOOP|symbolic link/);
    await store.close();
  });
});
