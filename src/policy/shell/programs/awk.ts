/**
 * @module policy/shell/programs/awk
 * Reads an awk program (POSIX awk, gawk, mawk) token by token and reports what runs commands (`system()`,
 * `print | "cmd"`, `"cmd" | getline`, `|&`), writes files (`print > file`, `>>`), or loads code (`@load`,
 * `@include`, indirect `@f()` calls). String literals given to `system` or a pipe are handed back so deny
 * rules see the command inside. No regex over the raw program: a small tokenizer decides what is code.
 */
import type { ScriptParser } from "./args.js";

type Found = ReturnType<ScriptParser>[number];
interface Token {
  t: "id" | "str" | "num" | "re" | "op" | "nl";
  v: string;
}

const SINKS = new Set(["/dev/stdout", "/dev/stderr", "/dev/null", "-"]);
const OPERATORS = [
  "|&",
  "||",
  "&&",
  ">>",
  ">=",
  "<=",
  "==",
  "!=",
  "++",
  "--",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "^=",
];

class Unreadable extends Error {}

/** The end index of a quoted run starting at `start` (the opening quote), honouring `\` escapes. */
function quoted(s: string, start: number, close: string, brackets: boolean): number {
  let inBracket = false;
  for (let i = start + 1; i < s.length; i++) {
    const ch = s[i];
    if (ch === "\\") i++;
    else if (ch === "\n") break;
    else if (brackets && ch === "[") inBracket = true;
    else if (brackets && ch === "]") inBracket = false;
    else if (ch === close && !inBracket) return i;
  }
  throw new Unreadable(close === '"' ? "unterminated string" : "unterminated regular expression");
}

/** Decodes the common escapes of an awk string literal (enough to show and analyse a command). */
function decodeString(body: string): string {
  return body.replace(
    /\\(.)/g,
    (_, c: string) => ({ n: "\n", t: "\t", '"': '"', "\\": "\\", "/": "/" })[c] ?? `\\${c}`,
  );
}

function tokenize(s: string): Token[] {
  const out: Token[] = [];
  const operandEnd = () => {
    const last = out[out.length - 1];
    return (
      last !== undefined &&
      (last.t === "id" || last.t === "num" || last.t === "str" || [")", "]", "$"].includes(last.v))
    );
  };
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === " " || ch === "\t" || ch === "\r") continue;
    if (ch === "\\" && s[i + 1] === "\n") {
      i++;
    } else if (ch === "\n") out.push({ t: "nl", v: "\n" });
    else if (ch === "#") {
      while (i + 1 < s.length && s[i + 1] !== "\n") i++;
    } else if (ch === '"') {
      const end = quoted(s, i, '"', false);
      out.push({ t: "str", v: decodeString(s.slice(i + 1, end)) });
      i = end;
    } else if (ch === "/" && !operandEnd()) {
      const end = quoted(s, i, "/", true);
      out.push({ t: "re", v: s.slice(i + 1, end) });
      i = end;
    } else if (/[A-Za-z_]/.test(ch)) {
      let j = i;
      while (j + 1 < s.length && /[A-Za-z0-9_]/.test(s[j + 1]!)) j++;
      out.push({ t: "id", v: s.slice(i, j + 1) });
      i = j;
    } else if (/[0-9.]/.test(ch)) {
      let j = i;
      while (j + 1 < s.length && /[0-9.eExX]/.test(s[j + 1]!)) j++;
      out.push({ t: "num", v: s.slice(i, j + 1) });
      i = j;
    } else {
      const two = OPERATORS.find((op) => s.startsWith(op, i));
      out.push({ t: "op", v: two ?? ch });
      if (two) i += two.length - 1;
    }
  }
  return out;
}

/** Scans the tokens: redirections count only inside a `print`/`printf` statement, outside parentheses. */
function scan(tokens: Token[]): Found[] {
  const found: Found[] = [];
  let braces = 0;
  let depth = 0;
  let printDepth = -1;
  for (let i = 0; i < tokens.length; i++) {
    const { t, v } = tokens[i]!;
    const next = tokens[i + 1];
    if (t === "id" && v === "system") {
      const arg = next?.v === "(" && tokens[i + 2]?.t === "str" ? tokens[i + 2]!.v : undefined;
      found.push({
        effect: "exec",
        reason: "program runs a command (system)",
        ...(arg ? { runs: arg } : {}),
      });
    } else if (t === "id" && (v === "print" || v === "printf")) printDepth = depth;
    else if (t === "nl" || v === ";" || v === "{" || v === "}") {
      if (v === "{") braces++;
      else if (v === "}") braces--;
      if (depth <= printDepth || v !== ";") printDepth = -1;
    } else if (v === "(" || v === "[") depth++;
    else if (v === ")" || v === "]") depth--;
    else if (t === "op" && (v === ">" || v === ">>") && printDepth === depth) {
      if (!(next?.t === "str" && SINKS.has(next.v))) {
        const target = next?.t === "str" ? ` ${next.v}` : "";
        found.push({ effect: "write", reason: `program writes a file (print ${v}${target})` });
      }
    } else if (t === "op" && (v === "|" || v === "|&")) {
      if (next?.t === "id" && next.v === "getline") {
        const prev = tokens[i - 1];
        const runs = prev?.t === "str" ? prev.v : undefined;
        found.push({
          effect: "exec",
          reason: `program runs a command (cmd ${v} getline)`,
          ...(runs ? { runs } : {}),
        });
      } else {
        const runs = next?.t === "str" ? next.v : undefined;
        found.push({
          effect: "exec",
          reason: `program pipes to a command (print ${v} cmd)`,
          ...(runs ? { runs } : {}),
        });
      }
    } else if (t === "op" && v === "@") {
      const name = next?.t === "id" ? next.v : "";
      if (name === "load") found.push({ effect: "exec", reason: "program loads a shared library (@load)" });
      else if (name === "include")
        found.push({
          effect: "exec",
          reason: "program includes awk source the analysis does not read (@include)",
        });
      else if (name !== "namespace")
        found.push({ effect: "exec", reason: "program calls a function by name (@f())" });
    }
  }
  if (braces !== 0 || depth !== 0) throw new Unreadable("unbalanced braces or parentheses");
  return found;
}

/**
 * What an awk program does beyond reading and printing.
 * @example parseAwkProgram('BEGIN{system("id")}') // [{ effect: "exec", reason: "program runs a command (system)", runs: "id" }]
 */
export const parseAwkProgram: ScriptParser = (program) => {
  try {
    return scan(tokenize(program));
  } catch (error) {
    if (!(error instanceof Unreadable)) throw error;
    return [
      { effect: "exec", reason: `program could not be read (${error.message}): it is not vouched for` },
    ];
  }
};
