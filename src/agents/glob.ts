/**
 * @module agents/glob
 * Tool-name globs for agent whitelists: `*` (any run), `?` (one character), `[...]` / `[!...]` (a class),
 * `\` escapes; anchored and case-sensitive. Matching uses the literal prefix to search a sorted name list,
 * so `mcp__github__*` over thousands of tools looks at only the matching range.
 */

/** A compiled pattern. */
export interface ToolPattern {
  readonly source: string;
  /** The characters every match starts with. */
  readonly prefix: string;
  /** True when the pattern is `prefix*` (no test beyond the prefix is needed). */
  readonly prefixOnly: boolean;
  test(name: string): boolean;
}

/** True when `entry` uses glob syntax. */
export function isGlob(entry: string): boolean {
  return /[*?[\\]/.test(entry);
}

const cache = new Map<string, ToolPattern>();

/**
 * Compiles a glob (cached).
 * @example compileToolPattern("entities_*").test("entities_get") // true
 */
export function compileToolPattern(source: string): ToolPattern {
  let pattern = cache.get(source);
  if (!pattern) {
    pattern = compile(source);
    if (cache.size > 10_000) cache.clear();
    cache.set(source, pattern);
  }
  return pattern;
}

function compile(source: string): ToolPattern {
  let regex = "";
  let prefix = "";
  let inPrefix = true;
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === "*") {
      while (source[i + 1] === "*") i++;
      regex += "[^]*";
      inPrefix = false;
    } else if (c === "?") {
      regex += "[^]";
      inPrefix = false;
    } else if (c === "[") {
      const cls = readClass(source, i);
      if (cls) {
        regex += cls.regex;
        i = cls.end;
        inPrefix = false;
      } else {
        regex += "\\[";
        if (inPrefix) prefix += "[";
      }
    } else {
      const literal = c === "\\" && i + 1 < source.length ? source[++i]! : c;
      regex += escapeRegex(literal);
      if (inPrefix) prefix += literal;
    }
    i++;
  }
  const re = new RegExp(`^${regex}$`);
  const prefixOnly = source === `${escapeGlobLiteral(prefix)}*`;
  return {
    source,
    prefix,
    prefixOnly,
    test: prefixOnly ? (name) => name.startsWith(prefix) : (name) => re.test(name),
  };
}

/** Reads `[...]` starting at `start`; undefined when it never closes (then `[` is literal). */
function readClass(source: string, start: number): { regex: string; end: number } | undefined {
  let i = start + 1;
  let negate = false;
  if (source[i] === "!" || source[i] === "^") {
    negate = true;
    i++;
  }
  let body = "";
  let first = true;
  for (; i < source.length; i++) {
    const c = source[i]!;
    if (c === "]" && !first) return { regex: `[${negate ? "^" : ""}${body}]`, end: i };
    first = false;
    if (c === "\\" && i + 1 < source.length) body += escapeClassChar(source[++i]!);
    else if (c === "-") body += "-";
    else body += escapeClassChar(c);
  }
  return undefined;
}

function escapeRegex(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

function escapeClassChar(c: string): string {
  return /[\]\\^[-]/.test(c) ? `\\${c}` : c;
}

function escapeGlobLiteral(text: string): string {
  return text.replace(/[*?[\\]/g, (c) => `\\${c}`);
}

/**
 * The names in `sorted` (code-point order) that match `pattern`, in order. Binary search finds the range
 * sharing the pattern's literal prefix; only that range is tested.
 */
export function matchSorted(pattern: ToolPattern, sorted: readonly string[]): string[] {
  const { prefix } = pattern;
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  const out: string[] = [];
  for (let i = lo; i < sorted.length; i++) {
    const name = sorted[i]!;
    if (!name.startsWith(prefix)) break;
    if (pattern.prefixOnly || pattern.test(name)) out.push(name);
  }
  return out;
}
