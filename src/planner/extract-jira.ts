/**
 * @module planner/extract-jira
 * Jira issue keys in free text: `PROJ-123`, found even glued to CJK text (`PROJ-123的状态`), never
 * `UTF-8`, `GPT-4`, `SHA-256`, `ISO-8601` or `COVID-19`. Boundaries are ASCII letters and digits, not `\b`
 * (which treats CJK characters as word characters in Unicode mode and misses glued keys).
 */

/**
 * Tokens shaped like issue keys that are standards, encodings, hashes, models, products or diseases.
 * Data, not code: extend it when a false positive turns up.
 */
export const NOT_JIRA_PROJECTS: ReadonlySet<string> = new Set([
  // encodings and character sets
  "UTF",
  "UCS",
  "ISO",
  "IEC",
  "CP",
  "WIN",
  "GB",
  "BIG",
  "EUC",
  "KOI",
  "ASCII",
  "LATIN",
  // hashes, ciphers, crypto
  "SHA",
  "MD",
  "AES",
  "DES",
  "RSA",
  "ECDSA",
  "HMAC",
  "BASE",
  "CRC",
  "TLS",
  "SSL",
  "PBKDF",
  "ARGON",
  // standards bodies and documents
  "RFC",
  "PEP",
  "JSR",
  "ECMA",
  "ES",
  "IEEE",
  "ANSI",
  "DIN",
  "EN",
  "BS",
  "NIST",
  "FIPS",
  "PCI",
  "WCAG",
  "CWE",
  "CVE",
  "GHSA",
  "OWASP",
  "ITU",
  "RFCS",
  // models and products
  "GPT",
  "LLAMA",
  "QWEN",
  "CLAUDE",
  "GEMINI",
  "PALM",
  "BERT",
  "GLM",
  "YI",
  "PHI",
  "MISTRAL",
  "MIXTRAL",
  "DEEPSEEK",
  "T5",
  "DALL",
  "SD",
  "SDXL",
  "WIN32",
  "IPV",
  "IP",
  "HTTP",
  "HTTPS",
  "USB",
  "HDMI",
  "DDR",
  "LPDDR",
  "PCIE",
  "WPA",
  "MP",
  "MPEG",
  "PS",
  "XBOX",
  "LTE",
  "NR",
  "G",
  "A",
  "B",
  // health and misc.
  "COVID",
  "SARS",
  "MERS",
  "H1N1",
  "HIV",
  "TOP",
  "Q",
  "FY",
  "MIL",
  "ROUND",
  "STEP",
  "PHASE",
  "DAY",
  "WEEK",
]);

/** Options for {@link findJiraKeys}. */
export interface JiraKeyOptions {
  /** When given, only keys of these projects count (the denylist is then not needed). */
  projectKeys?: readonly string[];
}

// Project: a letter then 1–9 letters, digits or `_` (2–10 chars). Number: no leading zero.
// Not preceded by a letter, digit, `_` or `-`; not followed by a letter, digit, `_`, nor by `.5` / `-2`
// (versions such as `GPT-4.5`, compound codes such as `CVE-2024-1234`).
const KEY = /(?<![A-Za-z0-9_-])([A-Z][A-Z0-9_]{1,9})-([1-9][0-9]{0,8})(?![A-Za-z0-9_]|[.-][0-9])/g;

/**
 * Issue keys in `text`, in order, without duplicates.
 * @example findJiraKeys("PROJ-123的状态？UTF-8 呢") // ["PROJ-123"]
 */
export function findJiraKeys(text: string, options: JiraKeyOptions = {}): string[] {
  const allowed = options.projectKeys?.length
    ? new Set(options.projectKeys.map((k) => k.toUpperCase()))
    : null;
  const keys: string[] = [];
  for (const match of text.matchAll(KEY)) {
    const project = match[1]!;
    if (allowed ? !allowed.has(project) : NOT_JIRA_PROJECTS.has(project)) continue;
    const key = `${project}-${match[2]}`;
    if (!keys.includes(key)) keys.push(key);
  }
  return keys;
}

/** The first issue key in `text`, if any. */
export function findJiraKey(text: string, options: JiraKeyOptions = {}): string | undefined {
  return findJiraKeys(text, options)[0];
}
