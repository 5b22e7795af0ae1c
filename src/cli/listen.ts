/**
 * @module cli/listen
 * The `HOST:PORT` of a command that serves (`mcp --http`, `console --listen`).
 */
import { UsageError } from "./exit-codes.js";

/** `HOST:PORT`, `[::1]:PORT` or `:PORT` (loopback), given to `flag` (also `toolgate console --listen`). */
export function parseListen(value: string, flag = "--http"): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[3]) : Number.NaN;
  if (!m || port > 65535)
    throw new UsageError(`${flag} wants HOST:PORT (e.g. 127.0.0.1:8931), not ${JSON.stringify(value)}`);
  return { host: m[1] ?? (m[2] || "127.0.0.1"), port };
}
