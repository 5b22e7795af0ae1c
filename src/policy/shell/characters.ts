/**
 * @module policy/shell/characters
 * Loads `characters.json` (the control and unusual characters that make a command unanalysable) into two
 * tests, checking it when the module loads: a malformed range fails start-up, never a call.
 */
import DATA from "./characters.json" with { type: "json" };

/** One inclusive range of code points, with why it is listed. */
export interface CharacterRange {
  from: string;
  to: string;
  why: string;
}

const HEX = /^[0-9A-F]{4,6}$/;

/** A regular expression matching any character of `ranges`; throws naming the table and entry at fault. */
export function characterClass(ranges: unknown, table: string): RegExp {
  if (!Array.isArray(ranges) || ranges.length === 0)
    throw new Error(`characters.json: ${table} must be a non-empty list of ranges`);
  const parts = ranges.map((range: Partial<CharacterRange>, i) => {
    const where = `${table}[${i}]`;
    if (
      typeof range?.from !== "string" ||
      !HEX.test(range.from) ||
      typeof range.to !== "string" ||
      !HEX.test(range.to)
    )
      throw new Error(`characters.json: ${where}: from and to must be upper-case hex code points`);
    if (typeof range.why !== "string" || range.why === "")
      throw new Error(`characters.json: ${where}: say why the range is listed`);
    const from = Number.parseInt(range.from, 16);
    const to = Number.parseInt(range.to, 16);
    if (from > to || to > 0x10ffff) throw new Error(`characters.json: ${where}: not a range of code points`);
    return `\\u{${range.from}}-\\u{${range.to}}`;
  });
  return new RegExp(`[${parts.join("")}]`, "u");
}

/** Control characters (C0 but tab and newline, and DEL). */
export const CONTROL_CHARACTERS: RegExp = characterClass(DATA.control, "control");
/** Characters bash reads as word characters but a reader may take for spacing. */
export const UNUSUAL_CHARACTERS: RegExp = characterClass(DATA.unusual, "unusual");
