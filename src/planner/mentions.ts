/**
 * @module planner/mentions
 * Finds tool names mentioned in prose: whole identifiers only (CJK text around a name is a boundary,
 * letters, digits and `_` are not), in order of first mention, each once, and tells negated mentions
 * ("don't use jira_fetch", "不需要 web_fetch") from real ones, clause by clause.
 */
import { escapeRegex } from "../utils/index.js";
import { HARD_BOUNDARY, LIST_FILLER, POST_CUE, PRE_CUE, SOFT_BOUNDARY } from "./negation-cues.js";

/** One occurrence of a tool name. */
export interface Mention {
  name: string;
  index: number;
  end: number;
  negated: boolean;
}

/** Tools mentioned in a text: the ones to consider, in order, and the ones only ever rejected. */
export interface MentionedTools {
  positive: string[];
  negated: string[];
}

/** A name as a whole identifier: `jira_fetch` in `用jira_fetch查` but not in `myjira_fetch` or `jira_fetcher`. */
function identifierPattern(name: string): RegExp {
  return new RegExp(`(?<![A-Za-z0-9_]|[A-Za-z0-9_]-)${escapeRegex(name)}(?![A-Za-z0-9_]|-[A-Za-z0-9_])`, "g");
}

/** Every occurrence of every name, sorted by position (longer names win where two overlap). */
function occurrences(text: string, names: readonly string[]): Mention[] {
  const found: Mention[] = [];
  for (const name of new Set(names)) {
    for (const match of text.matchAll(identifierPattern(name))) {
      found.push({ name, index: match.index, end: match.index + name.length, negated: false });
    }
  }
  found.sort((a, b) => a.index - b.index || b.end - a.end);
  return found.filter((m, i) => i === 0 || m.index >= found[i - 1]!.end);
}

/** Splits [start, end) of `text` at every match of `boundary`, returning the pieces' ranges and cut kinds. */
function cut(text: string, start: number, end: number, boundary: RegExp): Array<[number, number, string]> {
  const pieces: Array<[number, number, string]> = [];
  const re = new RegExp(boundary.source, boundary.flags);
  re.lastIndex = 0;
  const slice = text.slice(start, end);
  let from = 0;
  let kind = "";
  for (const match of slice.matchAll(re)) {
    pieces.push([start + from, start + match.index, kind]);
    kind = match[0];
    from = match.index + match[0].length;
  }
  pieces.push([start + from, end, kind]);
  return pieces;
}

/** True when a clause holds nothing but tool names and list words: it continues the previous clause's list. */
function isListContinuation(clause: string, mentions: readonly Mention[], offset: number): boolean {
  let rest = clause;
  for (const m of [...mentions].reverse()) {
    rest = rest.slice(0, m.index - offset) + rest.slice(m.end - offset);
  }
  return mentions.length > 0 && rest.replace(LIST_FILLER, "").trim() === "";
}

/**
 * Every mention of the given names, each marked negated or not.
 * @example findMentions("Don't use jira_fetch, use vector_search.", ["jira_fetch", "vector_search"])
 */
export function findMentions(text: string, names: readonly string[]): Mention[] {
  const normalized = text.replace(/[’‘]/g, "'");
  const all = occurrences(normalized, names);
  if (all.length === 0) return [];
  let next = 0; // mentions and clauses are both in text order: walk them together
  for (const [sStart, sEnd] of cut(normalized, 0, normalized.length, HARD_BOUNDARY)) {
    if (next >= all.length) break;
    if (all[next]!.index >= sEnd) continue;
    let carried = false;
    for (const [cStart, cEnd, kind] of cut(normalized, sStart, sEnd, SOFT_BOUNDARY)) {
      const clause = normalized.slice(cStart, cEnd);
      const inClause: Mention[] = [];
      while (next < all.length && all[next]!.index < cEnd) {
        if (all[next]!.index >= cStart) inClause.push(all[next]!);
        next++;
      }
      const commaCut = kind === "," || kind === "，";
      let negatedFrom = Number.POSITIVE_INFINITY;
      if (commaCut && carried && isListContinuation(clause, inClause, cStart)) negatedFrom = cStart;
      const cue = new RegExp(PRE_CUE.source, PRE_CUE.flags).exec(clause);
      if (cue) negatedFrom = Math.min(negatedFrom, cStart + cue.index + cue[0].length);
      for (const m of inClause) {
        m.negated = m.index >= negatedFrom || POST_CUE.test(normalized.slice(m.end, cEnd));
      }
      carried = negatedFrom !== Number.POSITIVE_INFINITY;
    }
  }
  return all;
}

/**
 * The tools mentioned in `text`: those with at least one non-negated mention, in order of their first such
 * mention, and those mentioned only negated.
 */
export function mentionedTools(text: string, names: readonly string[]): MentionedTools {
  const positive: string[] = [];
  const seen = new Set<string>();
  const mentions = findMentions(text, names);
  for (const m of mentions) {
    if (!m.negated && !seen.has(m.name)) {
      seen.add(m.name);
      positive.push(m.name);
    }
  }
  const negated = [...new Set(mentions.filter((m) => m.negated && !seen.has(m.name)).map((m) => m.name))];
  return { positive, negated };
}
