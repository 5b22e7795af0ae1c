/**
 * @module test-support/redis-server
 * One real `redis-server` per test file (`useRedis`), started by test-support/redis-process.ts.
 */
import { afterAll, beforeAll } from "vitest";
import { startRedis, type TestRedis } from "./redis-process.js";

export { startRedis, type TestRedis } from "./redis-process.js";

/**
 * Starts one server for the test file (before its tests) and stops it after them.
 * @example const redis = useRedis(); it("…", async () => connectFleet({ url: redis().url }));
 */
export function useRedis(): () => TestRedis {
  let redis: TestRedis | undefined;
  beforeAll(async () => {
    redis = await startRedis();
  }, 60_000);
  afterAll(async () => {
    await redis?.close();
  });
  return () => {
    if (!redis) throw new Error("the test Redis is not started yet (useRedis() runs in beforeAll)");
    return redis;
  };
}
