// The validators it writes are run in src/tools/builtin-schemas.test.ts, through the generated module of the
// built-in tools, against a run-time ajv compile; here, what the written module holds.
import { describe, expect, it } from "vitest";
import { standaloneValidators } from "./precompile.js";
import type { JsonSchema } from "./types.js";
import { schemaKey } from "./validate.js";

const a: JsonSchema = { type: "object", properties: { path: { type: "string", minLength: 1 } } };
const b: JsonSchema = { type: "object", properties: { n: { type: "integer", default: 3 } } };

/** The keys of the written map, in order. */
function keysOf(source: string): string[] {
  const map = source.slice(source.indexOf("new Map(["));
  return [...map.matchAll(/^ {2}\[("(?:[^"\\]|\\.)*"), v\d+\],$/gm)].map((m) => JSON.parse(m[1]!) as string);
}

describe("standaloneValidators", () => {
  it("writes one validator per distinct schema, found by its key, the same text every time", () => {
    const source = standaloneValidators([
      a,
      { $schema: "https://json-schema.org/draft/2020-12/schema", ...a },
      b,
    ]);
    expect(keysOf(source)).toEqual([schemaKey(a), schemaKey(b)]);
    expect(standaloneValidators([a, b])).toBe(source);
    expect(source).toContain("export const BUILTIN_VALIDATORS");
    // ajv's run-time helpers come through `require`, which the module makes for itself.
    expect(source).toContain("const require = createRequire(import.meta.url);");
  });
});
