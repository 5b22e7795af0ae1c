/**
 * @module state/json-store
 * One JSON file holding one store: lock-free reads, and changes made as lock → read → change → atomic
 * write (temp, fsync, rename, fsync dir) → unlock. Unreadable files are moved aside, never overwritten.
 */
import { chmod, mkdir, readdir, readFile, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { escapeRegex } from "../utils/index.js";
import { writeFileAtomic } from "../workspace/index.js";
import type { Change } from "./backend.js";
import { ioError, StateError } from "./errors.js";
import { type FileLockOptions, withFileLock } from "./file-lock.js";

/** Where stores report warnings (a corrupt file moved aside). Structurally a core `Logger`. */
export interface StateLogger {
  warn(message: string): void;
}

/** Options every store accepts. */
export interface StoreOptions extends FileLockOptions {
  /** Receives warnings; default: a line on stderr. */
  logger?: StateLogger;
}

/** How one store's state maps to its file. `decode` throws (any error) on a document it cannot accept. */
export interface StoreFormat<T> {
  /** The `kind` field of the file, e.g. `toolgate-memory`. */
  kind: string;
  /** The format version this code writes (and the highest it reads). */
  version: number;
  empty(): T;
  decode(document: Record<string, unknown>): T;
  /** The document's fields besides `version` and `kind`. */
  encode(state: T): Record<string, unknown>;
}

const defaultLogger: StateLogger = {
  warn: (message) => process.stderr.write(`toolgate: warning: ${message}\n`),
};

type Loaded<T> = { state: T } | { corrupt: string };

/** A store file. Create one per path; it holds no state in memory between calls. */
export class JsonStore<T> {
  private readonly logger: StateLogger;
  private readonly tempPattern: RegExp;

  constructor(
    readonly path: string,
    private readonly format: StoreFormat<T>,
    private readonly options: StoreOptions = {},
  ) {
    this.logger = options.logger ?? defaultLogger;
    // writeFileAtomic names its temp files `.<name>.<12 hex>.tmp` beside the target.
    const escaped = escapeRegex(basename(path));
    this.tempPattern = new RegExp(`^\\.${escaped}\\.[0-9a-f]{12}\\.tmp$`);
  }

  /**
   * Reads the current state without locking (a rename is atomic, so a reader sees an old or a new file,
   * never a half-written one). A corrupt file is moved aside under the lock and the empty state returned.
   */
  async read(): Promise<T> {
    const loaded = await this.load();
    if ("state" in loaded) return loaded.state;
    return this.update(() => ({ result: undefined, changed: false })).then(async () => {
      const again = await this.load();
      return "state" in again ? again.state : this.format.empty();
    });
  }

  /**
   * Applies `change` under the lock and saves when it reports `changed`. If `change` throws, nothing is
   * written and the error propagates. Leftover temp files of this store are removed while the lock is held.
   */
  async update<R>(change: (state: T) => Change<R> | Promise<Change<R>>): Promise<R> {
    const dir = dirname(this.path);
    try {
      // Only the state directory itself is made private; parents (e.g. `.toolgate/`) keep the usual mode.
      if ((await mkdir(dir, { recursive: true })) !== undefined) await chmod(dir, 0o700);
    } catch (error) {
      throw ioError("create the state directory", dir, error);
    }
    return withFileLock(this.path, this.options, async (check) => {
      await this.removeLeftoverTemps(dir);
      let loaded = await this.load();
      if ("corrupt" in loaded) {
        await this.quarantine(loaded.corrupt);
        loaded = { state: this.format.empty() };
      }
      const { result, changed } = await change(loaded.state);
      if (!changed) return result;
      const text = `${JSON.stringify(this.document(loaded.state), null, 2)}\n`;
      check();
      try {
        await writeFileAtomic(this.path, text, { mode: 0o600 });
      } catch (error) {
        throw ioError("save", this.path, error);
      }
      return result;
    });
  }

  private document(state: T): Record<string, unknown> {
    return { version: this.format.version, kind: this.format.kind, ...this.format.encode(state) };
  }

  private async load(): Promise<Loaded<T>> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return { state: this.format.empty() };
      throw ioError("read", this.path, error);
    }
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (error) {
      return { corrupt: `not valid JSON (${(error as Error).message})` };
    }
    if (document === null || typeof document !== "object" || Array.isArray(document)) {
      return { corrupt: "not a JSON object" };
    }
    const doc = document as Record<string, unknown>;
    if (doc.kind !== this.format.kind) {
      return { corrupt: `"kind" is ${JSON.stringify(doc.kind)}, expected "${this.format.kind}"` };
    }
    if (typeof doc.version !== "number" || !Number.isInteger(doc.version) || doc.version < 1) {
      return { corrupt: `"version" is ${JSON.stringify(doc.version)}, expected a positive integer` };
    }
    if (doc.version > this.format.version) {
      // A newer toolgate wrote this: it is not corrupt, and moving it aside would lose the user's data.
      throw new StateError(
        "newer_format",
        `${this.path} has format version ${doc.version}, newer than this toolgate reads (${this.format.version}); upgrade toolgate`,
        this.path,
      );
    }
    try {
      return { state: this.format.decode(doc) };
    } catch (error) {
      return { corrupt: (error as Error).message };
    }
  }

  private async quarantine(reason: string): Promise<void> {
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const aside = `${this.path}.corrupt-${stamp}`;
    try {
      await rename(this.path, aside);
    } catch (error) {
      throw ioError("move aside the unreadable store", this.path, error);
    }
    this.logger.warn(
      `state file ${this.path} could not be read (${reason}); moved it to ${aside} and started empty`,
    );
  }

  private async removeLeftoverTemps(dir: string): Promise<void> {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return;
    }
    // Only a lock holder writes temp files, and we hold the lock: any that exist were left by a killed writer.
    for (const name of names) {
      if (this.tempPattern.test(name)) await unlink(join(dir, name)).catch(() => undefined);
    }
  }
}
