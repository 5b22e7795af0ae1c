/**
 * @module mcp/annotations
 * The annotations toolgate advertises for a tool it serves are never looser than what its policy says:
 * the stricter of the tool's own hints (an upstream server's, or ours from kind and risk) and the hints the
 * policy's verdict for the tool implies (a tool the policy asks about or denies is not advertised as
 * read-only or non-destructive). Which value of each hint is stricter, and what each verdict implies, is the
 * table in `annotation-strictness.json`.
 */
import type { Decision, RiskLevel } from "../core/index.js";
import TABLE from "./annotation-strictness.json" with { type: "json" };

/** The MCP hints this module reasons about. */
export type HintName = "readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint";
export type Hints = Partial<Record<HintName, boolean>>;

/** What the policy says about a tool as such (no arguments): its decision and risk. */
export interface PolicyVerdict {
  decision: Decision;
  risk?: RiskLevel;
}

export interface StrictnessTable {
  hints: Record<HintName, { stricter: boolean; absent: boolean }>;
  decisions: Record<Decision, Hints>;
  risks: Record<RiskLevel, Hints>;
}

const HINTS: readonly HintName[] = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];
const DECISIONS: readonly Decision[] = ["allow", "ask", "deny"];
const RISKS: readonly RiskLevel[] = ["low", "medium", "high"];

/** Reads the strictness table, refusing a malformed one (a wrong entry would loosen what clients are told). */
export function loadStrictnessTable(table: unknown): StrictnessTable {
  const t = (table ?? {}) as Record<string, unknown>;
  const object = (value: unknown, where: string) => {
    if (value === null || typeof value !== "object" || Array.isArray(value))
      throw new Error(`annotation table: ${where} must be an object`);
    return value as Record<string, unknown>;
  };
  const hintsIn = object(t.hints, "`hints`");
  const hints = {} as StrictnessTable["hints"];
  for (const name of HINTS) {
    const entry = object(hintsIn[name], `hints.${name}`);
    if (typeof entry.stricter !== "boolean" || typeof entry.absent !== "boolean")
      throw new Error(`annotation table: hints.${name} needs boolean \`stricter\` and \`absent\``);
    hints[name] = { stricter: entry.stricter, absent: entry.absent };
  }
  for (const name of Object.keys(hintsIn))
    if (!HINTS.includes(name as HintName)) throw new Error(`annotation table: unknown hint ${name}`);
  const implied = <K extends string>(key: string, names: readonly K[]) => {
    const section = object(t[key], `\`${key}\``);
    const out = {} as Record<K, Hints>;
    for (const k of Object.keys(section))
      if (!names.includes(k as K)) throw new Error(`annotation table: unknown ${key} entry ${k}`);
    for (const k of names) {
      const entry = object(section[k], `${key}.${k}`);
      const hintsOf: Hints = {};
      for (const [hint, value] of Object.entries(entry)) {
        if (!HINTS.includes(hint as HintName))
          throw new Error(`annotation table: ${key}.${k}: unknown hint ${hint}`);
        if (typeof value !== "boolean")
          throw new Error(`annotation table: ${key}.${k}.${hint} must be a boolean`);
        hintsOf[hint as HintName] = value;
      }
      out[k] = hintsOf;
    }
    return out;
  };
  return { hints, decisions: implied("decisions", DECISIONS), risks: implied("risks", RISKS) };
}

const STRICTNESS = loadStrictnessTable(TABLE);

/**
 * The annotations to advertise: `own` with each hint the verdict speaks about set to the stricter of the
 * two (an absent hint counts as its MCP default). Without a verdict, `own` unchanged. Other fields (title,
 * anything a server added) pass through.
 * @example stricterAnnotations({ readOnlyHint: true }, { decision: "ask" }) // { readOnlyHint: false, destructiveHint: true }
 */
export function stricterAnnotations<A extends Hints & Record<string, unknown>>(
  own: A | undefined,
  verdict: PolicyVerdict | undefined,
  table: StrictnessTable = STRICTNESS,
): A | undefined {
  if (!verdict) return own;
  const implied: Hints = {};
  for (const source of [table.decisions[verdict.decision], verdict.risk ? table.risks[verdict.risk] : {}])
    for (const [hint, value] of Object.entries(source ?? {}) as [HintName, boolean][])
      implied[hint] = stricterOf(hint, implied[hint] ?? value, value, table);
  if (Object.keys(implied).length === 0) return own;
  const out = { ...(own ?? {}) } as Record<string, unknown>;
  for (const [hint, value] of Object.entries(implied) as [HintName, boolean][]) {
    const mine = typeof own?.[hint] === "boolean" ? (own[hint] as boolean) : table.hints[hint].absent;
    out[hint] = stricterOf(hint, mine, value, table);
  }
  return out as A;
}

function stricterOf(hint: HintName, a: boolean, b: boolean, table: StrictnessTable): boolean {
  const { stricter } = table.hints[hint];
  return a === stricter || b === stricter ? stricter : !stricter;
}
