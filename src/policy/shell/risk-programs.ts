/**
 * @module policy/shell/risk-programs
 * Loads `risk-programs.json` (which program names make a command read-only, high risk, a download or a
 * stdin interpreter), validating it when the module loads: a misspelt key or a pattern that does not
 * compile fails at start-up, never by silently matching nothing.
 */
import DATA from "./risk-programs.json" with { type: "json" };

/** A set of program names: exact names plus anchored patterns on the base name. */
export interface ProgramSet {
  has(name: string): boolean;
}

/** The loaded tables. */
export interface RiskPrograms {
  readOnly: ProgramSet;
  gitReadOnly: ProgramSet;
  /** True for a `find` word that deletes, writes or runs. */
  findActs(word: string): boolean;
  disk: ProgramSet;
  power: ProgramSet;
  privilege: ProgramSet;
  download: ProgramSet;
  runsStdin: ProgramSet;
}

const SETS = ["disk", "power", "privilege", "download", "runsStdin"] as const;
const KEYS = new Set(["about", "readOnly", "gitReadOnly", "findActs", ...SETS]);

function strings(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || v === ""))
    throw new Error(`risk-programs.json: ${where} must be a list of non-empty strings`);
  return value as string[];
}

function anchored(source: string, where: string): RegExp {
  try {
    return new RegExp(`^(?:${source})$`);
  } catch (error) {
    throw new Error(`risk-programs.json: ${where}: ${(error as Error).message}`);
  }
}

function programSet(value: unknown, where: string): ProgramSet {
  if (Array.isArray(value)) {
    const names = new Set(strings(value, where));
    return { has: (name) => names.has(name) };
  }
  const entry = (value ?? {}) as Record<string, unknown>;
  const extra = Object.keys(entry).find((k) => k !== "names" && k !== "namePatterns");
  if (typeof value !== "object" || value === null || extra !== undefined)
    throw new Error(`risk-programs.json: ${where} has ${extra ? `an unknown key "${extra}"` : "no names"}`);
  const names = new Set(strings(entry["names"] ?? [], `${where}.names`));
  const patterns = strings(entry["namePatterns"] ?? [], `${where}.namePatterns`).map((p, i) =>
    anchored(p, `${where}.namePatterns[${i}]`),
  );
  return { has: (name) => names.has(name) || patterns.some((re) => re.test(name)) };
}

/** Checks and compiles the tables; throws naming the entry at fault. */
export function loadRiskPrograms(data: unknown): RiskPrograms {
  const raw = (data ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(raw).find((k) => !KEYS.has(k));
  if (unknown !== undefined) throw new Error(`risk-programs.json: unknown key "${unknown}"`);
  for (const key of KEYS)
    if (key !== "about" && raw[key] === undefined) throw new Error(`risk-programs.json: "${key}" is missing`);
  if (typeof raw["findActs"] !== "string") throw new Error("risk-programs.json: findActs must be a pattern");
  const findActs = anchored(raw["findActs"], "findActs");
  return {
    readOnly: programSet(strings(raw["readOnly"], "readOnly"), "readOnly"),
    gitReadOnly: programSet(strings(raw["gitReadOnly"], "gitReadOnly"), "gitReadOnly"),
    findActs: (word) => findActs.test(word),
    disk: programSet(raw["disk"], "disk"),
    power: programSet(raw["power"], "power"),
    privilege: programSet(raw["privilege"], "privilege"),
    download: programSet(raw["download"], "download"),
    runsStdin: programSet(raw["runsStdin"], "runsStdin"),
  };
}

/** The tables of `risk-programs.json`. */
export const RISK_PROGRAMS: RiskPrograms = loadRiskPrograms(DATA);
