/**
 * @module state
 * The front door of persistent state: memory and todo stores, where they live, and their errors.
 * Anything added here is public API.
 */
export { StateError, type StateErrorCode } from "./errors.js";
export { DEFAULT_STALE_MS, type FileLockOptions, lockPathFor, MIN_STALE_MS } from "./file-lock.js";
export type { StateLogger, StoreOptions } from "./json-store.js";
export {
  DEFAULT_MAX_VALUE_BYTES,
  MEMORY_KEY_PATTERN,
  type MemoryEntry,
  type MemoryStore,
  type MemoryStoreOptions,
  memoryKeyProblem,
  memoryValueProblem,
  openMemoryStore,
} from "./memory-store.js";
export {
  MEMORY_FILE,
  memoryFilePath,
  projectStateDir,
  type StateLocation,
  type StateScope,
  stateDirFor,
  TODOS_FILE,
  todosFilePath,
  type UserDirEnvironment,
  userConfigDir,
  userStateDir,
} from "./paths.js";
export {
  DEFAULT_MAX_TODOS,
  MAX_TODO_TEXT,
  openTodoStore,
  TODO_STATUSES,
  type TodoChange,
  type TodoItem,
  type TodoStatus,
  type TodoStore,
  type TodoStoreOptions,
  todoTextProblem,
} from "./todo-store.js";
