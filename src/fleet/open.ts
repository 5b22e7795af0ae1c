/**
 * @module fleet/open
 * Fleet mode for one gate: one client, the Redis approval store and state backend over it, and errors that
 * say the server is unreachable (not node-redis's "The client is offline"). A server that cannot be reached
 * at start does not stop the gate: the client keeps reconnecting, and until it is back every call that needs
 * an approval is refused with that reason (fail closed) and memory and todos fail with it.
 */
import type { ApprovalStore } from "../core/index.js";
import type { StateBackend } from "../state/index.js";
import { RedisApprovalStore } from "./approval-store.js";
import type { RedisAuditLog } from "./audit-log.js";
import { RedisAuditSink } from "./audit-sink.js";
import { type FleetClient, redactUrl, startFleetClient } from "./connect.js";
import type { PolicyOverlay } from "./overlay.js";
import type { FleetSettings } from "./settings.js";
import { createRedisStateBackend } from "./state-backend.js";

/** A gate's fleet: the stores it uses and the connection under them. */
export interface Fleet {
  readonly settings: FleetSettings;
  readonly client: FleetClient;
  readonly approvals: ApprovalStore;
  readonly state: StateBackend;
  /** The project's shared policy overlay ("always" rules); `overlay.decider(engine)` applies it. */
  readonly overlay: PolicyOverlay;
  /** The project's audit stream: the sink every call's record goes to, and the log read back. */
  readonly audit: RedisAuditSink;
  readonly auditLog: RedisAuditLog;
  /** Why the server could not be reached at start (`undefined`: it was). */
  readonly unreachable?: string;
  /** Closes the stores and the connection (a connection still retrying is dropped). */
  close(): Promise<void>;
}

/** Options of {@link openFleet}. */
export interface OpenFleetOptions {
  /** Milliseconds the first connection attempt may take (default 5,000). */
  connectTimeoutMs?: number;
  /** Where the audit sink says what it could not do (Redis away, records waiting, a failed trim). */
  onAuditError?: (message: string) => void;
}

/**
 * Connects to the fleet's server (one attempt; reconnecting after that in the background) and makes the stores.
 * @example const fleet = await openFleet(resolveFleet(config.fleet, roots, process.env)!);
 */
export async function openFleet(settings: FleetSettings, options: OpenFleetOptions = {}): Promise<Fleet> {
  let last: Error | undefined;
  const { client, error } = await startFleetClient(
    { ...settings, ...(options.connectTimeoutMs ? { connectTimeoutMs: options.connectTimeoutMs } : {}) },
    (e) => {
      last = e;
    },
  );
  const where = redactUrl(settings.url);
  const explain = (cause: unknown): unknown => {
    if (client.isReady) return cause;
    const why = last?.message ?? (cause as Error)?.message ?? String(cause);
    return new Error(`Redis at ${where} is unreachable (${why})`, { cause });
  };
  const approvals = new RedisApprovalStore({
    client,
    project: settings.project,
    worker: settings.worker,
    ownsClient: false,
  });
  const state = createRedisStateBackend({ client, project: settings.project, ownsClient: false });
  const audit = new RedisAuditSink({
    client,
    project: settings.project,
    worker: settings.worker,
    ...(settings.auditBuffer === undefined ? {} : { buffer: settings.auditBuffer }),
    ...(settings.auditMaxLen === undefined ? {} : { maxLen: settings.auditMaxLen }),
    ...(settings.auditArchive === undefined ? {} : { archive: settings.auditArchive }),
    ...(options.onAuditError ? { onError: options.onAuditError } : {}),
  });
  // Every worker claims the runs of dead workers (marking them interrupted, never running them again).
  approvals.startClaiming();
  return {
    settings,
    client,
    approvals: explained(approvals, explain),
    state: explained(state, explain, ["memory", "todos"]),
    overlay: explained(approvals.overlay, explain),
    audit,
    auditLog: explained(audit.log, explain),
    ...(error ? { unreachable: `cannot reach Redis at ${where}: ${error.message}` } : {}),
    async close() {
      await audit.close();
      await approvals.close();
      await state.close?.();
      if (client.isReady) await client.close();
      else if (client.isOpen) client.destroy();
    },
  };
}

/**
 * `target` with every rejected promise of its methods passed through `explain`; the methods named in `nested`
 * return objects wrapped the same way (the state backend's memory and todo records).
 */
function explained<T extends object>(
  target: T,
  explain: (error: unknown) => unknown,
  nested: readonly string[] = [],
): T {
  return new Proxy(target, {
    get(object, name) {
      const value = Reflect.get(object, name, object) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const out = (value as (...a: unknown[]) => unknown).apply(object, args);
        if (out instanceof Promise)
          return out.catch((error: unknown) => {
            throw explain(error);
          });
        if (typeof name === "string" && nested.includes(name) && typeof out === "object" && out !== null)
          return explained(out, explain);
        return out;
      };
    },
  });
}
