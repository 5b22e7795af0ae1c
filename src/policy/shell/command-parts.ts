/**
 * @module policy/shell/command-parts
 * Splits a `command` node into the parts the analysis reads: its words — the command name, then each
 * argument — and everything else (redirections, `NAME=VALUE` prefixes, stray tokens). Nodes that touch are
 * one shell word: tree-sitter-bash sometimes ends a word early (`x}\*y`, `[]x]\,y` come out as two nodes),
 * where bash reads one.
 */
import { plainValue } from "./nodes.js";
import type { Node } from "./tree-sitter.js";

/** One part of a command: a shell word (its nodes), or another child node. */
export type CommandPart =
  | { readonly kind: "words"; readonly nodes: Node[]; readonly name: boolean }
  | { readonly kind: "other"; readonly node: Node };

/** The parts of a `command` node, in order. */
export function commandParts(command: Node): CommandPart[] {
  const parts: CommandPart[] = [];
  let open: Node[] | undefined;
  let end = -1;
  for (const child of command.children) {
    if (!child) continue;
    const isName = child.type === "command_name";
    if (
      isName ||
      (child.isNamed && !child.type.endsWith("_redirect") && child.type !== "variable_assignment")
    ) {
      const node = isName ? (child.namedChild(0) ?? child) : child;
      if (open !== undefined && child.startIndex === end) open.push(node);
      else {
        open = [node];
        parts.push({ kind: "words", nodes: open, name: isName });
      }
      end = child.endIndex;
      continue;
    }
    open = undefined;
    parts.push({ kind: "other", node: child });
  }
  return parts;
}

/** Whether a command name is a brace or glob pattern (it would run another program than the one written). */
export function isPatternName(nodes: readonly Node[], words: readonly string[]): boolean {
  const text = nodes.map((n) => n.text).join("");
  const literal = nodes.length === 1 && (nodes[0]!.type === "raw_string" || nodes[0]!.type === "string");
  if (literal || !/[*?[\]{}]/.test(text)) return false;
  return words.length !== 1 || nodes.every((n) => plainValue(n) !== undefined);
}
