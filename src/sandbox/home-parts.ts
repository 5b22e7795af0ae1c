/**
 * @module sandbox/home-parts
 * Which parts of a visible toolchain folder a command sees (home-visible.json's `show` patterns): only what
 * the patterns name, so whatever else lies there — a tool's configuration, a token file nobody listed — stays
 * hidden whatever it is called (fail closed). Patterns are relative to the folder; `*` matches within one name
 * and never a name of `neverShown` (`etc`) or a secret name; a pattern ending in `/` names folders only (a link
 * to a folder counts: the survey binds what it leads to, when that stays inside the toolchain's folder).
 */
import { readdirSync, statSync } from "node:fs";
import { bytesOf } from "./descriptors.js";
import { NEVER_SHOWN } from "./home.js";

/**
 * The existing paths (raw, absolute) under `root` (raw) that `patterns` name, each once.
 * @param secretName whether a name is a secret's (a `*` never matches it).
 * @example shownParts("/home/u/.nvm", ["nvm.sh", "versions/*\/*\/*\/"], () => false) // ["/home/u/.nvm/nvm.sh", "/home/u/.nvm/versions/node/v20.0.0/bin", …]
 */
export function shownParts(
  root: string,
  patterns: readonly string[],
  secretName: (name: string) => boolean,
): string[] {
  const out = new Set<string>();
  for (const pattern of patterns) {
    const foldersOnly = pattern.endsWith("/");
    let at = [root];
    for (const segment of pattern.replace(/\/$/, "").split("/")) {
      if (!segment.includes("*")) {
        at = at.map((folder) => `${folder}/${segment}`);
        continue;
      }
      const name = globOf(segment);
      at = at.flatMap((folder) =>
        namesIn(folder)
          .filter((n) => name.test(n) && !NEVER_SHOWN.has(n) && !secretName(n))
          .map((n) => `${folder}/${n}`),
      );
    }
    for (const path of at) {
      const kind = kindThrough(path);
      if (kind === "missing" || (foldersOnly && kind !== "dir")) continue;
      out.add(path);
    }
  }
  return [...out];
}

/** One name's glob (`*` within the name) as a regular expression over raw names. */
function globOf(segment: string): RegExp {
  return new RegExp(`^${segment.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
}

/** The names in a raw folder (raw); none when it cannot be read. */
function namesIn(folder: string): string[] {
  try {
    return readdirSync(bytesOf(folder), { encoding: "buffer" }).map((n) => n.toString("latin1"));
  } catch {
    return [];
  }
}

/** What a raw path is once links are followed. */
function kindThrough(path: string): "dir" | "file" | "missing" {
  try {
    const stat = statSync(bytesOf(path), { throwIfNoEntry: false });
    if (stat === undefined) return "missing";
    return stat.isDirectory() ? "dir" : stat.isFile() ? "file" : "missing";
  } catch {
    return "missing";
  }
}
