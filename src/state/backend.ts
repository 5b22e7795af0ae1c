/**
 * @module state/backend
 * The state backend seam: where memory and todos are kept (files by default; in process; later Redis), as
 * plain versioned records. The rules — memory keys and value caps, todo ids, statuses and the
 * one-in-progress rule, every error message — live once above it, in `memory-store.ts` and `todo-store.ts`.
 * Types only. Every implementation passes the contract suite (`src/test-support/state-backend-contract.ts`).
 */
import type { StateScope } from "./paths.js";

/** A JSON value, as `meta` may hold it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * Metadata kept with a memory value and returned unchanged by every backend (information-flow labels will
 * live here). Plain JSON only.
 */
export type StateMeta = { [field: string]: JsonValue };

/**
 * One memory value as stored. `revision` is an opaque token of the record's content: equal tokens mean an
 * equal record, and a write that changes the record changes it. Compare it, never parse it.
 */
export interface MemoryRecord {
  key: string;
  value: string;
  meta?: StateMeta;
  /** ISO 8601 time of the last write. */
  updatedAt: string;
  revision: string;
}

/** What a memory write stores (the rules layer has checked it). */
export interface MemoryWrite {
  value: string;
  meta?: StateMeta;
  updatedAt: string;
}

/**
 * A conditional write's outcome: done, or refused because the record's revision was not the expected one
 * (`current` is what is there now; absent when the key is not set).
 */
export type WriteOutcome<T> = { ok: true; value: T } | { ok: false; current?: MemoryRecord };

/** The memory of one scope. */
export interface MemoryRecords {
  /** Where the records live, for messages and a tool's `locations()`: a file path, a key prefix. */
  readonly path: string;
  get(key: string): Promise<MemoryRecord | undefined>;
  /** Every record, sorted by key. */
  list(): Promise<MemoryRecord[]>;
  /**
   * Writes `key`. With `ifRevision` only when the stored record has that revision (`null`: only when the key
   * is not set) — checked and written atomically, so of two writers that read the same revision one wins.
   */
  put(key: string, write: MemoryWrite, ifRevision?: string | null): Promise<WriteOutcome<MemoryRecord>>;
  /** Removes `key` (`value`: whether it was set); with `ifRevision`, only when the stored record has it. */
  delete(key: string, ifRevision?: string): Promise<WriteOutcome<boolean>>;
}

/** A todo's status. */
export type TodoStatus = "pending" | "in_progress" | "completed";

/** One todo. */
export interface TodoItem {
  /** Short decimal id ("1", "2", ...), never reused within one list. */
  id: string;
  text: string;
  status: TodoStatus;
  createdAt: string;
  updatedAt: string;
}

/** The whole todo list as stored: its items and the next id to hand out. */
export interface TodoList {
  nextId: number;
  items: TodoItem[];
}

/** What a change returns: its result, and whether the list must be saved. */
export interface Change<R> {
  result: R;
  changed: boolean;
}

/** The project's todo list: read whole, changed whole. */
export interface TodoRecords {
  readonly path: string;
  /** The list and the revision of its content (same token rules as a memory record's). */
  read(): Promise<{ list: TodoList; revision: string }>;
  /**
   * Applies `change` to the current list and saves it when it reports `changed`, atomically: no concurrent
   * writer's change is lost. A backend may run `change` more than once (an optimistic one retries it on a
   * newer revision), so it must compute only from the list it is given. If it throws, nothing is saved.
   */
  update<R>(change: (list: TodoList) => Change<R>): Promise<R>;
}

/**
 * Where a gate's memory and todos are kept. The gate's tools and the `toolgate memory` / `todos` commands
 * reach them only through this (`gate.state`).
 */
export interface StateBackend {
  /** The memory of `scope` (`project` or `user`). */
  memory(scope: StateScope): MemoryRecords;
  /** The project's todo list. */
  todos(): TodoRecords;
  /** Releases connections the backend holds (the gate calls it only for backends it made). */
  close?(): Promise<void>;
}
