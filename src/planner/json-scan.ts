/**
 * @module planner/json-scan
 * Finding JSON inside prose: a balanced-bracket scanner that respects strings and escapes, a parser that
 * forgives only trailing commas, and a search for every top-level JSON value in a text. Broken JSON yields
 * nothing, never a guess.
 */

/** Total characters the scanner may visit per search: bounds the cost of adversarial `{{{{…` replies. */
const SCAN_BUDGET_FACTOR = 16;
/** Where a call-bearing value can start: an object with a key (or empty), or an array of values. */
const VALUE_START = /[{[]/g;
const PLAUSIBLE = /\{\s*"|\[\s*[{[]/y;

/**
 * Returns the index just past the bracket that closes the one at `start` (`{` or `[`), or -1 when the
 * brackets never balance or are mismatched. Brackets inside JSON strings are ignored.
 * @example balancedEnd('x {"a": "}"} y', 2) // 12
 */
export function balancedEnd(
  text: string,
  start: number,
  budget = { left: Number.POSITIVE_INFINITY },
): number {
  const first = text[start];
  if (first !== "{" && first !== "[") return -1;
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    if (--budget.left < 0) return -1;
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{") stack.push("}");
    else if (ch === "[") stack.push("]");
    else if (ch === "}" || ch === "]") {
      if (stack.pop() !== ch) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

/** Removes commas that directly precede `}` or `]` (outside strings): the one repair models need often. */
export function removeTrailingCommas(json: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const ch = json[i]!;
    if (inString) {
      out += ch;
      if (ch === "\\" && i + 1 < json.length) out += json[++i];
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    if (ch === ",") {
      let j = i + 1;
      while (j < json.length && /\s/.test(json[j]!)) j++;
      if (json[j] === "}" || json[j] === "]") continue;
    }
    out += ch;
  }
  return out;
}

/** Parses JSON, forgiving trailing commas only. Returns `undefined` for anything else that is broken. */
export function parseJsonLenient(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    try {
      return { value: JSON.parse(removeTrailingCommas(text)) };
    } catch {
      return undefined;
    }
  }
}

/** A JSON value found in a text, with where it was. */
export interface FoundJson {
  value: unknown;
  start: number;
  end: number;
}

/**
 * Every top-level JSON object (with a key) or array (of objects or arrays) in `text`, in order — the only
 * shapes that can hold a call. Scanning is bounded by a budget proportional to the text. A candidate that does not balance or does not
 * parse is passed over (its inner brackets are still tried, so `[ {…}` still finds the object).
 * `accept` filters values; a rejected value's inside is searched too.
 */
export function findJsonValues(text: string, accept: (value: unknown) => boolean = () => true): FoundJson[] {
  const found: FoundJson[] = [];
  const budget = { left: Math.max(10_000, text.length * SCAN_BUDGET_FACTOR) };
  const starts = new RegExp(VALUE_START.source, "g");
  for (let match = starts.exec(text); match !== null && budget.left > 0; match = starts.exec(text)) {
    const i = match.index;
    // `{{{{` and `[1, 2]` cannot hold a call: skip them without scanning.
    PLAUSIBLE.lastIndex = i;
    if (!PLAUSIBLE.test(text)) continue;
    const end = balancedEnd(text, i, budget);
    if (end < 0) continue;
    const parsed = parseJsonLenient(text.slice(i, end));
    if (parsed && accept(parsed.value)) {
      found.push({ value: parsed.value, start: i, end });
      starts.lastIndex = end;
    }
  }
  return found;
}
