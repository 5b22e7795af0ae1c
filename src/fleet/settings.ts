/**
 * @module fleet/settings
 * What `[fleet]` resolves to: the server URL (with `${env:VAR}` read from the environment, or
 * `TOOLGATE_REDIS_URL` when the key is unset), the project namespace and this worker's name. `undefined` when fleet mode is off,
 * so nothing Redis-related is loaded.
 */
import { hostname } from "node:os";
import { basename, isAbsolute, join } from "node:path";
import { projectNameProblem } from "./keys.js";

/** `[fleet]` as the config file gives it. */
export interface FleetConfig {
  redis?: string;
  project?: string;
  worker?: string;
  auditMaxLen?: number;
  auditArchive?: string;
  auditBuffer?: number;
}

/** Fleet mode, resolved. */
export interface FleetSettings {
  url: string;
  project: string;
  /** This process's name in the approvals it publishes. */
  worker: string;
  /** The audit stream's longest length (unset: no limit). */
  auditMaxLen?: number;
  /** Where records trimmed from the audit stream are exported first (absolute; relative to the first root). */
  auditArchive?: string;
  /** Audit records kept in memory while Redis is away. */
  auditBuffer?: number;
}

const ENV_REF = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Resolves `[fleet]`; throws a clear error for a variable that is not set or a bad project name.
 * @example resolveFleet({ redis: "${env:REDIS_URL}" }, ["/src/shop"], process.env) // { url: "redis://…", project: "shop" }
 */
export function resolveFleet(
  config: FleetConfig | undefined,
  roots: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): FleetSettings | undefined {
  const raw = config?.redis ?? env.TOOLGATE_REDIS_URL;
  if (raw === undefined || raw === "") return undefined;
  const url = raw.replace(ENV_REF, (_, name: string) => {
    const value = env[name];
    if (value === undefined || value === "")
      throw new Error(`[fleet] redis names the variable ${name}, which is not set`);
    return value;
  });
  if (!/^(rediss?|unix):\/\//.test(url))
    throw new Error("[fleet] redis must start with redis://, rediss:// or unix://");
  const project = config?.project ?? basename(roots[0] ?? "").replace(/[^A-Za-z0-9._-]/g, "-");
  const problem = projectNameProblem(project);
  if (problem) throw new Error(problem);
  const worker = config?.worker ?? `${hostname()}:${process.pid}`;
  if (worker === "" || /[\r\n]/.test(worker)) throw new Error("[fleet] worker must be one non-empty line");
  if (config?.auditArchive !== undefined && config.auditMaxLen === undefined)
    throw new Error("[fleet] audit_archive is where trimmed records go: it needs audit_max_len");
  return {
    url,
    project,
    worker,
    ...(config?.auditMaxLen === undefined ? {} : { auditMaxLen: config.auditMaxLen }),
    ...(config?.auditArchive === undefined
      ? {}
      : {
          auditArchive: isAbsolute(config.auditArchive)
            ? config.auditArchive
            : join(roots[0] ?? ".", config.auditArchive),
        }),
    ...(config?.auditBuffer === undefined ? {} : { auditBuffer: config.auditBuffer }),
  };
}
