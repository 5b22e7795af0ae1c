/**
 * @module config/defaults
 * The settings of a workspace with no config at all, without loading the schema: zod and the schema cost
 * ~20 ms of every start-up, and a gate with nothing to validate should not pay it. The values are the
 * schema's own `.default`s, written into `defaults.generated.ts` by `npm run generate` (a test fails while
 * that file is stale), so they are said once, in `schema.ts`.
 */

import { isPlainObject } from "../utils/index.js";
import { CONFIG_DEFAULTS } from "./defaults.generated.js";
import type { ToolgateSettings } from "./schema.js";

export { CONFIG_DEFAULTS };

/** `settingsFromConfig({})`: every default applied, camelCase keys; a fresh copy the caller may change. */
export function defaultSettings(): ToolgateSettings {
  return camelKeys(structuredClone(CONFIG_DEFAULTS)) as ToolgateSettings;
}

/** `{ max_chars: 1 }` → `{ maxChars: 1 }`, at every depth (arrays are kept as they are). */
export function camelKeys(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
      camelKeys(v),
    ]),
  );
}
