/**
 * @module scripts/version
 * Writes `src/utils/version.generated.ts` from package.json's `version`, so the code names the version once,
 * where npm keeps it. `npm run build` runs it first; `src/generated.test.ts` fails while the file is stale.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Where the module is written, from the repository's root. */
export const VERSION_MODULE = "src/utils/version.generated.ts";

/** The module's source for a package.json's text. */
export function versionModule(packageJson) {
  const { version } = JSON.parse(packageJson);
  if (typeof version !== "string" || version === "") throw new Error("package.json has no version");
  return `// Generated from package.json by scripts/version.mjs (\`npm run build\`, \`npm run generate\`); do not edit.
/** toolgate's version, as package.json gives it. */
export const TOOLGATE_VERSION = ${JSON.stringify(version)};
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const source = versionModule(readFileSync(join(root, "package.json"), "utf8"));
  const file = join(root, VERSION_MODULE);
  let current;
  try {
    current = readFileSync(file, "utf8");
  } catch {
    current = undefined;
  }
  // Written only when it changed, so a build leaves the tree as it was.
  if (current !== source) writeFileSync(file, source);
}
