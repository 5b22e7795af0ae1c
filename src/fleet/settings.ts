/**
 * @module fleet/settings
 * What `[fleet]` resolves to: the server URL (with `${env:VAR}` read from the environment, or
 * `TOOLGATE_REDIS_URL` when the key is unset) or a Redis Cluster's nodes, the user name and password (from
 * environment variables only, never the config file), the project namespace and this worker's name.
 * `undefined` when fleet mode is off, so nothing Redis-related is loaded.
 */
import { hostname } from "node:os";
import { basename, isAbsolute, join } from "node:path";
import { projectNameProblem } from "./keys.js";

/** `[fleet]` as the settings give it (the file's snake_case keys in camelCase: `username_env` is `usernameEnv`). */
export interface FleetConfig {
  redis?: string;
  /** Redis Cluster: URLs of some of its nodes (the rest are discovered). Instead of `redis`. */
  cluster?: string[];
  /** The variable holding the ACL user name (default `TOOLGATE_REDIS_USERNAME`). */
  usernameEnv?: string;
  /** The variable holding the password (default `TOOLGATE_REDIS_PASSWORD`). */
  passwordEnv?: string;
  /** `rediss://` only: the PEM file of the CA the server's certificate must chain to (default: Node's CAs). */
  tlsCa?: string;
  /** `rediss://` only: this client's certificate (PEM), for a server that asks for one; needs `tlsKey`. */
  tlsCert?: string;
  /** `rediss://` only: the private key of `tlsCert` (PEM). */
  tlsKey?: string;
  project?: string;
  worker?: string;
  auditMaxLen?: number;
  auditArchive?: string;
  auditBuffer?: number;
}

/** Fleet mode, resolved. */
export interface FleetSettings {
  /** The server, or the cluster's first node (the one messages name). */
  url: string;
  /** Redis Cluster: the nodes to discover it from; absent for one server. */
  cluster?: string[];
  username?: string;
  password?: string;
  project: string;
  /** This process's name in the approvals it publishes. */
  worker: string;
  /** The audit stream's longest length (unset: no limit). */
  auditMaxLen?: number;
  /** Where records trimmed from the audit stream are exported first (absolute; relative to the first root). */
  auditArchive?: string;
  /** Audit records kept in memory while Redis is away. */
  auditBuffer?: number;
  /** TLS files (absolute paths), for `rediss://`: the CA to verify the server with, the client's own pair. */
  tls?: FleetTlsFiles;
}

/** The files of a TLS connection; the server's certificate is always verified (against `ca`, else Node's CAs). */
export interface FleetTlsFiles {
  ca?: string;
  cert?: string;
  key?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const ENV_REF = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** `scheme://user:password@`: the password part, as written. */
const USERINFO_PASSWORD = /^\w+:\/\/[^:/@]*:([^@]*)@/;

/**
 * Resolves `[fleet]`; throws a clear error for a variable that is not set, a password written into the
 * config file, or a bad project name.
 * @example resolveFleet({ redis: "${env:REDIS_URL}" }, ["/src/shop"], process.env) // { url: "redis://…", project: "shop" }
 */
export function resolveFleet(
  config: FleetConfig | undefined,
  roots: readonly string[],
  env: Env,
): FleetSettings | undefined {
  if (config?.redis !== undefined && config.cluster !== undefined)
    throw new Error("[fleet] takes redis (one server) or cluster (its nodes), not both");
  const fromConfig = config?.cluster ?? (config?.redis === undefined ? [] : [config.redis]);
  const written = fromConfig.length > 0 ? fromConfig : [env.TOOLGATE_REDIS_URL ?? ""];
  if (written.length === 0 || written[0] === "") {
    if (config?.cluster) throw new Error("[fleet] cluster names no node");
    return undefined;
  }
  // A password belongs in the environment: a config file is read by others, copied and committed.
  for (const raw of fromConfig) {
    const password = USERINFO_PASSWORD.exec(raw)?.[1];
    if (password && !/^\$\{env:[A-Za-z_][A-Za-z0-9_]*\}$/.test(password))
      throw new Error(
        `[fleet] ${config?.cluster ? "cluster" : "redis"} holds a password: give it in an environment variable (TOOLGATE_REDIS_PASSWORD, [fleet] password_env, or \${env:VAR} in the URL), never in the config file`,
      );
  }
  const urls = written.map((raw) => {
    const url = expand(raw, env, config?.cluster ? "cluster" : "redis");
    if (!/^(rediss?|unix):\/\//.test(url))
      throw new Error(
        `[fleet] ${config?.cluster ? "cluster" : "redis"} must start with redis://, rediss:// or unix://`,
      );
    if (config?.cluster && url.startsWith("unix://"))
      throw new Error("[fleet] cluster nodes are redis:// or rediss:// URLs (a cluster is reached over TCP)");
    return url;
  });
  const project = config?.project ?? basename(roots[0] ?? "").replace(/[^A-Za-z0-9._-]/g, "-");
  const problem = projectNameProblem(project);
  if (problem) throw new Error(problem);
  const worker = config?.worker ?? `${hostname()}:${process.pid}`;
  if (worker === "" || /[\r\n]/.test(worker)) throw new Error("[fleet] worker must be one non-empty line");
  if (config?.auditArchive !== undefined && config.auditMaxLen === undefined)
    throw new Error("[fleet] audit_archive is where trimmed records go: it needs audit_max_len");
  const username = variable(config?.usernameEnv, "username_env", "TOOLGATE_REDIS_USERNAME", env);
  const password = variable(config?.passwordEnv, "password_env", "TOOLGATE_REDIS_PASSWORD", env);
  const tls = tlsFiles(config, urls, roots);
  return {
    url: urls[0] as string,
    ...(config?.cluster ? { cluster: urls } : {}),
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
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
    ...(tls ? { tls } : {}),
  };
}

/**
 * The TLS files of `[fleet]` (relative paths from the first root), or `undefined` when none is named. They
 * are for `rediss://` URLs only, and a client certificate comes with its key.
 */
function tlsFiles(
  config: FleetConfig | undefined,
  urls: readonly string[],
  roots: readonly string[],
): FleetTlsFiles | undefined {
  const named = { ca: config?.tlsCa, cert: config?.tlsCert, key: config?.tlsKey };
  if (named.ca === undefined && named.cert === undefined && named.key === undefined) return undefined;
  if (!urls.every((url) => url.startsWith("rediss://")))
    throw new Error("[fleet] tls_ca, tls_cert and tls_key are for TLS: the server's URL must be rediss://");
  if ((named.cert === undefined) !== (named.key === undefined))
    throw new Error("[fleet] tls_cert and tls_key come together: the client certificate and its private key");
  const files: FleetTlsFiles = {};
  for (const [name, path] of Object.entries(named) as [keyof FleetTlsFiles, string | undefined][]) {
    if (path === undefined) continue;
    if (path === "") throw new Error(`[fleet] tls_${name} is empty: name a PEM file`);
    files[name] = isAbsolute(path) ? path : join(roots[0] ?? ".", path);
  }
  return files;
}

/** `raw` with every `${env:VAR}` replaced by its value. */
function expand(raw: string, env: Env, key: string): string {
  return raw.replace(ENV_REF, (_, name: string) => {
    const value = env[name];
    if (value === undefined || value === "")
      throw new Error(`[fleet] ${key} names the variable ${name}, which is not set`);
    return value;
  });
}

/**
 * The value of the variable `[fleet] KEY` names (it must be set), or of the default variable (when set).
 */
function variable(named: string | undefined, key: string, fallback: string, env: Env): string | undefined {
  if (named === undefined) return env[fallback] || undefined;
  if (!VARIABLE.test(named))
    throw new Error(`[fleet] ${key} must name an environment variable, e.g. ${fallback}`);
  const value = env[named];
  if (value === undefined || value === "")
    throw new Error(`[fleet] ${key} names the variable ${named}, which is not set`);
  return value;
}
