/**
 * @module test-support/file-tree
 * Writes a tree described as data (files, empty folders, symbolic links) into a temporary folder: the
 * workspaces of the expansion tests, whose file names are the test (leading dashes, newlines, unicode).
 */
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A tree as the test data gives it. */
export interface FileTree {
  /** Paths of empty files, relative to the root (`src/a.ts`). */
  files?: readonly string[];
  /** Paths of empty folders. */
  folders?: readonly string[];
  /** Link name → target (relative to the link's folder, or absolute). */
  links?: Readonly<Record<string, string>>;
}

/** Writes `tree` under `root`. */
export function writeTree(root: string, tree: FileTree): void {
  for (const folder of tree.folders ?? []) mkdirSync(join(root, folder), { recursive: true });
  for (const file of tree.files ?? []) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), "");
  }
  for (const [name, target] of Object.entries(tree.links ?? {})) symlinkSync(target, join(root, name));
}

/** A fresh temporary folder (canonical path) holding `tree`. */
export function tempTree(tree: FileTree, prefix = "tg-tree-"): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  writeTree(root, tree);
  return root;
}
