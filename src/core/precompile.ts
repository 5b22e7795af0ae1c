/**
 * @module core/precompile
 * Writes parameter validators ahead of time: ajv's standalone code for each tool's schema, compiled with the
 * options used at run time, as a module mapping each tool's name to its validator and the
 * {@link validationKey} it was compiled from. `core/validate.ts` uses one only while the tool's schema still
 * has that key, before it loads ajv. Used by `npm run generate` (src/generated.test.ts) to write
 * `builtin-validators.generated.ts`; not part of the library's run time.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import standalone from "ajv/dist/standalone/index.js";
import type { JsonSchema } from "./types.js";
import { COMPILE_OPTIONS, validationKey } from "./validate.js";

const HEADER = `// Generated from the built-in tools' schemas by \`npm run generate\` (src/generated.test.ts); do not edit.
// ajv's standalone code, one validator per distinct schema, found by tool name (core/validate.ts,
// core/precompile.ts). Descriptions are left out: rewording one changes nothing here.
// @ts-nocheck
`;

/** The source of a module exporting `BUILTIN_VALIDATORS`: each tool's name → its key and validator. */
export function standaloneValidators(tools: readonly { name: string; parameters: JsonSchema }[]): string {
  const ajv = new Ajv2020({ ...COMPILE_OPTIONS, code: { source: true, esm: true } });
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const keyOf = new Map(sorted.map((t) => [t.name, validationKey(t.parameters)]));
  const keys = [...new Set(keyOf.values())];
  const names: Record<string, string> = {};
  keys.forEach((key, i) => {
    ajv.addSchema(JSON.parse(key), `v${i}`);
    names[`v${i}`] = `v${i}`;
  });
  // The code asks for ajv's small run-time helpers with `require`, which an ES module gets this way.
  const code = standalone.default(ajv, names).replace(/^"use strict";/, "");
  const constants = keys.map((key, i) => `const k${i} = ${JSON.stringify(key)};`).join("\n");
  const entries = sorted
    .map((t) => {
      const i = keys.indexOf(keyOf.get(t.name)!);
      return `  [${JSON.stringify(t.name)}, { key: k${i}, validate: v${i} }],`;
    })
    .join("\n");
  return `${HEADER}import { createRequire } from "node:module";
import type { PrecompiledValidator } from "./validate.js";

const require = createRequire(import.meta.url);
${code}

${constants}

export const BUILTIN_VALIDATORS: ReadonlyMap<string, PrecompiledValidator> = new Map([
${entries}
]);
`;
}
