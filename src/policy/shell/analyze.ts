/**
 * @module policy/shell/analyze
 * Parses a command with the bash grammar and turns it into the word lists of every sub-command, anywhere in
 * the tree, plus the reasons a prefix rule cannot vouch for it. Parses or refuses: only an allow-list of
 * syntax counts as safe; anything else is reported in `unsafe`, and a parse error makes it unanalysable.
 */

import type { CommandAnalysis, CommandFinding } from "./analysis.js";
import { CONTROL_CHARACTERS, UNUSUAL_CHARACTERS } from "./characters.js";
import { commandParts, isPatternName } from "./command-parts.js";
import { EXPANSION_BUDGET, type ExpansionContext, expandWord, shellQuote } from "./expansion/expand.js";
import {
  CONTROL_FLOW,
  FLAGGED,
  isHarmlessRedirect,
  plainValue,
  QUIET_CONTAINERS,
  QUIET_LEAVES,
  RESERVED_LEAD,
  roughValue,
  STATEMENT_TOKENS,
} from "./nodes.js";
import { bashParserIfLoaded, loadBashParser } from "./parser.js";
import { type CommandPlace, changesExpansion, EXPANSION_VARIABLES, folderAfter } from "./places.js";
import { plainWords } from "./plain.js";
import { programFindings } from "./programs/index.js";
import { classifyRisk } from "./risk.js";
import { pipedCode, redirectedCode, type StdinCode } from "./stdin-code.js";
import { naiveCommands, substitutionsIn } from "./text-scan.js";
import type { Node, Parser } from "./tree-sitter.js";
import { commandBase, unwrap } from "./wrappers.js";

export type { CommandAnalysis, CommandFinding } from "./analysis.js";

const MAX_LENGTH = 100_000;
const MAX_DEPTH = 8;
const SHOWN_WORD = 40;

/** Where a command line runs, for the expansion of its globs. */
export interface AnalyzeOptions {
  /** The folder the command runs in (absolute). Without it, a glob is not expanded and not vouched for. */
  cwd?: string;
  /** The workspace roots (canonical): globs read no folder outside them. */
  roots?: readonly string[];
  /** Paths globs do not match although they exist (the sandbox's placeholder folders); see `GlobContext`. */
  hidden?: (path: string) => boolean;
}

/** A word of the command text replaced by the words it expands to, quoted. */
interface Rewrite {
  start: number;
  end: number;
  text: string;
}

/** Node types whose commands run in a subshell: a `cd` inside does not move the commands after them. */
const SUBSHELLS = new Set(["subshell", "command_substitution", "process_substitution"]);

/** Walks one parse tree (and the shell text wrappers run) collecting commands and reasons. */
class Walker {
  readonly commands: string[][] = [];
  readonly places: CommandPlace[] = [];
  readonly pipelines: number[][] = [];
  readonly unsafe = new Set<string>();
  readonly findings: CommandFinding[] = [];
  readonly scriptCommands: number[] = [];
  readonly rewrites: Rewrite[] = [];
  ok = true;
  /** The folder the next command runs in, relative to the start; null once the analysis lost track. */
  private dir: string | null = ".";
  /** A `set`, `shopt` or `GLOBIGNORE=` came first: later expansions are not reproduced. */
  private expansionChanged = false;

  /** With `fastPath`, commands of plain words skip the grammar (see `plain.ts`). */
  constructor(
    private readonly parser: Parser,
    private readonly fastPath: boolean,
    private readonly expansion: ExpansionContext,
  ) {}

  analyzeText(text: string, depth: number): void {
    // Text another shell runs (`bash -c`, a script) moves no folder of this one.
    const saved = this.dir;
    try {
      this.analyzeWithin(text, depth);
    } finally {
      if (depth > 0) this.dir = saved;
    }
  }

  private analyzeWithin(text: string, depth: number): void {
    if (depth > MAX_DEPTH) {
      this.refuse("nesting too deep", text);
      return;
    }
    if (text.length > MAX_LENGTH) {
      this.refuse("command too long", text);
      return;
    }
    if (CONTROL_CHARACTERS.test(text)) this.unsafe.add("control character");
    if (UNUSUAL_CHARACTERS.test(text)) this.unsafe.add("unusual character");
    const words = this.fastPath ? plainWords(text) : undefined;
    if (words) {
      this.addWords(words, depth);
      return;
    }
    const tree = this.parser.parse(text);
    if (!tree) {
      this.refuse("parse error", text);
      return;
    }
    try {
      if (tree.rootNode.hasError) this.refuse("parse error", text);
      this.visit(tree.rootNode, depth);
    } finally {
      tree.delete();
    }
  }

  /** Marks the command unanalysable; still splits it naively so deny rules have something to match. */
  private refuse(reason: string, text: string): void {
    this.ok = false;
    this.unsafe.add(reason);
    for (const words of naiveCommands(text.slice(0, MAX_LENGTH))) this.pushCommand(words, { dir: null });
  }

  private pushCommand(words: string[], place: CommandPlace): number {
    this.places.push(place);
    return this.commands.push(words) - 1;
  }

  private visit(node: Node, depth: number): void {
    if (SUBSHELLS.has(node.type)) {
      const saved = this.dir;
      this.visitNode(node, depth);
      this.dir = saved;
    } else this.visitNode(node, depth);
  }

  private visitNode(node: Node, depth: number): void {
    const type = node.type;
    // A leaf with children (a `number` like `10#$(rm x)`) is flagged below, and its substitution visited.
    if (QUIET_LEAVES.has(type) && node.namedChildCount === 0) return;
    if (QUIET_CONTAINERS.has(type)) {
      this.visitChildren(node, depth, false);
      return;
    }
    switch (type) {
      case "program":
      case "list":
      case "subshell":
      case "compound_statement":
      case "negated_command": {
        this.visitChildren(node, depth, true);
        return;
      }
      case "pipeline": {
        this.visitPipeline(node, depth);
        return;
      }
      case "command": {
        this.visitCommand(node, depth);
        return;
      }
      case "redirected_statement": {
        const before = this.commands.length;
        this.visitChildren(node, depth, true);
        this.record(redirectedCode(node, this.commands[before]), depth);
        return;
      }
      case "file_redirect":
      case "heredoc_redirect":
      case "herestring_redirect": {
        this.visitRedirect(node, depth);
        return;
      }
      case "declaration_command":
      case "unset_command":
        this.unsafe.add("assignment");
        this.expansionChanged ||= node.children.some((c) => c !== null && assignsExpansionVariable(c));
        this.pushCommand(node.children.filter((c): c is Node => c !== null).map(roughValue), {
          dir: this.dir,
        });
        {
          this.visitChildren(node, depth, false);
          return;
        }
      case "ERROR":
        this.ok = false;
        this.unsafe.add("parse error");
        {
          this.visitChildren(node, depth, false);
          return;
        }
    }
    if (type === "variable_assignment") this.expansionChanged ||= assignsExpansionVariable(node);
    const flagged =
      FLAGGED[type] ?? (CONTROL_FLOW.has(type) ? "control flow" : `unsupported syntax: ${type}`);
    this.unsafe.add(flagged);
    this.visitChildren(node, depth, false);
  }

  private visitChildren(node: Node, depth: number, statements: boolean): void {
    for (const child of node.children) {
      if (!child) continue;
      if (child.isNamed) this.visit(child, depth);
      else if (child.isMissing) this.ok = false;
      else if (statements && child.type === "&") this.unsafe.add("background");
      else if (statements && !STATEMENT_TOKENS.has(child.type))
        this.unsafe.add(`unsupported syntax: ${child.type}`);
    }
  }

  private visitPipeline(node: Node, depth: number): void {
    const stages: number[] = [];
    for (const child of node.children) {
      if (!child) continue;
      if (!child.isNamed) {
        if (child.type !== "|" && child.type !== "|&") this.unsafe.add(`unsupported syntax: ${child.type}`);
        continue;
      }
      const before = this.commands.length;
      // Each stage runs in a subshell: its `cd` stays there.
      const saved = this.dir;
      this.visit(child, depth);
      this.dir = saved;
      if (this.commands.length > before) stages.push(before);
    }
    this.pipelines.push(stages);
    this.record(pipedCode(stages.map((i) => this.commands[i]!)), depth);
  }

  /** Analyses shell text a program runs, for deny rules only (allow rules need not name what is inside). */
  private analyzeScript(text: string, depth: number): void {
    const before = this.commands.length;
    this.analyzeText(text, depth + 1);
    for (let i = before; i < this.commands.length; i++) this.scriptCommands.push(i);
  }

  private visitCommand(node: Node, depth: number): void {
    const words: string[] = [];
    let vars: Record<string, string> | undefined;
    for (const part of commandParts(node)) {
      if (part.kind === "words") {
        const named = this.argumentWords(part.nodes, depth, part.name);
        // `/???/r?` or `{rm,-rf,x}` would expand into another command than the one written.
        if (part.name && isPatternName(part.nodes, named)) this.unsafe.add("pattern in command name");
        words.push(...named);
        continue;
      }
      const child = part.node;
      if (child.type.endsWith("_redirect")) {
        this.visitRedirect(child, depth);
      } else if (child.type === "variable_assignment") {
        this.visit(child, depth);
        const [name, value] = [child.childForFieldName("name"), child.childForFieldName("value")];
        const plain = value ? plainValue(value) : "";
        if (name && plain !== undefined) vars = { ...vars, [name.text]: plain };
        this.expansionChanged ||= assignsExpansionVariable(child);
      } else {
        this.unsafe.add(child.type === "$" ? "translated string" : `unsupported syntax: ${child.type}`);
      }
    }
    const first = this.commands.length;
    this.addWords(words, depth, vars);
    this.record(redirectedCode(node, this.commands[first]), depth);
    if (changesExpansion(words)) this.expansionChanged = true;
    const moved = folderAfter(words, this.dir);
    if (moved !== undefined) this.dir = moved;
  }

  /**
   * The words one shell word stands for (its nodes touch: the grammar sometimes splits one word in two):
   * brace and pathname expansion applied (recorded as a rewrite of the command text, so the command runs
   * with exactly these words), else its plain value.
   */
  private argumentWords(nodes: readonly Node[], depth: number, name: boolean): string[] {
    const text = nodes.map((n) => n.text).join("");
    // Patterns in a command name are not expanded (they would be looked up on the whole machine).
    const found = expandWord(text, this.dir, this.expansion, depth === 0 && !name);
    if (found.kind === "plain") return [nodes.map((n) => this.word(n, depth)).join("")];
    const shown = text.length > SHOWN_WORD ? `${text.slice(0, SHOWN_WORD)}…` : text;
    if (found.kind === "refused" || this.expansionChanged) {
      const why = found.kind === "refused" ? found.reason : "set, shopt or GLOBIGNORE change it";
      this.unsafe.add(`expansion not reproduced (${shown}: ${why})`);
      return [nodes.map((n) => this.word(n, depth)).join("")];
    }
    for (const word of found.words) {
      if (CONTROL_CHARACTERS.test(word)) this.unsafe.add("control character");
      if (UNUSUAL_CHARACTERS.test(word)) this.unsafe.add("unusual character");
    }
    if (depth === 0) {
      const rewritten = found.words.map((w, i) => shellQuote(w, name && i === 0)).join(" ");
      this.rewrites.push({ start: nodes[0]!.startIndex, end: nodes.at(-1)!.endIndex, text: rewritten });
    }
    return [...found.words];
  }

  private word(node: Node, depth: number): string {
    const plain = plainValue(node);
    if (plain !== undefined) return plain;
    this.visit(node, depth);
    return roughValue(node);
  }

  /** Records what code on an interpreter's input means: reasons, and text deny rules should see. */
  private record(found: StdinCode, depth: number): void {
    for (const reason of found.reasons) this.unsafe.add(reason);
    for (const text of found.scripts) this.analyzeScript(text, depth);
  }

  /** Records a command, then what it wraps (recursively), so deny rules see the wrapped command too. */
  private addWords(words: string[], depth: number, vars?: Record<string, string>): void {
    if (words.length === 0) return;
    if (depth > MAX_DEPTH) {
      this.refuse("nesting too deep", words.join(" "));
      return;
    }
    const place: CommandPlace = vars ? { dir: this.dir, vars } : { dir: this.dir };
    const index = this.pushCommand(words, place);
    if (RESERVED_LEAD.has(words[0]!)) {
      // The grammar sometimes leaves a reserved word as a command name (`coproc { rm x; }`): look past it.
      this.unsafe.add(`unsupported syntax: ${words[0]}`);
      this.addWords(words.slice(1), depth, vars);
      return;
    }
    const base = commandBase(words[0]!);
    if (base !== words[0] && base !== "") this.pushCommand([base, ...words.slice(1)], place);
    for (const finding of programFindings(base === words[0] ? words : [base, ...words.slice(1)])) {
      this.findings.push({ ...finding, command: index });
      // What the program's script runs is seen by deny rules; the finding already keeps allow at ask.
      if (finding.runs !== undefined) this.analyzeScript(finding.runs, depth);
    }
    for (const found of unwrap([base, ...words.slice(1)])) {
      if (found.reason) this.unsafe.add(found.reason);
      if (found.inner) this.addWords(found.inner, depth + 1, vars);
      if (found.script !== undefined) this.analyzeText(found.script, depth + 1);
    }
  }

  /** Redirections are unsafe, except the harmless `>/dev/null`, `2>&1` and `2>&-` family. */
  private visitRedirect(node: Node, depth: number): void {
    if (node.type !== "heredoc_redirect") {
      if (!isHarmlessRedirect(node)) this.unsafe.add("redirection");
      for (const child of node.children) if (child?.isNamed) this.visit(child, depth);
      return;
    }
    this.unsafe.add("heredoc");
    const start = node.children.find((c) => c?.type === "heredoc_start");
    const expands = !/['"\\]/.test(start?.text ?? "");
    for (const child of node.children) {
      if (!child?.isNamed) continue;
      // The grammar parses heredoc bodies unreliably (a leading tab under `<<-` hides `$(...)`), so an
      // expanding body is scanned for substitutions by hand instead.
      if (child.type === "heredoc_body") {
        if (expands) this.scanSubstitutions(child.text, depth);
      } else this.visit(child, depth);
    }
  }

  /** Analyses the `$(...)` and backquoted commands in text bash expands (a heredoc body). */
  private scanSubstitutions(text: string, depth: number): void {
    if (text.includes("$")) this.unsafe.add("variable expansion");
    for (const inner of substitutionsIn(text)) {
      this.unsafe.add("command substitution");
      this.analyzeText(inner, depth + 1);
    }
  }

  result(text: string): CommandAnalysis {
    const unsafe = [...this.unsafe];
    const base = {
      text,
      ok: this.ok,
      commands: this.commands,
      places: this.places,
      unsafe,
      pipelines: this.pipelines,
      findings: this.findings,
      scriptCommands: this.scriptCommands,
    };
    const { risk, reasons } = classifyRisk(base);
    const expanded = this.ok ? this.expandedText(text) : undefined;
    return { ...base, risk, riskReasons: reasons, ...(expanded !== undefined ? { expanded } : {}) };
  }

  /** The command text with every expanded word written out, or undefined when none was. */
  private expandedText(text: string): string | undefined {
    if (this.rewrites.length === 0) return undefined;
    let out = text;
    for (const r of [...this.rewrites].sort((a, b) => b.start - a.start))
      out = out.slice(0, r.start) + r.text + out.slice(r.end);
    return out === text ? undefined : out;
  }
}

/** `GLOBIGNORE=…` and the like: an assignment that changes how later words expand. */
function assignsExpansionVariable(node: Node): boolean {
  const name = node.type === "variable_assignment" ? node.childForFieldName("name")?.text : undefined;
  return name !== undefined && EXPANSION_VARIABLES.has(name);
}

/**
 * Analyses a command synchronously with an already-loaded parser (see {@link loadBashParser}). With `cwd`
 * and `roots`, globs are expanded there (a few folder reads, only for words that have one).
 * @throws Error when the parser has not been loaded yet.
 */
export function analyzeCommandSync(text: string, options: AnalyzeOptions = {}): CommandAnalysis {
  return analyzeWith(text, true, options);
}

/**
 * The same analysis with the grammar always run, plain commands included: the reference the fast path is
 * tested against.
 */
export function analyzeParsedSync(text: string, options: AnalyzeOptions = {}): CommandAnalysis {
  return analyzeWith(text, false, options);
}

function analyzeWith(text: string, fastPath: boolean, options: AnalyzeOptions): CommandAnalysis {
  const parser = bashParserIfLoaded();
  if (!parser) throw new Error("bash parser not loaded: await loadBashParser() first");
  const expansion = {
    cwd: options.cwd,
    roots: options.roots ?? [],
    budget: { ...EXPANSION_BUDGET },
    ...(options.hidden ? { hidden: options.hidden } : {}),
  };
  const walker = new Walker(parser, fastPath, expansion);
  walker.analyzeText(text, 0);
  return walker.result(text);
}

/**
 * Analyses a command (loads the WASM parser on first use).
 * @example
 * const a = await analyzeCommand("git status && echo $(rm -rf /)");
 * a.commands // [["git","status"], ["rm","-rf","/"], ["echo","$(rm -rf /)"]] (inner commands first)
 * a.unsafe   // ["command substitution"]
 */
export async function analyzeCommand(text: string, options: AnalyzeOptions = {}): Promise<CommandAnalysis> {
  await loadBashParser();
  return analyzeCommandSync(text, options);
}
