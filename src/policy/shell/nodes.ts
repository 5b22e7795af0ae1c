/**
 * @module policy/shell/nodes
 * What the analysis knows about tree-sitter-bash node kinds: which are plain, which are quiet parts of an
 * already-flagged construct, which are flagged and why; and how a plain argument node becomes its value.
 */
import type { Node } from "./tree-sitter.js";
import { decodeAnsiC, unescapeDoubleQuoted, unescapeUnquoted } from "./words.js";

export const RESERVED_LEAD = new Set([
  "{",
  "}",
  "(",
  ")",
  "!",
  "if",
  "then",
  "elif",
  "else",
  "do",
  "while",
  "until",
]);
export const STATEMENT_TOKENS = new Set(["&&", "||", ";", "|", "|&", "(", ")", "{", "}", "!", "\n"]);
export const QUIET_LEAVES = new Set([
  "word",
  "number",
  "raw_string",
  "string_content",
  "variable_name",
  "special_variable_name",
  "heredoc_start",
  "heredoc_end",
  "heredoc_content",
  "file_descriptor",
  "test_operator",
]);
// Inner parts of constructs whose parent already said why the command is unsafe.
export const QUIET_CONTAINERS = new Set([
  "string",
  "concatenation",
  "command_name",
  "heredoc_body",
  "subscript",
  "binary_expression",
  "unary_expression",
  "parenthesized_expression",
  "ternary_expression",
  "postfix_expression",
  "array",
  "brace_expression",
  "regex",
  "extglob_pattern",
  "case_item",
  "do_group",
  "elif_clause",
  "else_clause",
]);
export const CONTROL_FLOW = new Set([
  "if_statement",
  "while_statement",
  "for_statement",
  "c_style_for_statement",
  "case_statement",
  "select_statement",
]);
export const FLAGGED: Record<string, string> = {
  simple_expansion: "variable expansion",
  expansion: "variable expansion",
  command_substitution: "command substitution",
  process_substitution: "process substitution",
  arithmetic_expansion: "arithmetic expansion",
  ansi_c_string: "ANSI-C quoting",
  translated_string: "translated string",
  variable_assignment: "assignment",
  variable_assignments: "assignment",
  function_definition: "function definition",
  test_command: "test expression",
  comment: "comment",
};

/** The value bash passes for an argument node, when the node has no expansion in it. */
export function plainValue(node: Node): string | undefined {
  switch (node.type) {
    case "word":
      return unescapeUnquoted(node.text);
    case "number":
      // `10#$(rm x)` is a number to the grammar, yet bash runs the substitution.
      return node.namedChildCount === 0 ? node.text : undefined;
    case "raw_string":
      return node.text.slice(1, -1);
    case "string":
    case "concatenation": {
      let out = "";
      for (const child of node.children) {
        if (!child) continue;
        if (node.type === "string" && child.type === '"') continue;
        const part = child.type === "string_content" ? unescapeDoubleQuoted(child.text) : plainValue(child);
        if (part === undefined) return undefined;
        out += part;
      }
      return out;
    }
    default:
      return undefined;
  }
}

/** A best-effort value for a node with expansions: decodes ANSI-C parts, keeps expansions as written. */
export function roughValue(node: Node): string {
  const plain = plainValue(node);
  if (plain !== undefined) return plain;
  if (node.type === "ansi_c_string") return decodeAnsiC(node.text);
  if (node.type === "concatenation" || node.type === "string") {
    return node.children
      .filter((c): c is Node => c !== null && c.type !== '"')
      .map((c) => (c.type === "string_content" ? unescapeDoubleQuoted(c.text) : roughValue(c)))
      .join("");
  }
  return node.text;
}

/** True for redirections that cannot write a file: `>/dev/null`, `2>&1`, `2>&-`. */
export function isHarmlessRedirect(node: Node): boolean {
  if (node.type !== "file_redirect") return false;
  let op = "";
  let target: Node | undefined;
  for (const child of node.children) {
    if (!child) continue;
    if (!child.isNamed) op = child.type;
    else if (child.type !== "file_descriptor") target = child;
  }
  if (op === ">&-" || op === "<&-") return target === undefined;
  if (!target) return false;
  const value = plainValue(target);
  if (op === ">&" || op === "<&") return /^(\d+|-)$/.test(value ?? "");
  return [">", ">>", "&>", "&>>", ">|", "<"].includes(op) && value === "/dev/null";
}
