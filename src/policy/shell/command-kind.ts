/**
 * @module policy/shell/command-kind
 * The `command` argument kind for the policy: prepares a command by analysing it, and compiles the operators
 * a rule may use on it (`prefix`, `equals`, `oneOf`, `contains`, `glob`, `regex`). Allow and ask rules hold
 * only when every sub-command matches, and then at most `ask` for unsafe commands; deny rules hold when any
 * sub-command anywhere matches.
 */
import { resolve } from "node:path";
import safeRegex from "safe-regex2";
import type { Decision } from "../../core/index.js";
import { compileGlob } from "../../utils/index.js";
import type {
  ArgKindPlugin,
  ConditionTest,
  MatchResult,
  OperatorCompiler,
  PrepareContext,
} from "../types.js";
import { analyzeCommand, type CommandAnalysis } from "./analyze.js";

/**
 * Tests one sub-command's words: `false` when it does not match, else how many leading words the operand
 * names (and so vouches for): a prefix's length, every word for `equals`/`oneOf`, the literal words before a
 * glob's first wildcard, none for `contains` and `regex`.
 */
type WordTest = (words: readonly string[]) => false | number;

/** What a non-string command argument becomes: unanalysable, nothing to match. */
function notACommand(raw: unknown): CommandAnalysis {
  return {
    text: String(raw),
    ok: false,
    commands: [],
    places: [],
    unsafe: ["not a string"],
    pipelines: [],
    findings: [],
    scriptCommands: [],
    risk: "high",
    riskReasons: ["unanalysable command"],
  };
}

/** Why an allow cannot stand: what the analysis refused, then the findings no rule word covered. */
function askReason(analysis: CommandAnalysis, findings: readonly string[]): string {
  const refused = analysis.ok ? analysis.unsafe : ["it does not parse", ...analysis.unsafe];
  const parts = [...new Set([...findings, ...refused])];
  return `the command cannot be vouched for: ${parts.join("; ")}`;
}

/**
 * Applies a sub-command test with the rule's semantics: deny → any sub-command (those inside programs'
 * scripts too); allow/ask → every one, and a command the analysis cannot vouch for (unsafe, unparseable,
 * or carrying a program finding beyond the words the rule names) matches at most as ask, with the reason.
 */
export function matchCommand(analysis: CommandAnalysis, decision: Decision, test: WordTest): MatchResult {
  const { commands, findings, scriptCommands } = analysis;
  if (decision === "deny") return commands.some((c) => test(c) !== false);
  if (commands.length === 0) return false;
  const vouched: number[] = new Array(commands.length).fill(-1);
  for (let i = 0; i < commands.length; i++) {
    if (scriptCommands.includes(i)) continue;
    const named = test(commands[i]!);
    if (named === false) return false;
    vouched[i] = named;
  }
  let open: string[] | undefined;
  for (const f of findings) {
    if (f.word < vouched[f.command]!) continue;
    if (open === undefined) open = [f.reason];
    else open.push(f.reason);
  }
  if (analysis.ok && analysis.unsafe.length === 0 && open === undefined) return true;
  return { ask: askReason(analysis, open ?? []) };
}

function words(text: string, what: string): string[] {
  const list = text.split(/\s+/).filter(Boolean);
  if (list.length === 0) throw new Error(`${what} must not be empty`);
  return list;
}

/** Accepts a string or a non-empty array of strings. */
function stringList(operand: unknown, op: string): string[] {
  const list = typeof operand === "string" ? [operand] : operand;
  if (!Array.isArray(list) || list.length === 0 || !list.every((x) => typeof x === "string")) {
    throw new Error(`${op} expects a string or a non-empty array of strings`);
  }
  return list as string[];
}

const startsWith = (subject: readonly string[], prefix: readonly string[]) =>
  prefix.length <= subject.length && prefix.every((w, i) => subject[i] === w);
const sameWords = (a: readonly string[], b: readonly string[]) => a.length === b.length && startsWith(a, b);

function compile(build: (operand: unknown) => WordTest): OperatorCompiler<CommandAnalysis> {
  return (operand) => {
    const test = build(operand);
    const condition: ConditionTest<CommandAnalysis> = (value, decision) =>
      matchCommand(value, decision, test);
    return condition;
  };
}

/** The command kind's operators, by policy-file name. */
export const COMMAND_OPERATORS: Readonly<Record<string, OperatorCompiler<CommandAnalysis>>> = {
  prefix: compile((operand) => {
    const prefixes = stringList(operand, "prefix").map((p) => words(p, "prefix"));
    return (subject) => {
      // The longest matching prefix: it names the most words.
      let best: false | number = false;
      for (const p of prefixes)
        if (startsWith(subject, p) && (best === false || p.length > best)) best = p.length;
      return best;
    };
  }),
  equals: compile((operand) => {
    if (typeof operand !== "string") throw new Error("equals expects a string");
    const expected = words(operand, "equals");
    return (subject) => sameWords(subject, expected) && subject.length;
  }),
  oneOf: compile((operand) => {
    if (!Array.isArray(operand)) throw new Error("oneOf expects an array of strings");
    const options = stringList(operand, "oneOf").map((o) => words(o, "oneOf"));
    return (subject) => options.some((o) => sameWords(subject, o)) && subject.length;
  }),
  contains: compile((operand) => {
    const wanted = new Set(stringList(operand, "contains"));
    return (subject) => subject.some((w) => wanted.has(w)) && 0;
  }),
  glob: compile((operand) => {
    const patterns = stringList(operand, "glob");
    // A command line is not a path: `*` crosses `/`.
    const isMatch = compileGlob(patterns, { crossSlash: true });
    // Words before a pattern's first wildcard are named literally; the fewest over all patterns counts.
    const literal = Math.min(
      ...patterns
        .map((p) => p.split(/\s+/).findIndex((w) => /[*?[\]{}!()+@]/.test(w)))
        .map((n) => (n < 0 ? Number.POSITIVE_INFINITY : n)),
    );
    return (subject) => isMatch(subject.join(" ")) && Math.min(literal, subject.length);
  }),
  regex: compile((operand) => {
    if (typeof operand !== "string") throw new Error("regex expects a string");
    let re: RegExp;
    try {
      re = new RegExp(operand);
    } catch (error) {
      throw new Error(`invalid regex: ${(error as Error).message}`);
    }
    if (!safeRegex(re)) throw new Error(`regex may take exponential time: ${operand}`);
    return (subject) => re.test(subject.join(" ")) && 0;
  }),
};

/**
 * Index keys (see `ArgKindPlugin.operandKeys`): `0:WORD` for a sub-command whose first word is WORD (what
 * `prefix`, `equals` and `oneOf` require), `w:WORD` for one that has the word WORD anywhere (`contains`).
 * `glob` and `regex` give none: they match the joined text, where a quoted word may hold a space.
 */
export function commandOperandKeys(operator: string, operand: unknown): readonly string[] | undefined {
  // Called only for operands the operator compiled, so their shapes are valid.
  if (operator === "prefix" || operator === "oneOf" || operator === "equals") {
    const texts = typeof operand === "string" ? [operand] : (operand as string[]);
    return [...new Set(texts.map((t) => `0:${t.split(/\s+/).filter(Boolean)[0]}`))];
  }
  if (operator === "contains") {
    const texts = typeof operand === "string" ? [operand] : (operand as string[]);
    return [...new Set(texts.map((t) => `w:${t}`))];
  }
  return undefined;
}

function keysOf(words: readonly string[], out: string[]): void {
  if (words.length > 0) out.push(`0:${words[0]}`);
  for (const w of words) out.push(`w:${w}`);
}

/**
 * The keys a condition needs to share with this value to hold (mirrors `matchCommand`): for deny, any
 * sub-command's; for allow and ask, every sub-command outside programs' scripts must match, so the first
 * such sub-command's keys are enough. No sub-command: nothing can match. Only script sub-commands: no
 * promise (the words are not tested then).
 */
export function commandValueKeys(
  analysis: CommandAnalysis,
  decision: Decision,
): readonly string[] | undefined {
  const { commands, scriptCommands } = analysis;
  const out: string[] = [];
  if (decision === "deny") {
    for (const words of commands) keysOf(words, out);
    return out;
  }
  if (commands.length === 0) return out;
  for (let i = 0; i < commands.length; i++) {
    if (scriptCommands.includes(i)) continue;
    keysOf(commands[i]!, out);
    return out;
  }
  return undefined;
}

/**
 * The folder a command runs in: the call's `cwd` against the first root, else the first root; undefined
 * without roots. A `cwd` that does not exist is kept (its nearest repository is still the one git uses).
 */
export function commandFolder(context: PrepareContext): string | undefined {
  const root = context.roots[0];
  if (root === undefined) return undefined;
  const cwd = context.args["cwd"];
  return typeof cwd === "string" && cwd !== "" ? resolve(root, cwd) : root;
}

/** How the `command` kind reads the workspace. */
export interface CommandKindOptions {
  /**
   * Paths globs do not match although they exist: the gate passes the sandbox's placeholder folders, so a
   * glob names the same files whether or not a command ran a moment ago.
   */
  hidden?: (path: string) => boolean;
}

/**
 * The `command` argument kind: `prepare` analyses the command (the WASM parser loads once, on first use),
 * expanding its globs in the folder it runs in; `checkedForm` is the command with those expansions written
 * out, which the call then runs.
 * @example
 * const kind = createCommandKind();
 * const test = kind.operators.prefix!(["git status", "ls"]);
 * test(await kind.prepare("git status && ls -la", ctx), "allow"); // true
 * test(await kind.prepare("ls > ~/.bashrc", ctx), "allow");       // "ask"
 */
export function createCommandKind(options: CommandKindOptions = {}): ArgKindPlugin<CommandAnalysis> {
  const hidden = options.hidden ? { hidden: options.hidden } : {};
  return {
    kind: "command",
    async prepare(raw, context) {
      if (typeof raw !== "string") return notACommand(raw);
      const cwd = commandFolder(context);
      try {
        return await analyzeCommand(raw, {
          ...(cwd !== undefined ? { cwd } : {}),
          roots: context.roots,
          ...hidden,
        });
      } catch {
        // A parser that cannot load must not let anything through: unanalysable.
        return { ...notACommand(raw), unsafe: ["parser unavailable"] };
      }
    },
    operators: COMMAND_OPERATORS,
    checkedForm: (analysis) => analysis.expanded,
    operandKeys: commandOperandKeys,
    valueKeys: commandValueKeys,
    // Program findings do not block a default allow: it trusts every program's plain words (`rm -rf x`
    // too); only what the analysis cannot read is asked about. Findings cap allow *rules*.
    defaultAllowBlocker(analysis) {
      if (analysis.ok && analysis.unsafe.length === 0) return undefined;
      const reasons = [...new Set(analysis.ok ? analysis.unsafe : ["it does not parse", ...analysis.unsafe])];
      return `the command cannot be vouched for (${reasons.join(", ")})`;
    },
  };
}
