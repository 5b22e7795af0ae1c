/**
 * Fleet chaos at CI size (src/test-support/fleet-chaos.ts): 3 worker processes × 12 always-asked calls, 2
 * approvers deciding at random and a third replacing the one killed, kills of a worker mid-run and while it
 * waits, a redis-server restart with AOF; every invariant of the issue asserted. The size is the soak
 * run (src/fleet/chaos.soak.ts, `npm run soak`). A system test: its processes come from node:child_process.
 */
import { fleetChaos } from "../test-support/fleet-chaos.js";

fleetChaos({ workers: 3, lifecycles: 12, timeoutMs: 300_000, reclaimBound: false });
