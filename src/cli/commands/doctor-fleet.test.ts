/**
 * `toolgate doctor`'s fleet checks, against real redis-servers this file starts: one as fleet mode wants it
 * (append-only, no eviction), one that would evict state (`allkeys-lru`), and a socket nobody listens on.
 * Without [fleet] there is no fleet line at all. The command runs in this process (toolgateInProcess; the
 * binary's doctor is spawned in doctor.test.ts): a spawn in fleet mode costs ~1.5 CPU s.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempWorkspace } from "../../test-support/cli.js";
import { toolgateInProcess } from "../../test-support/cli-in-process.js";
import { startRedis, type TestRedis } from "../../test-support/redis-server.js";
import type { DoctorCheck } from "./doctor.js";

let good: TestRedis;
let evicting: TestRedis;
beforeAll(async () => {
  [good, evicting] = await Promise.all([startRedis(), startRedis(["--maxmemory-policy", "allkeys-lru"])]);
}, 120_000);
afterAll(async () => {
  await Promise.all([good?.close(), evicting?.close()]);
});

/** `toolgate doctor --json` with a user config naming `url` (none: no [fleet]); the fleet's checks. */
async function doctor(url?: string): Promise<{ code: number | null; fleet: DoctorCheck[] }> {
  const ws = await tempWorkspace();
  const config = join(ws, "..", `${ws.split("/").pop()}.toml`);
  await writeFile(config, url ? `[fleet]\nredis = "${url}"\nproject = "doc"\nworker = "w-doc"\n` : "");
  const r = await toolgateInProcess(["--json", "--config", config, "doctor"], {
    cwd: ws,
    env: { TOOLGATE_REDIS_URL: "" },
  });
  const checks = JSON.parse(r.stdout) as DoctorCheck[];
  return { code: r.code, fleet: checks.filter((c) => c.check.startsWith("fleet")) };
}

describe("toolgate doctor with [fleet]", { timeout: 300_000 }, () => {
  it("reports the server reachable with its version, append-only and not evicting", async () => {
    const { fleet } = await doctor(good.url);
    expect(fleet.map((c) => [c.check, c.ok])).toEqual([
      ["fleet", true],
      ["fleet durability", true],
      ["fleet eviction", true],
    ]);
    expect(fleet[0]?.detail).toMatch(
      new RegExp(
        `^Redis 7\\.[\\d.]+ at ${good.url} reachable \\(round trip [\\d.]+ ms\\); project doc, worker w-doc$`,
      ),
    );
    expect(fleet[1]?.detail).toBe("appendonly yes");
    expect(fleet[2]?.detail).toBe("maxmemory-policy noeviction");
  });

  it("fails the command on a server that would evict state, naming the fix", async () => {
    const { code, fleet } = await doctor(evicting.url);
    expect(fleet[2]).toMatchObject({ check: "fleet eviction", ok: false, required: true });
    expect(fleet[2]?.fix).toContain("noeviction");
    expect(code).toBe(1);
  });

  it("fails the command when the server cannot be reached, saying asks are refused meanwhile", async () => {
    const url = `unix://${good.dir}/nobody.sock`;
    const { code, fleet } = await doctor(url);
    expect(fleet).toHaveLength(1);
    expect(fleet[0]).toMatchObject({ check: "fleet", ok: false, required: true });
    expect(fleet[0]?.detail).toContain(`cannot reach Redis at ${url}`);
    expect(fleet[0]?.detail).toContain("calls that need an approval are refused until it is reachable");
    expect(code).toBe(1);
  });

  it("has no fleet line without [fleet]", async () => {
    expect((await doctor()).fleet).toEqual([]);
  });
});
