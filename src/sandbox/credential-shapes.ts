/**
 * @module sandbox/credential-shapes
 * Whether a git config key or value looks like it carries a credential (credential-shapes.json): the second
 * line of the copies of git config a sandboxed command sees, behind their choice of keys.
 */
import data from "./credential-shapes.json" with { type: "json" };

const SHAPES = data.shapes.map((s) => ({
  pattern: new RegExp(s.pattern, s.caseSensitive ? "" : "i"),
  valuesOnly: s.valuesOnly === true,
}));

/**
 * Whether `text` (a value, or with `key` a key) has a credential's shape.
 * @example credentialShaped("pull https://x.com -c http.extraHeader=X-Api-Key:ghp_0123456789abcdef") // true
 * @example credentialShaped("status -sb") // false
 */
export function credentialShaped(text: string, key = false): boolean {
  return SHAPES.some((s) => (!key || !s.valuesOnly) && s.pattern.test(text));
}
