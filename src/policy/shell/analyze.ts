/**
 * @module policy/shell/analyze
 * Parses a command with the bash grammar and turns it into the word lists of every sub-command, anywhere in
 * the tree, plus the reasons a prefix rule cannot vouch for it. Parses or refuses: only an allow-list of
 * syntax counts as safe; anything else is reported in `unsafe`, and a parse error makes it unanalysable.
 */

import type { CommandAnalysis, CommandFinding } from "./analysis.js";
import { CONTROL_CHARACTERS, UNUSUAL_CHARACTERS } from "./characters.js";
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

/** Walks one parse tree (and the shell text wrappers run) collecting commands and reasons. */
class Walker {
  readonly commands: string[][] = [];
  readonly pipelines: number[][] = [];
  readonly unsafe = new Set<string>();
  readonly findings: CommandFinding[] = [];
  readonly scriptCommands: number[] = [];
  ok = true;

  /** With `fastPath`, commands of plain words skip the grammar (see `plain.ts`). */
  constructor(
    private readonly parser: Parser,
    private readonly fastPath: boolean,
  ) {}

  analyzeText(text: string, depth: number): void {
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
    this.commands.push(...naiveCommands(text.slice(0, MAX_LENGTH)));
  }

  private visit(node: Node, depth: number): void {
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
        this.commands.push(node.children.filter((c): c is Node => c !== null).map(roughValue));
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
      this.visit(child, depth);
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
    for (const child of node.children) {
      if (!child) continue;
      if (child.type === "command_name") {
        const target = child.namedChild(0) ?? child;
        // `/???/r?` or `{rm,-rf,x}` would expand into another command than the one written.
        const literal = target.type === "raw_string" || target.type === "string";
        if (!literal && plainValue(target) !== undefined && /[*?[\]{}]/.test(target.text)) {
          this.unsafe.add("pattern in command name");
        }
        words.push(this.word(target, depth));
      } else if (child.type.endsWith("_redirect")) {
        this.visitRedirect(child, depth);
      } else if (child.type === "variable_assignment") {
        this.visit(child, depth);
      } else if (child.isNamed) {
        words.push(this.word(child, depth));
      } else {
        this.unsafe.add(child.type === "$" ? "translated string" : `unsupported syntax: ${child.type}`);
      }
    }
    const first = this.commands.length;
    this.addWords(words, depth);
    this.record(redirectedCode(node, this.commands[first]), depth);
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
  private addWords(words: string[], depth: number): void {
    if (words.length === 0) return;
    if (depth > MAX_DEPTH) {
      this.refuse("nesting too deep", words.join(" "));
      return;
    }
    const index = this.commands.push(words) - 1;
    if (RESERVED_LEAD.has(words[0]!)) {
      // The grammar sometimes leaves a reserved word as a command name (`coproc { rm x; }`): look past it.
      this.unsafe.add(`unsupported syntax: ${words[0]}`);
      this.addWords(words.slice(1), depth);
      return;
    }
    const base = commandBase(words[0]!);
    if (base !== words[0] && base !== "") this.commands.push([base, ...words.slice(1)]);
    for (const finding of programFindings(base === words[0] ? words : [base, ...words.slice(1)])) {
      this.findings.push({ ...finding, command: index });
      // What the program's script runs is seen by deny rules; the finding already keeps allow at ask.
      if (finding.runs !== undefined) this.analyzeScript(finding.runs, depth);
    }
    for (const found of unwrap([base, ...words.slice(1)])) {
      if (found.reason) this.unsafe.add(found.reason);
      if (found.inner) this.addWords(found.inner, depth + 1);
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
      unsafe,
      pipelines: this.pipelines,
      findings: this.findings,
      scriptCommands: this.scriptCommands,
    };
    const { risk, reasons } = classifyRisk(base);
    return { ...base, risk, riskReasons: reasons };
  }
}

/**
 * Analyses a command synchronously with an already-loaded parser (see {@link loadBashParser}).
 * @throws Error when the parser has not been loaded yet.
 */
export function analyzeCommandSync(text: string): CommandAnalysis {
  return analyzeWith(text, true);
}

/**
 * The same analysis with the grammar always run, plain commands included: the reference the fast path is
 * tested against.
 */
export function analyzeParsedSync(text: string): CommandAnalysis {
  return analyzeWith(text, false);
}

function analyzeWith(text: string, fastPath: boolean): CommandAnalysis {
  const parser = bashParserIfLoaded();
  if (!parser) throw new Error("bash parser not loaded: await loadBashParser() first");
  const walker = new Walker(parser, fastPath);
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
export async function analyzeCommand(text: string): Promise<CommandAnalysis> {
  await loadBashParser();
  return analyzeCommandSync(text);
}
