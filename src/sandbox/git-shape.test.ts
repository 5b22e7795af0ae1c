/** isGitShaped: a folder git takes for a git folder by its entries, as setup.c's is_git_directory decides. */
import { describe, expect, it } from "vitest";
import { isGitShaped } from "./git-shape.js";
import type { FolderEntry } from "./scan.js";

const e = (name: string, kind: FolderEntry["kind"] = "dir"): FolderEntry => ({ name, kind });

describe("isGitShaped", () => {
  it.each([
    ["HEAD, objects, refs", [e("HEAD", "file"), e("objects"), e("refs")], true],
    ["HEAD as a link", [e("HEAD", "link"), e("objects"), e("refs")], true],
    [
      "objects and refs as links or files",
      [e("HEAD", "file"), e("objects", "link"), e("refs", "file")],
      true,
    ],
    ["HEAD and a commondir (a split repository, I3)", [e("HEAD", "file"), e("commondir", "file")], true],
    ["HEAD as a folder", [e("HEAD"), e("objects"), e("refs")], false],
    ["no HEAD", [e("objects"), e("refs"), e("commondir", "file")], false],
    ["HEAD without objects", [e("HEAD", "file"), e("refs")], false],
    ["an ordinary folder", [e("src"), e("README.md", "file")], false],
  ] as const)("%s → %s", (_what, entries, shaped) => {
    expect(isGitShaped(entries)).toBe(shaped);
  });
});
