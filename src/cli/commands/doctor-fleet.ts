/**
 * @module cli/commands/doctor-fleet
 * `toolgate doctor`'s fleet checks, only when `[fleet]` (or `TOOLGATE_REDIS_URL`) is set: the server answers
 * (its version and a round trip), keeps an append-only file, and never evicts keys that hold state.
 */
import type { Toolgate } from "../../toolgate.js";
import type { DoctorCheck } from "./doctor.js";

/** The server's `INFO server` field `name`, or undefined. */
function infoField(info: string, name: string): string | undefined {
  return new RegExp(`^${name}:(.*)$`, "m").exec(info)?.[1]?.trim();
}

/** A `CONFIG GET` value, or undefined when the server refuses CONFIG (a restricted ACL user, a managed Redis). */
async function configValue(
  client: import("../../fleet/index.js").FleetClient,
  name: string,
): Promise<string | undefined> {
  try {
    const reply = (await client.configGet(name)) as Record<string, string | undefined>;
    return reply[name];
  } catch {
    return undefined;
  }
}

/** The fleet's checks; none when fleet mode is off. */
export async function checkFleet(gate: Toolgate | undefined): Promise<DoctorCheck[]> {
  if (!gate) return [];
  if (!gate.settings.fleet.redis && !gate.settings.fleet.cluster && !process.env.TOOLGATE_REDIS_URL)
    return [];
  const { connectFleet, redactUrl, resolveFleet } = await import("../../fleet/index.js");
  const settings = resolveFleet(gate.settings.fleet, gate.roots, process.env);
  if (!settings) return [];
  const where = redactUrl(settings.url);
  let client: Awaited<ReturnType<typeof connectFleet>>;
  try {
    client = await connectFleet({ ...settings, connectTimeoutMs: 3_000 });
  } catch (error) {
    return [
      {
        check: "fleet",
        ok: false,
        required: true,
        detail: `${(error as Error).message}; calls that need an approval are refused until it is reachable`,
        fix: "start the server, or correct [fleet] redis (docs/fleet.md)",
      },
    ];
  }
  try {
    const started = performance.now();
    await client.ping();
    const roundTrip = performance.now() - started;
    const info = String(await client.sendCommand(["INFO", "server"]));
    const version = infoField(info, "redis_version") ?? "unknown";
    const checks: DoctorCheck[] = [
      {
        check: "fleet",
        ok: true,
        required: true,
        detail: `Redis ${version} at ${where} reachable (round trip ${roundTrip.toFixed(1)} ms); project ${settings.project}, worker ${settings.worker}`,
      },
    ];
    const appendonly = await configValue(client, "appendonly");
    const eviction = await configValue(client, "maxmemory-policy");
    checks.push({
      check: "fleet durability",
      ok: appendonly === "yes",
      required: false,
      detail:
        appendonly === undefined
          ? "the server does not let this user read its config (appendonly unknown)"
          : `appendonly ${appendonly}`,
      ...(appendonly === "no"
        ? { fix: "set `appendonly yes` and `appendfsync always` so a restart loses no decision" }
        : {}),
    });
    const evicts = eviction?.startsWith("allkeys-") === true;
    checks.push({
      check: "fleet eviction",
      ok: !evicts,
      required: evicts,
      detail: eviction === undefined ? "maxmemory-policy unknown" : `maxmemory-policy ${eviction}`,
      ...(evicts ? { fix: "use `maxmemory-policy noeviction`: asks and state must never be evicted" } : {}),
    });
    return checks;
  } finally {
    await client.close();
  }
}
