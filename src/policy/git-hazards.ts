/**
 * @module policy/git-hazards
 * Loads `git-hazards.json`: the repository config keys that make git run a program (flagged), those
 * toolgate's own switches neutralise (listed, not flagged), and when git goes into submodules. Validated
 * when the module loads: a malformed entry fails start-up, never a call.
 */
import DATA from "./git-hazards.json" with { type: "json" };

/** One key of `git-hazards.json`, compiled. */
export interface GitHazardKey {
  /** As written in the data (`filter.*.clean`). */
  readonly key: string;
  readonly section: string;
  /** `*`: any subsection; absent: the key has none; `any` below: whatever it has. */
  readonly subsection?: string;
  /** `*`: any name. */
  readonly name: string;
  /** The whole section (`man.**`). */
  readonly any: boolean;
  readonly valueStartsWith?: string;
  /** What runs. */
  readonly does: string;
  /** Where git documents it. */
  readonly doc: string;
  /** The toolgate switch that overrides it (neutralised keys only). */
  readonly neutralisedBy?: string;
}

/** A key as git config files spell it: section and name lower-case, subsection as written. */
export interface GitConfigEntry {
  section: string;
  subsection?: string;
  name: string;
  value: string;
}

const ENTRY_KEYS = new Set(["key", "does", "doc", "valueStartsWith", "neutralisedBy"]);

function compileKey(raw: Record<string, unknown>, where: string): GitHazardKey {
  const fail = (message: string): never => {
    throw new Error(`git-hazards.json ${where}: ${message}`);
  };
  const extra = Object.keys(raw).find((k) => !ENTRY_KEYS.has(k));
  if (extra !== undefined) fail(`unknown key "${extra}"`);
  const { key, does, doc, valueStartsWith, neutralisedBy } = raw;
  if (typeof key !== "string" || key !== key.toLowerCase()) fail("key must be a lower-case string");
  if (typeof does !== "string" || does === "" || typeof doc !== "string" || doc === "")
    fail("does and doc must say what runs and where git documents it");
  const parts = (key as string).split(".");
  if (parts.length < 2 || parts.length > 3 || parts.some((p) => p === "")) fail(`malformed key ${key}`);
  const any = parts.length === 2 && parts[1] === "**";
  return {
    key: key as string,
    section: parts[0]!,
    name: parts.at(-1)!,
    any,
    ...(parts.length === 3 ? { subsection: parts[1]! } : {}),
    ...(typeof valueStartsWith === "string" ? { valueStartsWith } : {}),
    does: does as string,
    doc: doc as string,
    ...(typeof neutralisedBy === "string" ? { neutralisedBy } : {}),
  };
}

const list = (value: unknown, where: string): Record<string, unknown>[] => {
  if (!Array.isArray(value)) throw new Error(`git-hazards.json ${where}: must be a list`);
  return value as Record<string, unknown>[];
};

/** Keys whose program a repository's config can make git run: flagged. */
export const GIT_HAZARD_KEYS: readonly GitHazardKey[] = Object.freeze(
  list(DATA.keys, "keys").map((k, i) => compileKey(k, `keys[${i}]`)),
);

/** Keys that name a program but that toolgate's own switches override: listed, not flagged. */
export const NEUTRALISED_GIT_KEYS: readonly GitHazardKey[] = Object.freeze(
  list(DATA.neutralised, "neutralised").map((k, i) => {
    const key = compileKey(k, `neutralised[${i}]`);
    if (key.neutralisedBy === undefined)
      throw new Error(`git-hazards.json neutralised[${i}]: neutralisedBy must name the switch`);
    return key;
  }),
);

/** When git goes into submodules (and so runs their configs' programs too). */
export const SUBMODULE_RECURSION = Object.freeze({
  subcommands: new Set(DATA.submodules.subcommands),
  options: Object.freeze([...DATA.submodules.options]),
  configKeys: Object.freeze([...DATA.submodules.configKeys]),
});

/**
 * Whether a config entry is the key.
 * @example keyMatches({ section: "diff", subsection: "x", name: "textconv", value: "cat" }, key("diff.*.textconv")) // true
 */
export function keyMatches(entry: GitConfigEntry, key: GitHazardKey): boolean {
  if (entry.section !== key.section) return false;
  if (!key.any) {
    if (key.subsection === undefined ? entry.subsection !== undefined : entry.subsection === undefined)
      return false;
    if (key.subsection !== undefined && key.subsection !== "*" && key.subsection !== entry.subsection)
      return false;
    if (key.name !== "*" && entry.name !== key.name) return false;
  }
  return key.valueStartsWith === undefined || entry.value.startsWith(key.valueStartsWith);
}

/** The spelled key of an entry (`diff.x.textconv`). */
export function spellEntry(entry: GitConfigEntry): string {
  return [entry.section, entry.subsection, entry.name].filter((p) => p !== undefined).join(".");
}

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/**
 * The markdown tables `docs/trust.md` shows, generated from the data (a test fails when the page is stale):
 * the keys that are flagged, then those toolgate's switches neutralise.
 * @example gitHazardTables().split("\n")[0] // "| key | what runs | documented in |"
 */
export function gitHazardTables(): string {
  const flagged = GIT_HAZARD_KEYS.map((k) => {
    const form = k.valueStartsWith === undefined ? "" : ` (a value starting with \`${k.valueStartsWith}\`)`;
    return `| \`${k.key}\`${form} | ${cell(k.does)} | ${cell(k.doc)} |`;
  });
  const neutralised = NEUTRALISED_GIT_KEYS.map(
    (k) => `| \`${k.key}\` | ${cell(k.does)} | ${cell(k.neutralisedBy!)} |`,
  );
  return [
    "| key | what runs | documented in |",
    "| --- | --- | --- |",
    ...flagged,
    "",
    "Keys that name a program too, but that toolgate's own switches override (not flagged):",
    "",
    "| key | what would run | overridden by |",
    "| --- | --- | --- |",
    ...neutralised,
  ].join("\n");
}
