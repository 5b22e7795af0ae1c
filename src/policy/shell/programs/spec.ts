/**
 * @module policy/shell/programs/spec
 * The shape of a program-knowledge data file (`programs/data/*.json`) and its loader: validates every entry
 * at load (unknown keys, effects and value kinds are errors naming the file and key) and compiles it into
 * maps, so the analysis looks options up instead of scanning lists.
 */

/** What an argument makes a program do beyond its plain role. */
export type Effect = "write" | "delete" | "exec" | "network";
export const EFFECTS: readonly Effect[] = ["write", "delete", "exec", "network"];

/** How an option takes its value: none, the next word (or `=`/attached), attached only, words up to `;`/`+`, or N words. */
export type ValueKind = "none" | "required" | "optional" | "command" | number;

/** A program's effect with the phrase that explains it ("deletes files"). */
export interface EffectSpec {
  readonly effect: Effect;
  readonly reason: string;
}

/** One option, under every name it has (`-o`, `--output`). */
export interface OptionSpec {
  readonly names: readonly string[];
  readonly value: ValueKind;
  readonly effect?: EffectSpec;
  /**
   * `text`: the value is script text for the program's script parser (`sed -e`, `awk --source`); `file`: the
   * value names a script file (`sed -f`), so no operand is script text.
   */
  readonly script?: "text" | "file";
  /** Effects that depend on the value (`awk -i inplace`); a value not listed gets `effect`. */
  readonly byValue?: ReadonlyMap<string, EffectSpec>;
  /**
   * Effects for values matching a pattern (`printf -v 'a[$(cmd)]'`: a subscript bash evaluates), checked
   * after `byValue`; a value matching none gets `effect`.
   */
  readonly byPattern?: readonly { readonly pattern: RegExp; readonly effect: EffectSpec }[];
  /**
   * The value names one of the command's own long options, GNU-abbreviated (`awk -W exec FILE` is
   * `--exec FILE`, `-We` too); several may be joined with commas (mawk's `-Wsprintf=9,exec`).
   */
  readonly longOption?: boolean;
}

/** Operands (non-option words) with an effect: by position (1-based), the last one, or all. */
export interface OperandSpec extends EffectSpec {
  readonly at: number | "last" | "all";
  /** The operand's name in reasons (`OUTPUT`). */
  readonly label: string;
  /** Only when there are at least this many operands (`cp A B`: the last of two or more). */
  readonly min: number;
  /** Options that make the operands harmless (`git branch --list PATTERN`). */
  readonly unlessAny: ReadonlySet<string>;
  /** Only operands matching this (`read 'a[$(cmd)]'`: a variable name with a subscript). */
  readonly matching?: RegExp;
}

/** Options, operands and sub-commands of a program or of one of its sub-commands. */
export interface CommandSpec {
  /** `words`: every option is a whole word (`find -delete`); `gnu`: clusters, `--long=value`. */
  readonly style: "gnu" | "words";
  /** By exact name (`-o`, `--output`, `-delete`). */
  readonly options: ReadonlyMap<string, OptionSpec>;
  /** Long options with an effect, for GNU's unique-prefix abbreviations (`--out` = `--output`). */
  readonly longEffects: readonly [string, OptionSpec][];
  readonly operands: readonly OperandSpec[];
  /** `NAME=VALUE` operands with an effect (`dd of=FILE`), by NAME. */
  readonly assignments: ReadonlyMap<string, EffectSpec>;
  /** The sub-command itself has an effect (`npm test`, `git push`). */
  readonly effect?: EffectSpec;
  readonly subcommands: ReadonlyMap<string, CommandSpec>;
  /** Effect of a sub-command not listed (`yarn NAME` runs the package script NAME). */
  readonly otherSubcommands?: EffectSpec;
  /** The first operand is script text when no option gave one (`sed 'p'`, `awk '{...}'`). */
  readonly scriptOperand: boolean;
  /** A leading word without `-` is a cluster of short options (`tar xzf a.tgz`). */
  readonly oldStyle: boolean;
}

/** One program's knowledge, compiled. */
export interface ProgramSpec extends CommandSpec {
  readonly names: readonly string[];
  readonly about: string;
  /** Which script parser reads its script (`sed`, `awk`). */
  readonly script?: string;
  /** Source file, for messages and the generated docs. */
  readonly file: string;
}

const PROGRAM_KEYS = new Set(["names", "about", "script", "note"]);
const COMMAND_KEYS = new Set([
  "style",
  "options",
  "operands",
  "assignments",
  "effect",
  "reason",
  "subcommands",
  "otherSubcommands",
  "scriptOperand",
  "oldStyle",
  "note",
]);
const OPTION_KEYS = new Set(["value", "effect", "reason", "script", "byValue", "byPattern", "longOption"]);
const OPERAND_KEYS = new Set(["at", "label", "min", "effect", "reason", "unlessAny", "matching"]);
const VALUE_KINDS = new Set(["none", "required", "optional", "command"]);

type Raw = Record<string, unknown>;

/** Fails the load with the file and key at fault. */
function fail(where: string, message: string): never {
  throw new Error(`program knowledge ${where}: ${message}`);
}

function object(value: unknown, where: string): Raw {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(where, "must be an object");
  return value as Raw;
}

function keys(raw: Raw, allowed: ReadonlySet<string>, where: string): void {
  for (const key of Object.keys(raw)) if (!allowed.has(key)) fail(where, `unknown key "${key}"`);
}

function text(value: unknown, where: string): string {
  if (typeof value !== "string" || value.trim() === "") fail(where, "must be a non-empty string");
  return value;
}

function strings(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && v !== ""))
    fail(where, "must be an array of non-empty strings");
  return value as string[];
}

/** `effect` + `reason` on one object, both or neither. */
function effectOf(raw: Raw, where: string): EffectSpec | undefined {
  if (raw.effect === undefined && raw.reason === undefined) return undefined;
  const effect = raw.effect as Effect;
  if (!EFFECTS.includes(effect)) fail(`${where}.effect`, `must be one of ${EFFECTS.join(", ")}`);
  return { effect, reason: text(raw.reason, `${where}.reason`) };
}

function option(key: string, raw: Raw, where: string): OptionSpec {
  keys(raw, OPTION_KEYS, where);
  const names = key.split(",").map((n) => n.trim());
  if (!names.every((n) => /^[-+]{1,2}[^\s=]+$/.test(n)))
    fail(where, "names must start with - (comma-separated)");
  const value = (raw.value ?? "none") as ValueKind;
  const valid = VALUE_KINDS.has(value as string) || (Number.isInteger(value) && (value as number) > 0);
  if (!valid) fail(`${where}.value`, "must be none, required, optional, command or a word count");
  let byValue: Map<string, EffectSpec> | undefined;
  if (raw.byValue !== undefined) {
    byValue = new Map();
    for (const [v, spec] of Object.entries(object(raw.byValue, `${where}.byValue`))) {
      const at = `${where}.byValue.${v}`;
      const inner = object(spec, at);
      keys(inner, new Set(["effect", "reason"]), at);
      byValue.set(v, effectOf(inner, at) ?? fail(at, "needs effect and reason"));
    }
  }
  let byPattern: { pattern: RegExp; effect: EffectSpec }[] | undefined;
  if (raw.byPattern !== undefined) {
    byPattern = [];
    for (const [source, spec] of Object.entries(object(raw.byPattern, `${where}.byPattern`))) {
      const at = `${where}.byPattern.${source}`;
      const inner = object(spec, at);
      keys(inner, new Set(["effect", "reason"]), at);
      byPattern.push({
        pattern: regex(source, at),
        effect: effectOf(inner, at) ?? fail(at, "needs effect and reason"),
      });
    }
  }
  if (raw.longOption !== undefined && raw.longOption !== true) fail(`${where}.longOption`, "must be true");
  if (raw.script !== undefined && raw.script !== "text" && raw.script !== "file")
    fail(`${where}.script`, 'must be "text" or "file"');
  const script = raw.script as OptionSpec["script"];
  const effect = effectOf(raw, where);
  return {
    names,
    value,
    ...(script ? { script } : {}),
    ...(effect ? { effect } : {}),
    ...(byValue ? { byValue } : {}),
    ...(byPattern ? { byPattern } : {}),
    ...(raw.longOption === true ? { longOption: true } : {}),
  };
}

function regex(source: string, where: string): RegExp {
  try {
    return new RegExp(source);
  } catch (error) {
    return fail(where, `not a pattern: ${(error as Error).message}`);
  }
}

function operand(raw: Raw, where: string): OperandSpec {
  keys(raw, OPERAND_KEYS, where);
  const at = raw.at;
  if (!(at === "last" || at === "all" || (Number.isInteger(at) && (at as number) > 0)))
    fail(`${where}.at`, 'must be a position (1, 2, ...), "last" or "all"');
  const effect = effectOf(raw, where) ?? fail(where, "needs effect and reason");
  return {
    ...effect,
    at: at as OperandSpec["at"],
    label: text(raw.label, `${where}.label`),
    min: typeof raw.min === "number" ? raw.min : 1,
    unlessAny: new Set(raw.unlessAny === undefined ? [] : strings(raw.unlessAny, `${where}.unlessAny`)),
    ...(raw.matching !== undefined
      ? { matching: regex(text(raw.matching, `${where}.matching`), `${where}.matching`) }
      : {}),
  };
}

/** Compiles a program or sub-command entry. */
function command(raw: Raw, where: string): CommandSpec {
  const options = new Map<string, OptionSpec>();
  for (const [key, spec] of Object.entries(object(raw.options ?? {}, `${where}.options`))) {
    const compiled = option(key, object(spec, `${where}.options["${key}"]`), `${where}.options["${key}"]`);
    for (const name of compiled.names) {
      if (options.has(name)) fail(`${where}.options`, `option ${name} is listed twice`);
      options.set(name, compiled);
    }
  }
  const assignments = new Map<string, EffectSpec>();
  for (const [name, spec] of Object.entries(object(raw.assignments ?? {}, `${where}.assignments`))) {
    const at = `${where}.assignments.${name}`;
    assignments.set(name, effectOf(object(spec, at), at) ?? fail(at, "needs effect and reason"));
  }
  const subcommands = new Map<string, CommandSpec>();
  for (const [name, spec] of Object.entries(object(raw.subcommands ?? {}, `${where}.subcommands`))) {
    const at = `${where}.subcommands.${name}`;
    const inner = object(spec, at);
    keys(inner, COMMAND_KEYS, at);
    const compiled = command(inner, at);
    for (const alias of name.split(",").map((n) => n.trim())) subcommands.set(alias, compiled);
  }
  const style = raw.style ?? "gnu";
  if (style !== "gnu" && style !== "words") fail(`${where}.style`, 'must be "gnu" or "words"');
  const other = raw.otherSubcommands;
  const otherSubcommands =
    other === undefined
      ? undefined
      : effectOf(object(other, `${where}.otherSubcommands`), `${where}.otherSubcommands`);
  const effect = effectOf(raw, where);
  return {
    style,
    options,
    longEffects: [...options].filter(([n, o]) => n.startsWith("--") && o.effect !== undefined),
    operands: ((raw.operands ?? []) as unknown[]).map((o, i) =>
      operand(object(o, `${where}.operands[${i}]`), `${where}.operands[${i}]`),
    ),
    assignments,
    subcommands,
    scriptOperand: raw.scriptOperand === true,
    oldStyle: raw.oldStyle === true,
    ...(effect ? { effect } : {}),
    ...(otherSubcommands ? { otherSubcommands } : {}),
  };
}

/**
 * Validates and compiles one data file's entry.
 * @throws Error `program knowledge sort.json.options["-o"].effect: must be one of write, delete, exec, network`
 * @example compileProgram({ names: ["tee"], about: "copies stdin to files", operands: [...] }, "tee.json")
 */
export function compileProgram(data: unknown, file: string): ProgramSpec {
  const raw = object(data, file);
  keys(raw, new Set([...PROGRAM_KEYS, ...COMMAND_KEYS]), file);
  const names = strings(raw.names, `${file}.names`);
  const script = raw.script === undefined ? undefined : text(raw.script, `${file}.script`);
  return {
    ...command(raw, file),
    names,
    about: text(raw.about, `${file}.about`),
    file,
    ...(script ? { script } : {}),
  };
}
