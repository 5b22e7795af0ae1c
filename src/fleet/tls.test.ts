/**
 * Fleet mode over TLS against a real redis-server this file starts speaking only TLS (Debian's build), with
 * certificates made by openssl in a temp folder (test-support/redis-tls.ts): a project's whole life works
 * over `rediss://` with `[fleet] tls_ca`, `tls_cert` and `tls_key`, set through the config file's keys; and
 * every connection whose certificates do not verify (testdata/tls-refusals.json) is refused with the reason
 * — fail closed: no command of it reaches the server, and an ask is refused rather than published.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool, okResult } from "../core/index.js";
import { createMemoryStore } from "../state/index.js";
import { details, projectLifecycle } from "../test-support/fleet-lifecycle.js";
import {
  makeCertificates,
  removeCertificates,
  startTlsRedis,
  type TestCertificates,
  type TlsRedis,
} from "../test-support/redis-tls.js";
import { createToolgate } from "../toolgate.js";
import { connectFleet, type FleetClient } from "./connect.js";
import { fleetKeys } from "./keys.js";
import { type Fleet, openFleet } from "./open.js";
import { type FleetConfig, resolveFleet } from "./settings.js";
import table from "./testdata/tls-refusals.json" with { type: "json" };

let certs: TestCertificates;
let redis: TlsRedis;
/** The test's own view of the server: its plain Unix socket, never the TLS port under test. */
let plain: FleetClient;
const fleets: Fleet[] = [];
beforeAll(async () => {
  certs = await makeCertificates();
  redis = await startTlsRedis(certs);
  plain = await connectFleet({ url: redis.url });
}, 60_000);
afterAll(async () => {
  await Promise.all(fleets.map((f) => f.close()));
  await plain?.close();
  await redis?.close();
  if (certs) await removeCertificates(certs);
});

/** `[fleet]` naming the server over TLS with the test CA and the client pair, and `more`. */
const tlsConfig = (project: string, more: FleetConfig = {}): FleetConfig => ({
  redis: redis.tlsUrl,
  project,
  worker: `w-${fleets.length}`,
  tlsCa: certs.ca,
  tlsCert: certs.clientCert,
  tlsKey: certs.clientKey,
  ...more,
});

async function open(config: FleetConfig): Promise<Fleet> {
  const settings = resolveFleet(config, [], {});
  if (!settings) throw new Error("[fleet] resolved to nothing");
  const fleet = await openFleet(settings, { connectTimeoutMs: 10_000 });
  fleets.push(fleet);
  return fleet;
}

/** The project's keys as the server holds them. */
const keysOf = (project: string) => plain.keys(`toolgate:{${project}}:*`);

describe("fleet mode over TLS", { timeout: 120_000 }, () => {
  it("runs a project's whole life over rediss:// with the test CA and a client certificate", async () => {
    const a = await open(tlsConfig("shop"));
    expect(a.unreachable).toBeUndefined();
    await projectLifecycle(a, await open(tlsConfig("shop")));
    // What the life wrote is on the server (seen through its plain socket, not through TLS).
    expect((await keysOf("shop")).length).toBeGreaterThan(3);
  });

  it("takes tls_ca, tls_cert and tls_key from the config file's keys: a call's audit record lands over TLS", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tg-tls-gate-"));
    const noop = defineTool<{ text: string }>({
      name: "noop",
      description: "Does nothing",
      kind: "think",
      risk: "low",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      run: async (params) => okResult(params.text),
    });
    const gate = await createToolgate({
      roots: [dir],
      builtins: false,
      tools: [noop],
      policy: false,
      logger: { warn: (m) => expect.fail(`unexpected warning: ${m}`) },
      config: {
        fleet: {
          redis: redis.tlsUrl,
          project: "gate",
          tls_ca: certs.ca,
          tls_cert: certs.clientCert,
          tls_key: certs.clientKey,
        },
      },
    });
    try {
      const result = await gate.execute({ name: "noop", args: { text: "over TLS" } });
      expect(result.ok).toBe(true);
      const [entry] = (await plain.xRange(fleetKeys("gate").audit, "-", "+")) ?? [];
      expect(JSON.parse(entry?.message.record ?? "{}")).toMatchObject({ tool: "noop", decision: "allow" });
    } finally {
      await gate.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe("refuses a connection whose certificates do not verify, sending nothing", () => {
    const pick = {
      ca: { test: () => certs.ca, rogue: () => certs.rogueCa, none: () => undefined },
      client: {
        test: () => ({ tlsCert: certs.clientCert, tlsKey: certs.clientKey }),
        rogue: () => ({ tlsCert: certs.rogueClientCert, tlsKey: certs.rogueClientKey }),
        none: () => ({}),
      },
    };
    it.each(table.cases)("$name", async (row) => {
      const project = `refused-${table.cases.indexOf(row)}`;
      const ca = pick.ca[row.ca as keyof typeof pick.ca]();
      const config: FleetConfig = {
        redis: `${row.scheme}://${row.host}:${redis.port}`,
        project,
        worker: "w",
        ...(ca ? { tlsCa: ca } : {}),
        ...pick.client[row.client as keyof typeof pick.client](),
      };
      const fleet = await open(config);
      expect(fleet.unreachable).toContain(row.error);
      await expect(
        fleet.approvals.publish({ callId: "c", tool: "deploy", details, timeoutMs: 60_000 }),
      ).rejects.toThrow(/unreachable/);
      await expect(createMemoryStore(fleet.state.memory("project")).set("k", "v")).rejects.toThrow(
        /unreachable/,
      );
      await expect(connectFleet(fleet.settings)).rejects.toThrow(row.error);
      expect(await keysOf(project)).toEqual([]);
    });
  });

  it("names a TLS file it cannot read, and refuses TLS keys on a plain URL or a certificate without its key", async () => {
    await expect(
      connectFleet({ url: redis.tlsUrl, tls: { ca: join(certs.dir, "missing.crt") } }),
    ).rejects.toThrow(`cannot read [fleet] tls_ca ${join(certs.dir, "missing.crt")}: ENOENT`);
    expect(() => resolveFleet({ redis: "redis://h:1", tlsCa: "/ca.crt" }, ["/w"], {})).toThrow(
      "[fleet] tls_ca, tls_cert and tls_key are for TLS: the server's URL must be rediss://",
    );
    expect(() => resolveFleet({ redis: "rediss://h:1", tlsCert: "/c.crt" }, ["/w"], {})).toThrow(
      "[fleet] tls_cert and tls_key come together",
    );
    expect(resolveFleet({ redis: "rediss://h:1", tlsCa: "certs/ca.crt" }, ["/w"], {})?.tls).toEqual({
      ca: "/w/certs/ca.crt",
    });
  });
});
