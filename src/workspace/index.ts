/**
 * @module workspace
 * Front door of the workspace: allowed roots and path containment, protected paths, safe file IO, encodings
 * and ignore rules. Imports nothing else of toolgate's.
 */
export { type AtomicWriteOptions, writeFileAtomic } from "./atomic-write.js";
export {
  createDecoder,
  type DecodedText,
  type Detection,
  decodeText,
  detectEncoding,
  detectLineEnding,
  type EncodingInfo,
  encodeText,
  type LineEnding,
  looksBinary,
  SNIFF_BYTES,
  toLf,
  withLineEnding,
} from "./encoding.js";
export { isErrno, WorkspaceError, type WorkspaceErrorCode } from "./errors.js";
export { findGitTop, IgnoreRules } from "./ignore.js";
export { canonicalize, isInsideOrEqual, pathSyntaxProblem, relativeInside } from "./paths.js";
export {
  DEFAULT_PROTECTED_PATTERNS,
  DEFAULT_READ_ASK_PATTERNS,
  PathPatternSet,
  PROTECTED_ENTRIES,
  type ProtectedEntry,
  USER_SECRET_PATHS,
  WORKSPACE_SECRET_PATHS,
} from "./protected.js";
export {
  ensureParentDirs,
  openForRead,
  readChecked,
  tooLarge,
  type WriteCheckedOptions,
  writeChecked,
} from "./safe-io.js";
export {
  isTrusted,
  isTrustedFolder,
  readTrustedFolders,
  type TrustedFolder,
  type TrustStoreLocation,
  trustFolder,
  trustStorePath,
  untrustFolder,
} from "./trust.js";
export {
  DEFAULT_MAX_FILE_BYTES,
  type PathIntent,
  type ResolvedPath,
  Workspace,
  type WorkspaceOptions,
} from "./workspace.js";
