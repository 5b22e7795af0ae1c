/**
 * @module sandbox/own-copy
 * A read-only mount protects a path, not a file: a protected file with a second hard link in a writable place
 * (`notes.txt` made as another name of a repository's `config` before the config was protected, or before a
 * name joined the protected list) could be changed through that name while its protected path is mounted
 * read-only, and git on the host would read the change. Before such a file is mounted, it gets a file of its
 * own: the same bytes and mode, written beside it and renamed over its path (the other name keeps the old
 * file, now unrelated). Nothing of the person's is lost; the protected path's content is unchanged.
 */

import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname } from "node:path";
import { inside, openFolder, textOf } from "./descriptors.js";

/**
 * Gives the regular file at raw `path` (which has more than one hard link, and inode `ino`) a file of its own.
 * @throws with the reason when it cannot (a folder on the way is gone or a link, the file changed meanwhile,
 * no permission to write its folder).
 */
export function giveOwnCopy(path: string, ino: number): void {
  const parent = openFolder(dirname(path));
  if (parent === undefined) throw new Error(`a folder on the way to ${textOf(path)} is gone or a link`);
  const name = basename(path);
  const temporary = `.${name}.toolgate-own-${randomBytes(4).toString("hex")}`;
  try {
    const fd = openSync(
      inside(parent, name),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
    let bytes: Buffer;
    let mode: number;
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile() || stat.ino !== ino) throw new Error(`${textOf(path)} changed meanwhile`);
      mode = stat.mode & 0o7777;
      bytes = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
    const out = openSync(inside(parent, temporary), "wx", 0o600);
    try {
      writeFileSync(out, bytes);
      fchmodSync(out, mode);
    } finally {
      closeSync(out);
    }
    try {
      renameSync(inside(parent, temporary), inside(parent, name));
    } catch (error) {
      unlinkSync(inside(parent, temporary));
      throw error;
    }
  } finally {
    closeSync(parent);
  }
}
