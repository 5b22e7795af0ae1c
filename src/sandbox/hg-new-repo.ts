/**
 * @module sandbox/hg-new-repo
 * A Mercurial repository a command made is judged whole, as a new git repository is: Mercurial on the host
 * runs hooks and loads extensions from `.hg/hgrc`, takes config from the folder `.hg/sharedpath` names (with
 * `shared` or `share-safe` in `.hg/requires`), reads `.hg/hgrc-not-shared`, and appends to revlogs in place
 * (through a link). What `hg init` and `hg clone` write — `requires` without `shared`, an hgrc holding only
 * `[paths]` — stays; anything else moves the whole `.hg` to the quarantine.
 */
import { lstatSync } from "node:fs";
import { bytesOf, readInsideSync } from "./descriptors.js";
import { gitFolderLinks } from "./sweep-links.js";

/** The largest hgrc or requires file read (hg writes a few lines). */
const MAX_READ = 64 * 1024;

/** Why a `.hg` folder (raw path) a command made must not stay; undefined when it holds only what hg writes. */
export function unsafeHgRepository(hgDir: string): string | undefined {
  for (const name of ["sharedpath", "hgrc-not-shared"]) {
    if (lstatSync(bytesOf(`${hgDir}/${name}`), { throwIfNoEntry: false }))
      return `has ${name} (Mercurial would read config from elsewhere)`;
  }
  const requires = readOrMissing(`${hgDir}/requires`);
  if (requires === "unreadable") return "has a requires file toolgate cannot read";
  if (requires?.split("\n").some((line) => ["shared", "relshared"].includes(line.trim())))
    return "is a share (Mercurial would read config from the repository it shares)";
  const hgrc = readOrMissing(`${hgDir}/hgrc`);
  if (hgrc === "unreadable") return "has an hgrc toolgate cannot read";
  if (hgrc !== undefined) {
    const why = hgrcWhy(hgrc);
    if (why) return why;
  }
  for (const name of ["hgrc", "requires"]) {
    if ((lstatSync(bytesOf(`${hgDir}/${name}`), { throwIfNoEntry: false })?.nlink ?? 0) > 1)
      return `has a ${name} with another hard link`;
  }
  const unread: string[] = [];
  const links = gitFolderLinks(hgDir, unread);
  if (unread.length > 0) return `could not be looked through for links (${unread[0]})`;
  if (links.length > 0) return "holds a link (Mercurial on the host would write through it)";
  return undefined;
}

/** Anything in an hgrc but `[paths]` entries (what `hg clone` writes) and comments runs or redirects. */
function hgrcWhy(text: string): string | undefined {
  // Allowed only by exact shape, line by line (Mercurial's own reader opens a section at `[name]` whatever
  // follows the `]`, and splits lines at a lone CR too: red team 2026-11-27f, H2). What `hg init`/`hg clone`
  // write is comments at the line's start, headers alone on their line, and `name = url` lines under `[paths]`.
  let section = "";
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    if (line.startsWith("%")) return `has ${line.split(/\s/)[0]} in its hgrc`;
    if (line.startsWith("[")) {
      const header = /^\[([A-Za-z0-9_.-]+)\]$/.exec(line);
      if (!header) return "has a section header toolgate does not read in its hgrc";
      section = header[1]!;
      continue;
    }
    if (section !== "paths")
      return `sets ${section === "" ? "a value outside any section" : `[${section}]`} in its hgrc`;
    if (!/^[A-Za-z0-9_.:@-]+[ \t]*=[^\r\n]*$/.test(line))
      return "has a line toolgate does not read in its hgrc";
  }
  return undefined;
}

function readOrMissing(path: string): string | "unreadable" | undefined {
  try {
    return readInsideSync(path, MAX_READ).toString("latin1");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? undefined : "unreadable";
  }
}
