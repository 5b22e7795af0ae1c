/**
 * @module policy/shell/programs/sed
 * Reads a `sed` script (GNU syntax) command by command and reports the commands that run programs (`e`,
 * `s///e`) or write files (`w`, `W`, `s///w`). A script it cannot read is reported too: what the analysis
 * does not understand, it does not vouch for.
 */
import type { ScriptParser } from "./args.js";

type Found = ReturnType<ScriptParser>[number];

const SIMPLE = new Set([..."=dDgGhHnNpPxzF"]);
const OPTIONAL_NUMBER = new Set([..."lLqQ"]);
const TO_LABEL = new Set([..."btT"]);
const SINKS = new Set(["/dev/stdout", "/dev/stderr"]);

class Reader {
  pos = 0;
  readonly found: Found[] = [];
  constructor(readonly s: string) {}

  peek(): string | undefined {
    return this.s[this.pos];
  }
  blanks(): void {
    while (this.pos < this.s.length && (this.s[this.pos] === " " || this.s[this.pos] === "\t")) this.pos++;
  }
  /** The rest of the line (a file name, `e`'s command). */
  line(): string {
    const end = this.s.indexOf("\n", this.pos);
    const out = this.s.slice(this.pos, end < 0 ? undefined : end);
    this.pos = end < 0 ? this.s.length : end;
    return out;
  }
  /** Up to the next unescaped `delim`; false when the script ends first. */
  delimited(delim: string): boolean {
    while (this.pos < this.s.length) {
      const ch = this.s[this.pos++];
      if (ch === "\\") this.pos++;
      else if (ch === delim) return true;
    }
    return false;
  }
  number(): void {
    while (/[0-9]/.test(this.peek() ?? "")) this.pos++;
  }
}

class Unreadable extends Error {}

function address(r: Reader): void {
  const ch = r.peek();
  if (ch === undefined) return;
  if (/[0-9]/.test(ch)) {
    r.number();
    if (r.peek() === "~") {
      r.pos++;
      r.number();
    }
  } else if (ch === "$") r.pos++;
  else if (ch === "/" || ch === "\\") {
    r.pos++;
    const delim = ch === "/" ? "/" : r.s[r.pos++];
    if (delim === undefined || !r.delimited(delim)) throw new Unreadable("unterminated address");
    while (r.peek() === "I" || r.peek() === "M") r.pos++;
  }
}

function addresses(r: Reader): void {
  address(r);
  r.blanks();
  if (r.peek() === ",") {
    r.pos++;
    r.blanks();
    if (r.peek() === "+" || r.peek() === "~") {
      r.pos++;
      r.number();
    } else address(r);
  }
  r.blanks();
  while (r.peek() === "!") {
    r.pos++;
    r.blanks();
  }
}

/** `s/RE/REPLACEMENT/FLAGS`. */
function substitute(r: Reader): void {
  const delim = r.s[r.pos++];
  if (delim === undefined || delim === "\n" || delim === "\\") throw new Unreadable("bad s delimiter");
  if (!r.delimited(delim) || !r.delimited(delim)) throw new Unreadable("unterminated s command");
  for (;;) {
    const f = r.peek();
    if (f === undefined || f === ";" || f === "\n" || f === "}" || f === " " || f === "\t" || f === "#")
      return;
    r.pos++;
    if (f === "e")
      r.found.push({ effect: "exec", reason: "script runs the pattern space as a command (s///e)" });
    else if (f === "w") {
      const file = r.line().trim();
      if (!SINKS.has(file)) r.found.push({ effect: "write", reason: `script writes a file (s///w ${file})` });
      return;
    } else if (!/[gpiImM0-9]/.test(f)) throw new Unreadable(`unknown s flag '${f}'`);
  }
}

/** Reads one command; returns false for `{`, after which another command follows directly. */
function command(r: Reader): boolean {
  const c = r.s[r.pos++]!;
  if (c === "{") return false;
  if (c === "}" || SIMPLE.has(c)) return true;
  if (OPTIONAL_NUMBER.has(c)) {
    r.blanks();
    r.number();
  } else if (c === "s") substitute(r);
  else if (c === "y") {
    const delim = r.s[r.pos++];
    if (delim === undefined || !r.delimited(delim) || !r.delimited(delim))
      throw new Unreadable("bad y command");
  } else if (c === "a" || c === "i" || c === "c") {
    // Text to the end of the line, continued over lines ending in an unescaped backslash (`foo\\` is a
    // literal backslash: the text ends there and the next line is a command).
    while (r.pos < r.s.length) {
      const line = r.line();
      const trailing = /\\*$/.exec(line)![0].length;
      if (trailing % 2 === 0 || r.pos >= r.s.length) break;
      r.pos++;
    }
  } else if (c === ":" || TO_LABEL.has(c) || c === "v") {
    // A label ends at `;` or a newline here, even where sed would read on: a command after it is not missed.
    while (r.pos < r.s.length && !";\n".includes(r.s[r.pos]!) && !(c !== ":" && r.s[r.pos] === "}")) r.pos++;
  } else if (c === "r" || c === "R") {
    r.line();
  } else if (c === "w" || c === "W") {
    const file = r.line().trim();
    if (!SINKS.has(file)) r.found.push({ effect: "write", reason: `script writes a file (${c} ${file})` });
  } else if (c === "e") {
    const runs = r.line().trim();
    r.found.push({
      effect: "exec",
      reason: runs === "" ? "script runs the pattern space as a command (e)" : "script runs a command (e)",
      ...(runs === "" ? {} : { runs }),
    });
  } else if (c === "#") {
    r.line();
  } else throw new Unreadable(`unknown command '${c}'`);
  return true;
}

/**
 * What a sed script does beyond printing.
 * @example parseSedScript("1e rm x") // [{ effect: "exec", reason: "script runs a command (e)", runs: "rm x" }]
 */
export const parseSedScript: ScriptParser = (script) => {
  const r = new Reader(script);
  try {
    while (r.pos < r.s.length) {
      const ch = r.peek()!;
      if (ch === ";" || ch === "\n" || ch === " " || ch === "\t") {
        r.pos++;
        continue;
      }
      addresses(r);
      if (r.pos >= r.s.length) throw new Unreadable("address without a command");
      if (!command(r)) continue;
      r.blanks();
      const next = r.peek();
      if (next !== undefined && !";\n}#".includes(next)) throw new Unreadable(`unexpected '${next}'`);
    }
  } catch (error) {
    if (!(error instanceof Unreadable)) throw error;
    r.found.push({
      effect: "exec",
      reason: `script could not be read (${error.message}): it is not vouched for`,
    });
  }
  return r.found;
};
