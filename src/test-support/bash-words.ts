/**
 * @module test-support/bash-words
 * The oracle for the expansion tests: real bash (a non-interactive bash, its default options, `LC_ALL=C.UTF-8`) says
 * which words each source word becomes in a given folder, and what command lines print. One bash process per
 * batch: each word is run as `set -- WORD; printf '%s\0' "$#" "$@"`, so zero words and one empty word differ.
 */
import { execFileSync } from "node:child_process";

/** Options of {@link bashWords}. */
export interface BashWordsOptions {
  /** Folder bash runs in (globs expand there). */
  cwd: string;
  /** `set -f` first: brace expansion only. */
  noGlob?: boolean;
  /** Shell text run first, its output not returned (a function definition). */
  prelude?: string;
}

const SEPARATOR = "\u0001";

/**
 * The words bash makes of each source word (each must be a complete, valid bash word).
 * @example bashWords(["x{a,b}"], { cwd: "/tmp" }) // [["xa", "xb"]]
 */
export function bashWords(words: readonly string[], options: BashWordsOptions): string[][] {
  const outputs = bashOutputs(
    words.map((w) => `set -- ${w}; printf '%s\\0' "$#" "$@"`),
    options,
  );
  return outputs.map((chunk) => {
    const [count, ...rest] = chunk.split("\0").slice(0, -1);
    if (Number(count) !== rest.length) throw new Error(`bash word count ${count} for ${rest.length} words`);
    return rest;
  });
}

/**
 * What each command line prints on standard output, run one after the other by one bash in `cwd`.
 * @example bashOutputs(["printf '%s\\0' *.md"], { cwd }) // ["a.md\0b.md\0"]
 */
export function bashOutputs(commands: readonly string[], options: BashWordsOptions): string[] {
  const lines = commands.map((c) => `${c}\nbuiltin printf '\\001'`);
  const script = `${options.noGlob ? "set -f\n" : ""}${options.prelude ?? ""}\n${lines.join("\n")}\n`;
  // On standard input, not `-c`: a batch can be larger than one argument may be. Non-interactive either way.
  const out = execFileSync("bash", [], {
    input: script,
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C.UTF-8" },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const chunks = out.split(SEPARATOR).slice(0, -1);
  if (chunks.length !== commands.length)
    throw new Error(`bash answered ${chunks.length} of ${commands.length} commands`);
  return chunks;
}
