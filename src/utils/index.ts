/**
 * @module utils
 * Helpers every folder may use, each written once: plain-data checks and transforms, small text
 * helpers, a once-only lazy loader, a seeded random generator, process groups, and the package's version. Imports nothing of toolgate's, so any folder (core and workspace included) can import it.
 * Not published; anything added here is shared with the whole code base.
 */
export { canonicalJson, deepFreeze, isPlainObject } from "./data.js";
export {
  compileGlob,
  type GitignoreRules,
  type GlobOptions,
  gitignoreRules,
  globBase,
  globRegex,
  isGitignorePath,
} from "./glob.js";
export { loadOnce } from "./load-once.js";
export {
  isNotPlainFile,
  NotPlainFileError,
  PLAIN_FILE_MAX_BYTES,
  type PlainReadOptions,
  readPlainFile,
  readPlainFileSync,
  whyUnread,
} from "./plain-file.js";
export { liveGroupMembers, signalGroup, spawnGroup, stopGroup } from "./process-group.js";
export { seededRandom } from "./random.js";
export { countLines, escapeRegex, normalizeHost } from "./text.js";
export { TOOLGATE_VERSION } from "./version.generated.js";
