/**
 * @module workspace
 * Front door of the workspace, published as `toolgate/workspace`: allowed roots and path containment,
 * protected paths, safe file IO, encodings, ignore rules and the trust store. Imports nothing else of
 * toolgate's. Everything exported here is public (a test pins the list).
 */
export { type AtomicWriteOptions, writeFileAtomic } from "./atomic-write.js";
export {
  createDecoder,
  type DecodedText,
  decodeText,
  detectEncoding,
  encodeText,
  SNIFF_BYTES,
  toLf,
  withLineEnding,
} from "./encoding.js";
export { isErrno, WorkspaceError, type WorkspaceErrorCode } from "./errors.js";
export { IgnoreRules } from "./ignore.js";
export { isInsideOrEqual } from "./paths.js";
export {
  DEFAULT_READ_ASK_PATTERNS,
  PathPatternSet,
  PROTECTED_ENTRIES,
  type ProtectedEntry,
  USER_SECRET_PATHS,
  WORKSPACE_SECRET_PATHS,
} from "./protected.js";
export { openForRead, readChecked, tooLarge, type WriteCheckedOptions, writeChecked } from "./safe-io.js";
export {
  contentDigest,
  type FileContent,
  type FileTrust,
  type FileTrustState,
  fileKey,
  fileTrust,
  fixedTrust,
  folderTrusted,
  readTrustedFolders,
  type TrustedFile,
  type TrustedFolder,
  type TrustLookup,
  type TrustStoreLocation,
  trustLookup,
  trustStorePath,
  untrustedBecause,
  untrustedReason,
  writeTrustedFolders,
} from "./trust.js";
export {
  everyFileTrusted,
  TRUSTED_FILES,
  type TrustedFileSpec,
  trustedFileKinds,
  trustedFilesOf,
} from "./trusted-files.js";
export {
  DEFAULT_MAX_FILE_BYTES,
  type PathIntent,
  type ResolvedPath,
  Workspace,
  type WorkspaceOptions,
} from "./workspace.js";
