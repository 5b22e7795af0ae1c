/**
 * @module policy/shell/programs
 * Program knowledge: what the options, operands, sub-commands and scripts of common programs do beyond
 * their plain role (write, delete, execute, reach the network). One data file per program under `data/`,
 * validated and compiled into a map once, when this module loads; `programFindings` looks a command up.
 */

import { type Finding, findingsFor, type ScriptParser } from "./args.js";
import { parseAwkProgram } from "./awk.js";
import awk from "./data/awk.json" with { type: "json" };
import cp from "./data/cp.json" with { type: "json" };
import date from "./data/date.json" with { type: "json" };
import dd from "./data/dd.json" with { type: "json" };
import env from "./data/env.json" with { type: "json" };
import find from "./data/find.json" with { type: "json" };
import getopts from "./data/getopts.json" with { type: "json" };
import git from "./data/git.json" with { type: "json" };
import grep from "./data/grep.json" with { type: "json" };
import less from "./data/less.json" with { type: "json" };
import letData from "./data/let.json" with { type: "json" };
import make from "./data/make.json" with { type: "json" };
import mapfile from "./data/mapfile.json" with { type: "json" };
import node from "./data/node.json" with { type: "json" };
import npm from "./data/npm.json" with { type: "json" };
import npx from "./data/npx.json" with { type: "json" };
import perl from "./data/perl.json" with { type: "json" };
import pnpm from "./data/pnpm.json" with { type: "json" };
import printf from "./data/printf.json" with { type: "json" };
import python from "./data/python.json" with { type: "json" };
import read from "./data/read.json" with { type: "json" };
import rg from "./data/rg.json" with { type: "json" };
import sed from "./data/sed.json" with { type: "json" };
import sort from "./data/sort.json" with { type: "json" };
import tar from "./data/tar.json" with { type: "json" };
import tee from "./data/tee.json" with { type: "json" };
import test from "./data/test.json" with { type: "json" };
import tree from "./data/tree.json" with { type: "json" };
import uniq from "./data/uniq.json" with { type: "json" };
import wait from "./data/wait.json" with { type: "json" };
import xargs from "./data/xargs.json" with { type: "json" };
import xxd from "./data/xxd.json" with { type: "json" };
import { parseSedScript } from "./sed.js";
import { compileProgram, type ProgramSpec } from "./spec.js";

export type { Finding } from "./args.js";
export type { Effect, ProgramSpec } from "./spec.js";

const DATA: Record<string, unknown> = {
  awk,
  getopts,
  let: letData,
  mapfile,
  printf,
  read,
  test,
  wait,
  cp,
  date,
  dd,
  env,
  find,
  git,
  grep,
  less,
  make,
  node,
  npm,
  npx,
  perl,
  pnpm,
  python,
  rg,
  sed,
  sort,
  tar,
  tee,
  tree,
  uniq,
  xargs,
  xxd,
};

/** Script parsers a data file may name in `script`. */
const PARSERS: Readonly<Record<string, ScriptParser>> = { sed: parseSedScript, awk: parseAwkProgram };

/**
 * Compiles data entries into a lookup by program name.
 * @throws Error naming the file and key of the first invalid entry, or a program listed twice.
 */
export function compilePrograms(data: Record<string, unknown>): ReadonlyMap<string, ProgramSpec> {
  const byName = new Map<string, ProgramSpec>();
  for (const [file, entry] of Object.entries(data)) {
    const spec = compileProgram(entry, `${file}.json`);
    if (spec.script !== undefined && !PARSERS[spec.script])
      throw new Error(`program knowledge ${file}.json.script: no script parser named "${spec.script}"`);
    for (const name of spec.names) {
      const other = byName.get(name);
      if (other) throw new Error(`program knowledge ${file}.json.names: ${name} is also in ${other.file}`);
      byName.set(name, spec);
    }
  }
  return byName;
}

let compiled: ReadonlyMap<string, ProgramSpec> | undefined;

/**
 * Every known program, compiled on first use (~3 ms: a gate that never analyses a command, as
 * `toolgate call read_file`, does not pay it).
 */
export function programs(): ReadonlyMap<string, ProgramSpec> {
  compiled ??= compilePrograms(DATA);
  return compiled;
}

/**
 * What a command's arguments make its program do; empty for unknown programs and plain uses.
 * @param words the command's words, `words[0]` a bare program name (no folder).
 * @example programFindings(["find", ".", "-delete"]) // [{ effect: "delete", reason: "find -delete deletes files", word: 2 }]
 */
export function programFindings(words: readonly string[]): Finding[] {
  const spec = programs().get(words[0] ?? "");
  if (spec === undefined) return [];
  return findingsFor(spec, words, spec.script ? PARSERS[spec.script] : undefined);
}
