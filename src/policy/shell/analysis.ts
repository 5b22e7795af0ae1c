/**
 * @module policy/shell/analysis
 * The shape of a command analysis: what the policy knows of a command string once it is parsed.
 */
import type { RiskLevel } from "../../core/index.js";
import type { CommandPlace } from "./places.js";
import type { Finding } from "./programs/index.js";

export type { CommandPlace } from "./places.js";

/** A program finding located in the analysis: `command` indexes `CommandAnalysis.commands`. */
export interface CommandFinding extends Finding {
  readonly command: number;
}

/** What a command string means, as far as the policy is concerned. */
export interface CommandAnalysis {
  /** The command as given. */
  text: string;
  /** False when the command did not parse (or was too long or too deeply nested to analyse). */
  ok: boolean;
  /**
   * Unquoted words of every sub-command: across `;` `&&` `||` `|` and newlines, inside subshells, `$(...)`,
   * backquotes and `<(...)`, and the commands wrappers run (`sudo rm x` also yields `rm x`). Brace and
   * glob patterns are expanded (`ls *.md` → `ls a.md b.md`): these are the words that run.
   */
  commands: string[][];
  /** Where each command of `commands` runs (its folder after `cd`, its `NAME=VALUE` prefixes). */
  places: CommandPlace[];
  /**
   * The command with every brace and glob expansion written out as the quoted words analysed
   * (`ls 'a.md' 'b.md'`), when there was one: the call runs this text, so what runs is what was checked.
   */
  expanded?: string;
  /** Why a prefix rule cannot vouch for the command (`redirection`, `wrapper: bash -c`, ...). Empty: plain. */
  unsafe: string[];
  /** Each pipeline's stages, as indexes into `commands`. */
  pipelines: number[][];
  /**
   * Arguments that take a command beyond its program's plain role (`find -delete`, `sed 'e CMD'`), each
   * with the index of its command in `commands`. A prefix rule vouches for one only when it covers the
   * word that carries it (`prefix = "npm test"` vouches for `npm test`; `prefix = "npm"` does not).
   */
  findings: CommandFinding[];
  /**
   * Indexes into `commands` of commands found inside a program's script (`awk 'BEGIN{system("CMD")}'`,
   * `sed 'e CMD'`): deny rules see them; allow rules need not name them, as the finding already asks.
   */
  scriptCommands: number[];
  risk: RiskLevel;
  /** Why the risk is what it is. */
  riskReasons: string[];
}
