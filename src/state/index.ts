/**
 * @module state
 * The front door of persistent state: memory and todo stores, where they live, and their errors.
 * Anything added here is public API.
 */
export { StateError } from "./errors.js";
export { withFileLock } from "./file-lock.js";
export type { StateLogger } from "./json-store.js";
export {
  type MemoryEntry,
  type MemoryStore,
  type MemoryStoreOptions,
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
  openTodoStore,
  TODO_STATUSES,
  type TodoChange,
  type TodoItem,
  type TodoStatus,
  type TodoStore,
  type TodoStoreOptions,
  todoTextProblem,
} from "./todo-store.js";
