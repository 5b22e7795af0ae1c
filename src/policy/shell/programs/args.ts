/**
 * @module policy/shell/programs/args
 * Reads one command's words against its program's knowledge: options (GNU clusters, `--long=value`, unique
 * long prefixes, or whole-word options like `find`'s), operands, `NAME=VALUE` operands and sub-commands,
 * and reports every argument that writes, deletes, executes or reaches the network. Script text (a `sed`
 * script, an `awk` program) is handed to the program's script parser.
 */
import { substitutionsIn } from "../text-scan.js";
import type { CommandSpec, EffectSpec, OptionSpec, ProgramSpec } from "./spec.js";

/** One argument that takes a command beyond what a prefix rule vouches for. */
export interface Finding {
  readonly effect: EffectSpec["effect"];
  /** Says what and why: `find -delete deletes files`. */
  readonly reason: string;
  /** Index of the word that carries it (a prefix rule covering this word vouches for it). */
  readonly word: number;
  /** Shell text the program would run (`sed 'e CMD'`, `awk 'BEGIN{system("CMD")}'`), for deny rules. */
  readonly runs?: string;
}

/** Reads a program's script text and reports what it does. */
export type ScriptParser = (
  script: string,
) => { effect: EffectSpec["effect"]; reason: string; runs?: string }[];

/** Writes to these are not writes. */
const SINKS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "-"]);
const MAX_SHOWN = 60;

const shown = (value: string) => (value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value);

interface Context {
  program: string;
  findings: Finding[];
  scripts: { text: string; word: number }[];
  /** A script was named by an option (text or file), so no operand is script text. */
  scriptGiven: boolean;
  parser?: ScriptParser;
}

function add(ctx: Context, label: string, spec: EffectSpec, word: number, value?: string): void {
  if (spec.effect === "write" && value !== undefined && SINKS.has(value)) return;
  const suffix = value === undefined || value === "" ? "" : ` (${shown(value)})`;
  // Command substitutions in a value the program evaluates (`printf -v 'a[$(cmd)]'`): deny rules see them.
  const substituted = spec.effect === "exec" && value !== undefined ? substitutionsIn(value) : [];
  ctx.findings.push({
    effect: spec.effect,
    reason: `${ctx.program} ${label} ${spec.reason}${suffix}`,
    word,
    ...(substituted.length > 0 ? { runs: substituted.join("\n") } : {}),
  });
}

/** The effect of an option with this value: by exact value, then by pattern, else the option's own. */
function effectFor(opt: OptionSpec, value: string | undefined): EffectSpec | undefined {
  if (value === undefined) return opt.effect;
  return opt.byValue?.get(value) ?? opt.byPattern?.find((p) => p.pattern.test(value))?.effect ?? opt.effect;
}

/** Records an option's use; `value` undefined when it takes none. */
function useOption(ctx: Context, name: string, opt: OptionSpec, word: number, value?: string): void {
  const effect = effectFor(opt, value);
  if (effect) add(ctx, name, effect, word, value);
  if (opt.script) ctx.scriptGiven = true;
  if (opt.script === "text" && value !== undefined) ctx.scripts.push({ text: value, word });
}

/**
 * An option whose value names long options (`-W exec FILE`, `-Wsprintf=9,exec`): each name is read as the
 * long option it abbreviates, with its `=VALUE`, or the next word when it needs one. Returns the last word
 * used.
 */
function useLongOptionNames(
  ctx: Context,
  spec: CommandSpec,
  words: readonly string[],
  at: number,
  label: string,
  names: string,
  next: number,
): number {
  let last = next;
  for (const part of names.split(",")) {
    const eq = part.indexOf("=");
    const name = eq < 0 ? part : part.slice(0, eq);
    const found = name === "" ? undefined : longOption(spec, `--${name}`, 3);
    if (!found) continue;
    const [full, opt] = found;
    let value: string | undefined = eq < 0 ? undefined : part.slice(eq + 1);
    if (value === undefined && opt.value === "required") value = words[++last] ?? "";
    useOption(ctx, `${label}${full.slice(2)}`, opt, at, value);
  }
  return last;
}

/** A long option (and its full name) by exact name, or by a GNU abbreviation of one that has an effect. */
function longOption(spec: CommandSpec, name: string, shortest = 3): [string, OptionSpec] | undefined {
  const exact = spec.options.get(name);
  if (exact || name.length < shortest) return exact && [name, exact];
  // getopt accepts any unambiguous prefix: `--out=f` is `--output=f`. Count it as the option with the effect.
  return spec.longEffects.find(([full]) => full.startsWith(name));
}

/**
 * Reads `words[start..]` against `spec`; returns the operands (with their word indexes). Records findings.
 */
function readArgs(
  ctx: Context,
  spec: CommandSpec,
  words: readonly string[],
  start: number,
  label: string,
  untilOperand: boolean,
) {
  const operands: { value: string; word: number }[] = [];
  const used = new Set<string>();
  let i = start;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (w === "--" && spec.style === "gnu") {
      for (i++; i < words.length; i++) {
        operands.push({ value: words[i]!, word: i });
        if (untilOperand) break;
      }
      break;
    }
    if (spec.style === "words") {
      const opt = spec.options.get(w);
      if (opt === undefined) {
        if (!w.startsWith("-") || w === "-") operands.push({ value: w, word: i });
        continue;
      }
      used.add(w);
      const at = i;
      let value: string | undefined;
      if (opt.value === "command") {
        const inner: string[] = [];
        for (i++; i < words.length && words[i] !== ";" && words[i] !== "+"; i++) inner.push(words[i]!);
        value = inner.join(" ");
      } else if (typeof opt.value === "number") {
        value = words[i + 1];
        i += opt.value;
      } else if (opt.value === "required") value = words[++i];
      useOption(ctx, `${label}${w}`, opt, at, value);
      continue;
    }
    const oldStyle = spec.oldStyle && i === start && !w.startsWith("-") && /^[A-Za-z]+$/.test(w);
    if (w.startsWith("--") && w.length > 2) {
      const eq = w.indexOf("=");
      const name = eq < 0 ? w : w.slice(0, eq);
      const found = longOption(spec, name);
      if (!found) continue;
      const [full, opt] = found;
      for (const n of opt.names) used.add(n);
      const at = i;
      let value: string | undefined = eq < 0 ? undefined : w.slice(eq + 1);
      if (value === undefined && opt.value === "required") value = words[++i];
      if (value === undefined && opt.value !== "none" && opt.value !== "optional") value = "";
      useOption(ctx, `${label}${full}`, opt, at, value);
    } else if ((w.startsWith("-") && w.length > 1) || oldStyle) {
      i = readCluster(ctx, spec, words, i, oldStyle, label, used);
    } else {
      operands.push({ value: w, word: i });
      if (untilOperand) break;
    }
  }
  return { operands, used };
}

/** A cluster of short options (`-nE`, `-ofile`, old-style `xzf a.tgz`); returns the last word it used. */
function readCluster(
  ctx: Context,
  spec: CommandSpec,
  words: readonly string[],
  at: number,
  oldStyle: boolean,
  label: string,
  used: Set<string>,
): number {
  const w = words[at]!;
  let next = at;
  for (let j = oldStyle ? 0 : 1; j < w.length; j++) {
    const name = `-${w[j]}`;
    const opt = spec.options.get(name);
    if (!opt) continue;
    for (const n of opt.names) used.add(n);
    if (opt.value === "none") {
      useOption(ctx, `${label}${name}`, opt, at);
      continue;
    }
    const rest = w.slice(j + 1);
    let value: string;
    if (oldStyle) value = words[++next] ?? "";
    else if (rest !== "" || opt.value === "optional") value = rest;
    else value = words[++next] ?? "";
    if (opt.longOption) next = useLongOptionNames(ctx, spec, words, at, `${label}${name} `, value, next);
    else
      useOption(
        ctx,
        `${label}${name}`,
        opt,
        at,
        opt.value === "optional" && value === "" ? undefined : value,
      );
    if (!oldStyle) break;
  }
  return next;
}

/** Reads one command level (the program or a sub-command) and descends into a sub-command. */
function readCommand(
  ctx: Context,
  spec: CommandSpec,
  words: readonly string[],
  start: number,
  label: string,
): void {
  // Before a sub-command, only the program's own options: the sub-command reads the rest.
  const hasSubs = spec.subcommands.size > 0 || spec.otherSubcommands !== undefined;
  let { operands, used } = readArgs(ctx, spec, words, start, label, hasSubs);
  const first = operands[0];
  if (hasSubs && first !== undefined) {
    const sub = spec.subcommands.get(first.value);
    if (sub !== undefined) {
      if (sub.effect) add(ctx, `${label}${first.value}`, sub.effect, first.word);
      readCommand(ctx, sub, words, first.word + 1, `${label}${first.value} `);
      return;
    }
    if (spec.otherSubcommands) {
      add(ctx, `${label}${first.value}`, spec.otherSubcommands, first.word);
      return;
    }
    // Not a sub-command (`git config user.name x`): the words are this level's operands after all.
    const more = readArgs(ctx, spec, words, first.word + 1, label, false);
    operands = [first, ...more.operands];
    used = new Set([...used, ...more.used]);
  }
  let rest = operands;
  if (spec.scriptOperand && !ctx.scriptGiven && rest[0] !== undefined) {
    ctx.scripts.push({ text: rest[0].value, word: rest[0].word });
    rest = rest.slice(1);
  }
  for (const op of spec.operands) {
    if ([...op.unlessAny].some((o) => used.has(o)) || rest.length < op.min) continue;
    const hit = op.at === "all" ? rest : op.at === "last" ? rest.slice(-1) : rest.slice(op.at - 1, op.at);
    for (const h of hit)
      if (op.matching === undefined || op.matching.test(h.value))
        add(ctx, `${label}${op.label}`, op, h.word, h.value);
  }
  for (const r of rest) {
    const eq = r.value.indexOf("=");
    const assignment = eq > 0 ? spec.assignments.get(r.value.slice(0, eq)) : undefined;
    if (assignment) add(ctx, `${label}${r.value.slice(0, eq)}=`, assignment, r.word, r.value.slice(eq + 1));
  }
}

/**
 * What a command's arguments make its program do (the program is `words[0]`, already a bare name).
 * @example findingsFor(sortSpec, ["sort", "-o", "out.txt"]) // [{ effect: "write", reason: "sort -o writes its output to a file (out.txt)", word: 1 }]
 */
export function findingsFor(spec: ProgramSpec, words: readonly string[], parser?: ScriptParser): Finding[] {
  const ctx: Context = {
    program: words[0]!,
    findings: [],
    scripts: [],
    scriptGiven: false,
    ...(parser ? { parser } : {}),
  };
  // A program-level effect (npx, xargs) is carried by the program's name: any rule naming it vouches.
  if (spec.effect)
    ctx.findings.push({
      effect: spec.effect.effect,
      reason: `${ctx.program} ${spec.effect.reason}`,
      word: 0,
    });
  readCommand(ctx, spec, words, 1, "");
  if (parser) {
    for (const script of ctx.scripts) {
      for (const f of parser(script.text)) {
        ctx.findings.push({
          effect: f.effect,
          reason: `${ctx.program} ${f.reason}`,
          word: script.word,
          ...(f.runs !== undefined ? { runs: f.runs } : {}),
        });
      }
    }
  }
  return ctx.findings;
}
