/**
 * @module policy/shell/stdin-code
 * Code given to a shell or interpreter on its input (`… | sh`, `bash <<< TEXT`, `sh < FILE`, heredocs): it
 * runs, and nobody has read it, so it is never vouched for. Where the text is in the command itself, it is
 * handed back so deny rules see what it runs.
 */

import { plainValue } from "./nodes.js";
import type { Node } from "./tree-sitter.js";
import { stdinInterpreter } from "./wrappers.js";

/** Why a command cannot be vouched for, and shell text that deny rules should see. */
export interface StdinCode {
  reasons: string[];
  scripts: string[];
}

/**
 * A pipeline's stages (each stage's first command): a stage that is an interpreter reading its input runs
 * the previous stage's output; `echo`/`printf` text is handed back.
 * @example pipedCode([["echo", "rm x"], ["sh"]]) // { reasons: ["piped into sh: ..."], scripts: ["rm x"] }
 */
export function pipedCode(stages: readonly (readonly string[])[]): StdinCode {
  const found: StdinCode = { reasons: [], scripts: [] };
  for (let k = 1; k < stages.length; k++) {
    const name = stdinInterpreter(stages[k]!);
    if (name === undefined) continue;
    found.reasons.push(`piped into ${name}: its input runs as code nobody has read`);
    const source = stages[k - 1]!;
    if (source[0] === "echo" || source[0] === "printf") found.scripts.push(source.slice(1).join(" "));
  }
  return found;
}

/** A command node (or redirected statement) whose redirections feed an interpreter its code. */
export function redirectedCode(node: Node, words: readonly string[] | undefined): StdinCode {
  const found: StdinCode = { reasons: [], scripts: [] };
  const name = words && stdinInterpreter(words);
  if (name === undefined) return found;
  for (const child of node.children) {
    if (child?.type === "herestring_redirect") {
      found.reasons.push(`text given to ${name} on its input runs as code`);
      const value = child.namedChildren.find((c) => c !== null && c.type !== "file_descriptor");
      const text = value ? plainValue(value) : undefined;
      if (text !== undefined) found.scripts.push(text);
    } else if (child?.type === "heredoc_redirect") {
      found.reasons.push(`a heredoc given to ${name} runs as code`);
      const body = child.children.find((c) => c?.type === "heredoc_body");
      if (body) found.scripts.push(body.text);
    } else if (child?.type === "file_redirect" && child.children.some((c) => c?.type === "<")) {
      found.reasons.push(`${name} reads code from a file nobody has read`);
    }
  }
  return found;
}
