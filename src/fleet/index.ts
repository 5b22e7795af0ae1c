/**
 * @module fleet
 * Fleet mode on Redis (`[fleet]`, docs/fleet.md): imported only when it is set, so a gate without it loads
 * no Redis client.
 */
export { RedisApprovalStore, type RedisApprovalStoreOptions } from "./approval-store.js";
export { RedisAuditLog, type RedisAuditLogOptions } from "./audit-log.js";
export { DEFAULT_AUDIT_BUFFER, RedisAuditSink, type RedisAuditSinkOptions } from "./audit-sink.js";
export {
  connectFleet,
  type FleetClient,
  type FleetConnectOptions,
  redactUrl,
  startFleetClient,
} from "./connect.js";
export { type FleetKeys, fleetKeys } from "./keys.js";
export { type Fleet, type OpenFleetOptions, openFleet } from "./open.js";
export { type OverlayRule, overlayRuleRef, PolicyOverlay } from "./overlay.js";
export { claimInterrupted, DEFAULT_CLAIM_IDLE_MS } from "./runs.js";
export { type FleetConfig, type FleetSettings, resolveFleet } from "./settings.js";
export { createRedisStateBackend, type RedisStateBackendOptions } from "./state-backend.js";
