/**
 * A red team against the network grant (issue 26.3): testdata/network-redteam.json, run for real — toolgate as
 * the non-root user tgtest (when the suite runs as root), real bwrap, socat and egress proxy, canaries of the
 * host counting every connection. `reach` rows try to get past the proxy's address rules or around the proxy;
 * `survive` rows answer a granted command's request with a response that must not end toolgate; `ownAddress`
 * and `dnsFlood` rows need a machine whose network they change, so they run in a network namespace of their own
 * (testdata/network-redteam-netns.sh) through the binary. Rows with `broke` fail today: each is a break.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN } from "../test-support/cli.js";
import {
  type GateRunner,
  handOver,
  RUNUSER,
  startGateRunner,
  TEST_USER,
  testUser,
} from "../test-support/gate-runner.js";
import {
  type NetworkFixtures,
  runningWith,
  startNetworkFixtures,
  waitUntil,
} from "../test-support/sandbox-network.js";

interface ReachRow {
  note: string;
  command: string;
  output?: string;
  absent?: string;
  canary?: boolean;
  reply?: string;
  leftover?: string;
}
interface SealedRow {
  note: string;
  background: string;
  command: string;
  output: string;
  absent: string;
}
interface UntrustedRow {
  note: string;
  files: Record<string, string>;
}
interface SurviveRow {
  note: string;
  reply: string;
  broke?: string;
}
interface OwnAddressRow {
  note: string;
  command: string;
  absent: string;
  broke?: string;
}
interface Rows {
  reach: ReachRow[];
  survive: SurviveRow[];
  sealed: SealedRow[];
  untrusted: UntrustedRow[];
  ownAddress: OwnAddressRow[];
  dnsFlood: { note: string; count: number; broke?: string };
  connectionCap: { note: string; requests: number; cap: number; broke?: string };
}

const here = dirname(fileURLToPath(import.meta.url));
const rows = JSON.parse(readFileSync(join(here, "testdata", "network-redteam.json"), "utf8")) as Rows;
const POLICY = '[[rules]]\ntool = "shell"\ndecision = "allow"\nsandbox = "network"\n';
/** Public addresses (not in any refused range) the namespace rows give this "host". */
const OWN_V4 = "44.31.0.1";
const OWN_V6 = "2a01:4f8::1";

/**
 * A TCP server that answers what it is sent with `reply(path)` (raw bytes; `$ECHO` in it becomes the request
 * as received), then closes.
 */
async function startHostile(reply: (path: string) => string): Promise<{ port: number; server: Server }> {
  const server = createServer((socket) => {
    socket.on("error", () => {});
    socket.once("data", (chunk: Buffer) => {
      const request = chunk.toString("latin1");
      const path = /^[A-Z]+ (\S+)/.exec(request)?.[1] ?? "/";
      socket.end(Buffer.from(reply(path).replace("$ECHO", request), "latin1"));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as { port: number }).port, server };
}

/** A canary on the wildcard address: every address of this machine (127.0.0.1, ::1, each interface's) reaches it. */
async function startWildCanary(): Promise<{ port: number; hits(): number; server: Server }> {
  let hits = 0;
  const server = createServer((socket) => {
    hits++;
    socket.on("error", () => {});
    socket.end("HTTP/1.0 200 OK\r\ncontent-length: 13\r\n\r\nwild-reached\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "::", resolve));
  return { port: (server.address() as { port: number }).port, hits: () => hits, server };
}

/** This machine's own interface addresses (IPv6 in brackets), and one more loopback address so it is never empty. */
function hostAddresses(): string {
  const addresses = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal)
    .map((a) => (a!.family === "IPv6" ? `[${a!.address}]` : a!.address));
  return [...addresses, "127.0.0.2"].join(" ");
}

/** Starts a toolgate process (tgtest when root) over a fresh workspace with the red team's raw client in it. */
async function startRunner(
  base: string,
  name: string,
  allowHosts: string[],
  policyText = POLICY,
): Promise<GateRunner> {
  const [ws, home, xdg] = [join(base, `${name}-ws`), join(base, `${name}-home`), join(base, `${name}-xdg`)];
  for (const dir of [ws, home, xdg]) await mkdir(dir);
  copyFileSync(join(here, "testdata", "proxy-raw.py"), join(ws, "raw.py"));
  handOver([ws, home, xdg, join(ws, "raw.py")]);
  return startGateRunner({
    roots: [ws],
    policyText,
    config: { sandbox: { mode: "workspace-write", allow_hosts: allowHosts } },
    env: { HOME: home, XDG_CONFIG_HOME: xdg, PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8" },
    asTestUser: true,
  });
}

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "toolgate-netred-"));
  await chmod(base, 0o755);
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("network red team: reaching what the grant must not reach (held)", () => {
  let fixtures: NetworkFixtures;
  let wild: Awaited<ReturnType<typeof startWildCanary>>;
  let hostile: Awaited<ReturnType<typeof startHostile>>;
  let runner: GateRunner;
  const fill = (text: string) =>
    fixtures
      .fill(text)
      .replaceAll("$WILD", String(wild.port))
      .replaceAll("$HOSTILE", String(hostile.port))
      .replaceAll("$HOSTADDRS", hostAddresses())
      .replaceAll("$RAW", "python3 raw.py");

  beforeAll(async () => {
    fixtures = await startNetworkFixtures(join(base, "fixtures"));
    wild = await startWildCanary();
    // The rows that talk to $HOSTILE name their path right after it; each path gets its row's reply.
    const replies = new Map(
      rows.reach.filter((r) => r.reply).map((r) => [/\$HOSTILE(\/[^\s;]*)/.exec(r.command)?.[1], r.reply!]),
    );
    hostile = await startHostile((path) => fill(replies.get(path) ?? "HTTP/1.1 404 Not Found\r\n\r\n"));
    runner = await startRunner(base, "reach", [fixtures.named.hostPort, `127.0.0.1:${hostile.port}`]);
  });
  afterAll(async () => {
    await runner?.close();
    await fixtures?.close();
    wild?.server.close();
    hostile?.server.close();
  });

  it.each(rows.reach.map((r) => [r.note, r] as const))("%s", async (_note, row) => {
    const [before, wildBefore] = [fixtures.canaryHits(), wild.hits()];
    const result = await runner.execute({
      name: "shell",
      args: { command: fill(row.command), timeout: 90_000 },
    });
    const text = result.llmContent;
    expect(result.sandbox, text).toBe("workspace-write+network");
    expect(text).not.toMatch(/^bwrap: |could not be set up/m);
    if (row.output) expect(text).toContain(fill(row.output));
    if (row.absent) expect(text).not.toContain(row.absent);
    if (row.canary) {
      await fixtures.probe();
      // The wildcard canary takes connections in order: once this probe is counted, the command's are too.
      const probe = wild.hits();
      spawnSync("python3", ["-c", `import socket; socket.create_connection(("::1", ${wild.port})).close()`]);
      await waitUntil(() => wild.hits() > probe);
      expect(fixtures.canaryHits() - before, "a shared canary was reached").toBe(3);
      expect(wild.hits() - wildBefore, "the wildcard canary was reached").toBe(1);
    }
    if (row.leftover) {
      const marker = row.leftover;
      await waitUntil(() => runningWith(marker).length === 0);
      expect(runningWith(marker)).toEqual([]);
    }
  });
});

describe("network red team: sealed commands beside a granted one (held)", () => {
  const policy =
    '[[rules]]\ntool = "shell"\ndecision = "allow"\nsandbox = "network"\nwhen.command = { prefix = ["sleep"] }\n\n' +
    '[[rules]]\ntool = "shell"\ndecision = "allow"\n';
  it.each(rows.sealed.map((r) => [r.note, r] as const))("%s", async (_note, row) => {
    const runner = await startRunner(base, `sealed-${rows.sealed.indexOf(row)}`, [], policy);
    try {
      const started = await runner.execute({
        name: "shell",
        args: { command: row.background, background: true },
      });
      expect(started.sandbox, started.llmContent).toBe("workspace-write+network");
      const result = await runner.execute({ name: "shell", args: { command: row.command } });
      expect(result.sandbox, result.llmContent).toBe("workspace-write");
      expect(result.llmContent).toContain(row.output);
      expect(result.llmContent).not.toContain(row.absent);
      const id = started.data?.id ?? /id "(\w+)"/.exec(started.llmContent)?.[1];
      await runner.execute({ name: "shell_processes", args: { action: "stop", id } });
    } finally {
      await runner.close();
    }
  });
});

describe("network red team: grants a workspace nobody trusted asks for (held)", () => {
  it.each(rows.untrusted.map((r) => [r.note, r] as const))("%s", async (_note, row) => {
    const dir = join(base, `untrusted-${rows.untrusted.indexOf(row)}`);
    const [ws, home] = [join(dir, "ws"), join(dir, "home")];
    await mkdir(join(ws, ".toolgate"), { recursive: true });
    await mkdir(home);
    for (const [file, text] of Object.entries(row.files)) await writeFile(join(ws, file), text);
    handOver([dir, ws, home, join(ws, ".toolgate"), ...Object.keys(row.files).map((f) => join(ws, f))]);
    const command = "if env | grep -qi _proxy; then echo GRANTED; else echo sealed; fi";
    const argv = [BIN, "call", "shell", JSON.stringify({ command }), "--workspace", ws, "--yes"];
    const run = spawnSync(
      testUser() ? RUNUSER : process.execPath,
      testUser() ? ["-u", TEST_USER, "--", process.execPath, ...argv] : argv,
      {
        encoding: "utf8",
        cwd: ws,
        env: { HOME: home, PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8" },
      },
    );
    expect(run.stdout, run.stderr).toContain("sealed");
    expect(run.stdout).not.toContain("GRANTED");
    expect(run.stderr, "the warning names what was ignored").toMatch(/is not trusted: ignoring/);
  });
});

describe("network red team: the proxy's connection bound", () => {
  it(rows.connectionCap.note, async () => {
    const { requests, cap } = rows.connectionCap;
    let [open, most] = [0, 0];
    const tarpit = createServer((socket) => {
      most = Math.max(most, ++open);
      socket.on("error", () => {});
      socket.on("close", () => open--);
    });
    await new Promise<void>((resolve) => tarpit.listen(0, "127.0.0.1", resolve));
    const port = (tarpit.address() as { port: number }).port;
    const runner = await startRunner(base, "cap", [`127.0.0.1:${port}`]);
    try {
      const request = `GET http://127.0.0.1:${port}/ HTTP/1.1\\r\\nHost: x\\r\\nProxy-Authorization: Basic AUTH\\r\\n\\r\\n`;
      // The client waits 8 s for answers: before the fix every request had its own upstream socket within it.
      const command = `python3 raw.py "${request}" 8 ${requests}`;
      const started = await runner.execute({ name: "shell", args: { command, background: true } });
      const id = started.data?.id ?? /id "(\w+)"/.exec(started.llmContent)?.[1];
      expect(started.sandbox, started.llmContent).toBe("workspace-write+network");
      // Until the server holds more than the bound, or the command has ended.
      let ended = false;
      while (most <= cap && !ended) {
        const read = await runner.execute({ name: "shell_processes", args: { action: "read", id } });
        ended = /"status":"exited"|status: exited/.test(JSON.stringify(read.data ?? read.llmContent));
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await runner.execute({ name: "shell_processes", args: { action: "stop", id } });
      expect(most, "connections toolgate held open to one server for one command").toBeLessThanOrEqual(cap);
      expect(most, "the requests reached the server at all").toBeGreaterThan(0);
    } finally {
      await runner.close();
      tarpit.close();
    }
  });
});

describe("network red team: a server's answer must not end toolgate", () => {
  // One toolgate and one hostile server for every row (each row's reply on a path of its own): a row that
  // ended toolgate fails itself and every row after it.
  let hostile: Awaited<ReturnType<typeof startHostile>>;
  let runner: GateRunner;
  beforeAll(async () => {
    hostile = await startHostile(
      (path) => rows.survive[Number(path.slice(1))]?.reply ?? "HTTP/1.1 404 x\r\n\r\n",
    );
    runner = await startRunner(base, "survive", [`127.0.0.1:${hostile.port}`]);
  });
  afterAll(async () => {
    await runner?.close().catch(() => {});
    hostile?.server.close();
  });

  it.each(rows.survive.map((r, i) => [r.note, i] as const))("%s", async (_note, i) => {
    const command = `curl -sS -m 30 http://127.0.0.1:${hostile.port}/${i}; echo; echo curl-finished`;
    const first = await runner.execute({ name: "shell", args: { command } }).catch((error: Error) => error);
    expect(first instanceof Error ? first.message : "", "toolgate died answering the command").toBe("");
    expect((first as { llmContent: string }).llmContent).toContain("curl-finished");
  });
  it("toolgate still runs the next call after every reply", async () => {
    const next = await runner.execute({ name: "shell", args: { command: "echo still-here" } });
    expect(next.llmContent).toContain("still-here");
  });
});

/** Runs testdata/network-redteam-netns.sh (a network namespace of its own) with `calls`; its outputs. */
async function inNamespace(
  name: string,
  calls: { name: string; args: Record<string, unknown> }[],
  options: { dnsBlackhole?: boolean; files?: Record<string, string> } = {},
): Promise<{ results: { llmContent: string }[]; canary: string; dns: string; stderr: string }> {
  const dir = join(base, name);
  const [ws, home, out] = [join(dir, "ws"), join(dir, "home"), join(dir, "out")];
  for (const d of [dir, ws, home, out]) await mkdir(d, { recursive: true });
  await chmod(dir, 0o755);
  for (const [file, text] of Object.entries(options.files ?? {})) await writeFile(join(ws, file), text);
  await writeFile(join(dir, "calls.jsonl"), calls.map((c) => JSON.stringify(c)).join("\n"));
  await writeFile(join(dir, "policy.toml"), POLICY);
  await writeFile(join(dir, "config.toml"), "");
  handOver([ws, home, out, ...Object.keys(options.files ?? {}).map((f) => join(ws, f))]);
  const root = testUser() !== undefined;
  const unshare = [
    ...(root ? [] : ["--user", "--map-root-user"]),
    "--net",
    ...(options.dnsBlackhole ? ["--mount"] : []),
  ];
  const run = spawnSync("unshare", [...unshare, "bash", join(here, "testdata", "network-redteam-netns.sh")], {
    encoding: "utf8",
    env: {
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      OWN_V4,
      OWN_V6,
      OUT: out,
      WS: ws,
      CANARY_PORT: "7777",
      TG_MAIN: BIN,
      CALLS: join(dir, "calls.jsonl"),
      POLICY: join(dir, "policy.toml"),
      CONFIG: join(dir, "config.toml"),
      TG_USER: root ? TEST_USER : "",
      TG_HOME: home,
      DNS_BLACKHOLE: options.dnsBlackhole ? "1" : "",
    },
  });
  const results = run.stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { llmContent: string });
  const read = (file: string) => readFile(join(out, file), "utf8").catch(() => "");
  expect(results.length, `the namespace run: ${run.stderr}`).toBe(calls.length);
  return { results, canary: await read("canary.log"), dns: await read("dns.log"), stderr: run.stderr };
}

describe("network red team: this machine's own public addresses", () => {
  // Every row is one call of a single toolgate run in one namespace (a namespace run costs a toolgate start).
  let run: Awaited<ReturnType<typeof inNamespace>>;
  beforeAll(async () => {
    const calls = rows.ownAddress.map((row) => {
      const command = row.command
        .replaceAll("$OWN_V4", OWN_V4)
        .replaceAll("$OWN_V6", OWN_V6)
        .replaceAll("$CANARY", "7777");
      return { name: "shell", args: { command } };
    });
    run = await inNamespace("own", calls);
  });
  it.each(rows.ownAddress.map((r, i) => [r.note, r, i] as const))("%s", (_note, row, i) => {
    const text = run.results[i]!.llmContent;
    // The command ran behind the proxy (a refusal or a connection), not in a namespace that failed to start.
    expect(text).not.toMatch(/^bwrap: |could not be set up/m);
    expect(text, "a wildcard-bound service of this machine answered").not.toContain(row.absent);
    expect(text).toContain("of this machine's own network interfaces");
    expect(run.canary, "the wildcard canary saw a connection").toBe("");
  });
});

describe("network red team: a granted command flooding the proxy's name lookups", () => {
  it(rows.dnsFlood.note, async () => {
    const count = rows.dnsFlood.count;
    // Opens `count` connections, each asking CONNECT for a name of its own, and ends once the proxy has
    // answered the first (so every request has reached it): the other lookups are still waiting then.
    const flood = [
      "import base64, os, socket, urllib.parse",
      'p = urllib.parse.urlparse(os.environ["HTTP_PROXY"])',
      'auth = base64.b64encode(f"{p.username}:{p.password}".encode()).decode()',
      "socks = [socket.create_connection(('127.0.0.1', 3128)) for _ in range(" + count + ")]",
      "for i, s in enumerate(socks):",
      '    s.sendall(f"CONNECT flood-{i}.example:443 HTTP/1.1\\r\\nProxy-Authorization: Basic {auth}\\r\\n\\r\\n".encode())',
      "print('first answer:', socks[0].recv(200).split(b'\\r\\n')[0].decode())",
    ].join("\n");
    const { results, dns } = await inNamespace(
      "dns-flood",
      [
        { name: "shell", args: { command: "python3 flood.py" } },
        // Marks the end of the flooding command for the DNS server's log (queries after it say "after").
        { name: "shell", args: { command: "touch ended" } },
        // Keeps toolgate running until its own lookup is answered (or times out): queued ones run before it.
        { name: "shell", args: { command: "curl -sS -m 60 http://after-flood.example/" } },
      ],
      { dnsBlackhole: true, files: { "flood.py": flood } },
    );
    expect(results[0]!.llmContent).toContain("first answer:");
    const lines = dns.split("\n").filter(Boolean);
    expect(
      lines.filter((l) => l.startsWith("before flood-")).length,
      "the flood never reached DNS",
    ).toBeGreaterThan(0);
    expect(
      lines.filter((l) => l.startsWith("after flood-")),
      "lookups sent after the command ended",
    ).toEqual([]);
  });
});
