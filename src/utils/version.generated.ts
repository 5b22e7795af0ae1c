// Generated from package.json by scripts/version.mjs (`npm run build`, `npm run generate`); do not edit.
/** toolgate's version, as package.json gives it. */
export const TOOLGATE_VERSION = "0.1.0";
