/**
 * Fleet chaos at the size (src/test-support/fleet-chaos.ts): 8 worker processes × 1,000 always-asked
 * calls, 2 approvers deciding at random (a third replaces the one killed), kills of workers and an approver,
 * a redis-server restart with AOF. A soak run, outside the suite: `npm run soak` (vitest.soak.config.ts).
 * The CI-sized run of the same harness is src/fleet/chaos.test.ts.
 */
import { fleetChaos } from "../test-support/fleet-chaos.js";

fleetChaos({
  workers: Number(process.env.CHAOS_WORKERS ?? 8),
  lifecycles: Number(process.env.CHAOS_LIFECYCLES ?? 1_000),
  timeoutMs: 3_600_000,
  reclaimBound: true,
});
