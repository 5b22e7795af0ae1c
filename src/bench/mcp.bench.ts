/**
 * @module bench/mcp
 * MCP benchmarks against raw SDK anchors in the same run: a call through the pool and the pipeline vs a raw
 * `client.callTool` to the same stdio server; the same call proxied by `toolgate mcp --pool` (an SDK client
 * talking to the toolgate process, which calls the server) vs the SDK client calling the server directly; and
 * building a pool of 5 servers × 100 tools (10 pages each) vs the raw SDK listing the same pages in sequence.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { executeCall, type PipelineDeps, ToolRegistry } from "../core/index.js";
import { PolicyEngine, parsePolicy } from "../policy/index.js";
import { ToolSource } from "../tool-source.js";
import { fmt, measure, report, stats } from "./harness.js";

const here = dirname(fileURLToPath(import.meta.url));
const serverPath = join(here, "..", "..", "src", "mcp-client", "testdata", "test-server.mjs");
// The bundled command the package's `bin` names (`npm run build` makes it).
const MAIN = join(here, "..", "bin", "toolgate.js");

/** A difference with its sign (fmt shows magnitudes only). */
function signed(ms: number): string {
  return `${ms < 0 ? "−" : "+"}${fmt(Math.abs(ms))}`;
}

/** The gate's tool source over `root`'s servers, every file trusted, every tool admitted. */
function source(root: string): ToolSource {
  return new ToolSource({
    host: new ToolRegistry(),
    root,
    mcp: true,
    trusted: () => true,
    admit: () => undefined,
    logger: { warn: () => undefined },
  });
}

async function rawClient(args: string[]): Promise<Client> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [serverPath, ...args], stderr: "pipe" }),
  );
  return client;
}

async function callOverhead(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "toolgate-bench-mcp-call-"));
  await writeFile(
    join(root, ".mcp.json"),
    JSON.stringify({ mcpServers: { b: { command: process.execPath, args: [serverPath] } } }),
  );
  const pools = source(root);
  const raw = await rawClient([]);
  try {
    const pool = await pools.full();
    const policy = await parsePolicy('default = "allow"', "bench-policy.toml");
    const deps: PipelineDeps = {
      registry: pool.registry,
      decider: new PolicyEngine({ policy, roots: [root] }),
    };
    const call = { name: "mcp__b__echo", args: { text: "ping" } };
    const ours = async () => {
      const r = await executeCall(deps, call);
      if (!r.ok) throw new Error(r.llmContent);
    };
    const anchor = () => raw.callTool({ name: "echo", arguments: { text: "ping" } });
    const tool = pool.registry.get("mcp__b__echo")!;
    const poolOnly = () => tool.build({ text: "ping" }).run(new AbortController().signal);
    // Interleave rounds so drift (CPU frequency, GC, other load) hits every side alike.
    const p50 = { ours: [] as number[], pool: [] as number[], anchor: [] as number[] };
    const p99 = { ours: [] as number[], pool: [] as number[], anchor: [] as number[] };
    const gc = (globalThis as { gc?: () => void }).gc;
    for (let round = 0; round < 15; round++) {
      for (const [side, fn] of [
        ["anchor", anchor],
        ["pool", poolOnly],
        ["ours", ours],
      ] as const) {
        gc?.();
        const st = await measure(fn, 300, 30);
        p50[side].push(st.p50);
        p99[side].push(st.p99);
      }
    }
    const med = (xs: number[]) => stats(xs).p50;
    const [o50, l50, a50] = [med(p50.ours), med(p50.pool), med(p50.anchor)];
    const [o99, l99, a99] = [med(p99.ours), med(p99.pool), med(p99.anchor)];
    report({
      name: "MCP call through pool + pipeline, overhead p50",
      ours: `${fmt(o50)} (overhead ${signed(o50 - a50)}; pool alone ${fmt(l50)}, overhead ${signed(l50 - a50)})`,
      anchor: `raw SDK callTool ${fmt(a50)}`,
      ratio: o50 / a50,
      target: "overhead p50 ≤ 50 µs",
      pass: o50 - a50 <= 0.05,
    });
    report({
      name: "MCP call through pool + pipeline, overhead p99 (median of 15 rounds' p99)",
      ours: `${fmt(o99)} (overhead ${signed(o99 - a99)}; pool alone ${fmt(l99)}, overhead ${signed(l99 - a99)})`,
      anchor: `raw SDK callTool ${fmt(a99)}`,
      ratio: o99 / a99,
      target: "overhead p99 ≤ 1 ms",
      pass: o99 - a99 <= 1,
    });
  } finally {
    await raw.close();
    await pools.close();
    await rm(root, { recursive: true, force: true });
  }
}
/** One `tools/call` proxied by `toolgate mcp --pool` vs the same call straight to the upstream server. */
async function proxyCall(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "toolgate-bench-mcp-proxy-"));
  const xdg = await mkdtemp(join(tmpdir(), "toolgate-bench-mcp-xdg-"));
  await writeFile(
    join(root, ".mcp.json"),
    JSON.stringify({ mcpServers: { b: { command: process.execPath, args: [serverPath] } } }),
  );
  const env = { ...(process.env as Record<string, string>), XDG_CONFIG_HOME: xdg };
  // The workspace's servers start only once it is trusted; its policy then allows the call.
  const trusted = spawnSync(process.execPath, [MAIN, "trust", root], { env, encoding: "utf8" });
  if (trusted.status !== 0) throw new Error(`toolgate trust failed: ${trusted.stderr}`);
  const { mkdir } = await import("node:fs/promises");
  await mkdir(join(root, ".toolgate"), { recursive: true });
  await writeFile(join(root, ".toolgate", "policy.toml"), 'default = "allow"\n');
  const proxy = new Client({ name: "bench", version: "1" });
  await proxy.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, "mcp", "--pool", "--workspace", root],
      env,
      stderr: "pipe",
    }),
  );
  const direct = await rawClient([]);
  try {
    const ours = async () => {
      const r = await proxy.callTool({ name: "mcp__b__echo", arguments: { text: "ping" } });
      if (r.isError) throw new Error(JSON.stringify(r.content));
    };
    const anchor = () => direct.callTool({ name: "echo", arguments: { text: "ping" } });
    await ours(); // starts the upstream server behind the proxy
    const p50 = { ours: [] as number[], anchor: [] as number[] };
    const p99 = { ours: [] as number[], anchor: [] as number[] };
    const gc = (globalThis as { gc?: () => void }).gc;
    // Interleaved rounds: drift (CPU frequency, GC, other load) hits both sides alike.
    for (let round = 0; round < 15; round++) {
      for (const [side, fn] of [
        ["anchor", anchor],
        ["ours", ours],
      ] as const) {
        gc?.();
        const st = await measure(fn, 200, 20);
        p50[side].push(st.p50);
        p99[side].push(st.p99);
      }
    }
    const med = (xs: number[]) => stats(xs).p50;
    const [o50, a50, o99, a99] = [med(p50.ours), med(p50.anchor), med(p99.ours), med(p99.anchor)];
    // A proxy adds a second process hop (client → toolgate → server): about one more round trip.
    report({
      name: "MCP call proxied by toolgate mcp --pool, p50",
      ours: `${fmt(o50)} (overhead ${signed(o50 - a50)})`,
      anchor: `the same call straight to the server ${fmt(a50)}`,
      ratio: o50 / a50,
      target: "≤ 3× anchor",
      pass: o50 / a50 <= 3,
    });
    report({
      name: "MCP call proxied by toolgate mcp --pool, p99 (median of 15 rounds' p99)",
      ours: `${fmt(o99)} (overhead ${signed(o99 - a99)})`,
      anchor: `the same call straight to the server ${fmt(a99)}`,
      ratio: o99 / a99,
      target: "≤ 3× anchor",
      pass: o99 / a99 <= 3,
    });
  } finally {
    await proxy.close();
    await direct.close();
    await rm(root, { recursive: true, force: true });
    await rm(xdg, { recursive: true, force: true });
  }
}

async function poolBuild(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "toolgate-bench-mcp-pool-"));
  const args = ["--tools", "100", "--page-size", "10", "--fixed", "no"];
  const servers = Object.fromEntries(
    [1, 2, 3, 4, 5].map((i) => [`s${i}`, { command: process.execPath, args }]),
  );
  for (const s of Object.values(servers)) s.args = [serverPath, ...args];
  await writeFile(join(root, ".mcp.json"), JSON.stringify({ mcpServers: servers }));
  const pools = source(root);
  const raws = await Promise.all([1, 2, 3, 4, 5].map(() => rawClient(args)));
  try {
    const first = await pools.full();
    if (first.names.length !== 500 + 2) throw new Error(`expected 502 tools, got ${first.names.length}`);
    const ours = async () => {
      pools.invalidate();
      await pools.full();
    };
    const anchor = async () => {
      for (const client of raws) {
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor === undefined ? {} : { cursor });
          cursor = page.nextCursor;
        } while (cursor);
      }
    };
    const o: number[] = [];
    const a: number[] = [];
    for (let round = 0; round < 5; round++) {
      a.push((await measure(anchor, 10, 2)).p50);
      o.push((await measure(ours, 10, 2)).p50);
    }
    const os = stats(o).p50;
    const as = stats(a).p50;
    report({
      name: "pool build, 5 servers × 100 tools (10 pages each), servers running",
      ours: fmt(os),
      anchor: `raw SDK listing the 50 pages in sequence ${fmt(as)}`,
      ratio: os / as,
      target: "≤ 1.5× anchor",
      pass: os / as <= 1.5,
    });
    // Cold: starting the servers too (ours starts them in parallel; the anchor starts and lists in sequence).
    const coldOurs: number[] = [];
    const coldAnchor: number[] = [];
    for (let round = 0; round < 3; round++) {
      const t0 = performance.now();
      const fresh = source(root);
      await fresh.full();
      coldOurs.push(performance.now() - t0);
      await fresh.close();
      const t1 = performance.now();
      const started: Client[] = [];
      for (let i = 0; i < 5; i++) {
        const client = await rawClient(args);
        started.push(client);
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor === undefined ? {} : { cursor });
          cursor = page.nextCursor;
        } while (cursor);
      }
      coldAnchor.push(performance.now() - t1);
      await Promise.all(started.map((c) => c.close()));
    }
    const co = stats(coldOurs).p50;
    const ca = stats(coldAnchor).p50;
    report({
      name: "pool build, 5 servers × 100 tools, cold (servers started)",
      ours: fmt(co),
      anchor: `raw SDK start + list in sequence ${fmt(ca)}`,
      ratio: co / ca,
      target: "≤ 1.5× anchor",
      pass: co / ca <= 1.5,
    });
  } finally {
    await Promise.all(raws.map((c) => c.close()));
    await pools.close();
    await rm(root, { recursive: true, force: true });
  }
}

export default async function run(): Promise<void> {
  await callOverhead();
  await proxyCall();
  await poolBuild();
}
