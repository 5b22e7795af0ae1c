/**
 * @module state
 * The front door of persistent state: the state backend seam (file and in-process backends), the memory
 * and todo stores with their rules over any backend, where files live, and their errors.
 * Anything added here is public API.
 */
export type {
  Change,
  JsonValue,
  MemoryRecord,
  MemoryRecords,
  MemoryWrite,
  StateBackend,
  StateMeta,
  TodoList,
  TodoRecords,
  WriteOutcome,
} from "./backend.js";
export { StateError, type StateErrorCode } from "./errors.js";
export { createFileStateBackend, type FileStateBackendOptions } from "./file-backend.js";
export { withFileLock } from "./file-lock.js";
export { createInProcessStateBackend } from "./in-process-backend.js";
export type { StateLogger } from "./json-store.js";
export {
  createMemoryStore,
  type MemoryEntry,
  type MemoryRules,
  type MemoryStore,
  type MemoryStoreOptions,
  type MemoryWriteOptions,
  memoryKeyProblem,
  memoryValueProblem,
  openMemoryStore,
} from "./memory-store.js";
export {
  memoryFilePath,
  projectStateDir,
  type StateScope,
  todosFilePath,
  userConfigDir,
  userStateDir,
} from "./paths.js";
export {
  createTodoStore,
  openTodoStore,
  TODO_STATUSES,
  type TodoChange,
  type TodoItem,
  type TodoRules,
  type TodoStatus,
  type TodoStore,
  type TodoStoreOptions,
  todoTextProblem,
} from "./todo-store.js";
