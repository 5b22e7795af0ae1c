/**
 * @module sandbox/git-config
 * Reads git config files the way git does, for the few things the sandbox needs: which folder holds a
 * repository's hooks (`core.hooksPath`), which other files a config includes (`include.path`,
 * `includeIf.*.path`: they are config too), and every key of a repository a command made (checked against
 * a list of harmless keys). Unreadable or malformed text yields what could be read: callers fail closed.
 */
import { readPlainFileSync } from "../utils/index.js";
import { readInsideSync } from "./descriptors.js";

/** One `section.subsection.key = value` line; section and key lower-case, the subsection as written. */
export interface GitConfigEntry {
  section: string;
  subsection: string | undefined;
  key: string;
  /** `true` for a key written without `=`, as git reads it. */
  value: string;
}

/** The config at `path` (raw bytes as UTF-8), or undefined when it cannot be read. */
export function readGitConfig(path: string | Buffer): GitConfigEntry[] | undefined {
  let text: string;
  try {
    text = readPlainFileSync(path).toString("utf8");
  } catch {
    return undefined;
  }
  return parseGitConfig(text);
}

/**
 * The config of a repository a command made (raw absolute path), read without following a link anywhere on the
 * way: undefined when it is missing, a link, not a regular file or over 1 MiB (the caller treats it as unsafe).
 */
export function readWorkspaceGitConfig(raw: string): GitConfigEntry[] | undefined {
  try {
    return parseGitConfig(readInsideSync(raw, 1024 * 1024).toString("utf8"));
  } catch {
    return undefined;
  }
}

/**
 * Parses config text. Sections `[core]`, `[remote "origin"]` and the old `[branch.main]`; values with quotes,
 * escapes, `#`/`;` comments and backslash-newline continuations.
 * @example parseGitConfig('[core]\n\thooksPath = .githooks\n') // [{ section: "core", key: "hookspath", value: ".githooks", … }]
 */
export function parseGitConfig(text: string): GitConfigEntry[] {
  const entries: GitConfigEntry[] = [];
  let section = "";
  let subsection: string | undefined;
  // Git skips a UTF-8 byte-order mark at the very start; so must this reader, or it drops the first line.
  let at = text.startsWith("\ufeff") ? 1 : 0;
  while (at < text.length) {
    // Skip blanks, empty lines and comments.
    const char = text[at]!;
    if (char === "\n" || char === " " || char === "\t" || char === "\r") {
      at++;
      continue;
    }
    if (char === "#" || char === ";") {
      at = lineEnd(text, at);
      continue;
    }
    if (char === "[") {
      const close = text.indexOf("]", at);
      if (close < 0) return entries;
      const header = text.slice(at + 1, close);
      const quoted = /^\s*([^\s"]+)\s+"((?:[^"\\]|\\.)*)"\s*$/.exec(header);
      if (quoted) {
        section = quoted[1]!.toLowerCase();
        subsection = quoted[2]!.replace(/\\(.)/g, "$1");
      } else {
        const dot = header.indexOf(".");
        section = (dot < 0 ? header : header.slice(0, dot)).trim().toLowerCase();
        subsection =
          dot < 0
            ? undefined
            : header
                .slice(dot + 1)
                .trim()
                .toLowerCase();
      }
      at = close + 1;
      continue;
    }
    const name = /^[A-Za-z][A-Za-z0-9-]*/.exec(text.slice(at, at + 256));
    if (!name) {
      at = lineEnd(text, at);
      continue;
    }
    at += name[0].length;
    while (text[at] === " " || text[at] === "\t") at++;
    let value = "true";
    if (text[at] === "=") {
      const read = readValue(text, at + 1);
      value = read.value;
      at = read.end;
    } else at = lineEnd(text, at);
    entries.push({ section, subsection, key: name[0].toLowerCase(), value });
  }
  return entries;
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf("\n", from);
  return end < 0 ? text.length : end + 1;
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", b: "\b", '"': '"', "\\": "\\" };

/** A value after `=`: to the end of the line, quotes joined, comments cut, trailing blanks dropped. */
function readValue(text: string, from: number): { value: string; end: number } {
  let out = "";
  let quoted = false;
  let pendingSpace = "";
  let at = from;
  while (at < text.length && (text[at] === " " || text[at] === "\t")) at++;
  for (; at < text.length; at++) {
    const char = text[at]!;
    if (char === "\n" && !quoted) return { value: out, end: at + 1 };
    if (char === "\r" && text[at + 1] === "\n" && !quoted) continue;
    if (!quoted && (char === "#" || char === ";")) return { value: out, end: lineEnd(text, at) };
    if (char === "\\") {
      const next = text[at + 1];
      if (next === "\n") {
        at++;
        continue;
      }
      if (next === "\r" && text[at + 2] === "\n") {
        at += 2;
        continue;
      }
      out += pendingSpace + (next !== undefined && next in ESCAPES ? ESCAPES[next] : "");
      pendingSpace = "";
      at++;
      continue;
    }
    if (char === '"') {
      quoted = !quoted;
      continue;
    }
    if (!quoted && (char === " " || char === "\t")) {
      pendingSpace += char;
      continue;
    }
    out += pendingSpace + char;
    pendingSpace = "";
  }
  return { value: out, end: at };
}

/** The values of `section.key` (any subsection when `subsection` is `"*"`), in file order. */
export function configValues(
  entries: readonly GitConfigEntry[],
  section: string,
  key: string,
  subsection?: string,
): string[] {
  return entries
    .filter(
      (e) => e.section === section && e.key === key && (subsection === "*" || e.subsection === subsection),
    )
    .map((e) => e.value);
}
