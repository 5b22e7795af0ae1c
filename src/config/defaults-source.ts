/**
 * @module config/defaults-source
 * Writes `defaults.generated.ts`: the schema's `.default`s as plain data, so a gate with no config file gets
 * them without loading zod (`defaults.ts`). Used by `npm run generate` (src/generated.test.ts, which fails
 * while the file is stale); not part of the library's run time.
 */
import { CONFIG_SCHEMA } from "./schema.js";

/** Where the module is written, from the repository's root. */
export const DEFAULTS_MODULE = "src/config/defaults.generated.ts";

/**
 * The module's source: `CONFIG_SCHEMA.parse({})` — every section, each with the keys that have a default
 * (snake_case, as written in the file), deep-frozen. Keys without a default are left out, as the schema
 * leaves them out.
 */
export function defaultsModule(): string {
  const defaults = JSON.stringify(CONFIG_SCHEMA.parse({}), null, 2);
  return `// Generated from src/config/schema.ts by \`npm run generate\` (src/generated.test.ts); do not edit.
import { deepFreeze } from "../utils/index.js";

/** Every section of the config file, each with its keys that have a default: the schema's own \`.default\`s. */
export const CONFIG_DEFAULTS = deepFreeze(${defaults});
`;
}
