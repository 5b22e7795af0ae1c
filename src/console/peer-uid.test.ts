/**
 * The console serves only the user who started it, whatever address a local peer connects from, and holds
 * every loopback socket of its port: the table in testdata/peer-cases.json over real HTTP (the test runs the
 * console as root and the other user as tgtest with runuser and curl), the red team's lockouts (F3, and P2
 * with sockets closed right after sending) sent by another user, a console refusing to start when
 * another user holds [::1] at its port (F9), and /proc/net's address format.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import { createServer } from "node:net";
import { endianness, networkInterfaces } from "node:os";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleFixture, TOKEN } from "../test-support/console.js";
import { startConsole } from "./index.js";
import { isLoopbackAddress, procAddress } from "./peer-uid.js";
import cases from "./testdata/peer-cases.json" with { type: "json" };

const isRoot = process.getuid?.() === 0;
const hasTgtest = (() => {
  try {
    execFileSync("id", ["-u", "tgtest"]);
    return true;
  } catch {
    return false;
  }
})();

const run = promisify(execFile);

/** This machine's first address of `family` that is not loopback or link-local, if it has one. */
function ownAddress(family: "IPv4" | "IPv6"): string | undefined {
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? [])
      if (!a.internal && a.family === family && !a.address.startsWith("fe80")) return a.address;
  return undefined;
}
const OWN: Record<string, string | undefined> = {
  "own IPv4": ownAddress("IPv4"),
  "own IPv6": ownAddress("IPv6"),
};

/** A wrong-token sign-in sent by another user on a socket it closes at once (red team P2), behind junk connections. */
const ORPHANS = `const net = require("net");
const [port, n, junk] = process.argv.slice(1).map(Number);
const body = "token=" + "x".repeat(43);
const post = "POST /login HTTP/1.1\\r\\nHost: 127.0.0.1:" + port + "\\r\\nOrigin: http://127.0.0.1:" + port +
  "\\r\\nContent-Type: application/x-www-form-urlencoded\\r\\nContent-Length: " + body.length + "\\r\\n\\r\\n" + body;
const connect = () => new Promise((resolve) => { const s = net.connect(port, "127.0.0.1", () => resolve(s)); s.on("error", () => {}); });
(async () => {
  for (let i = 0; i < n; i++) {
    const held = [];
    for (let j = 0; j < junk; j++) { const s = await connect(); s.write("GET /login HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"); held.push(s); }
    const s = await connect();
    s.write(post, () => s.destroy());
    await new Promise((r) => setTimeout(r, 300));
    for (const h of held) h.destroy();
  }
})();`;

/**
 * curl as `user` to `address`:`port`, with the console's own Host and Origin; the status and body (run
 * asynchronously: the console answers from this same process).
 */
async function curl(
  user: string,
  address: string,
  port: number,
  path: string,
  from?: string,
): Promise<{ status: number; body: string }> {
  const host = address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
  const post = path.startsWith("POST ");
  const args = [
    "-s",
    "-g",
    "-o",
    "-",
    "-w",
    "\n%{http_code}",
    "-H",
    `Host: ${host}`,
    "-H",
    `Origin: http://${host}`,
  ];
  if (post) args.push("--data-urlencode", `token=${TOKEN}`);
  if (from) args.push("--interface", from);
  args.push(`http://${host}${post ? path.slice(5) : path}`);
  const command = user === "owner" ? ["curl", ...args] : ["runuser", "-u", user, "--", "curl", ...args];
  const { stdout: out } = await run(command[0] as string, command.slice(1), { encoding: "utf8" });
  const at = out.lastIndexOf("\n");
  return { status: Number(out.slice(at + 1)), body: out.slice(0, at) };
}

describe.runIf(isRoot && hasTgtest && process.platform === "linux")("the console's loopback peers", () => {
  let fixture: Awaited<ReturnType<typeof consoleFixture>>;
  beforeAll(async () => {
    fixture = await consoleFixture();
  });
  afterAll(async () => fixture.close());

  const table = cases.cases as { user: string; address: string; from?: string; path: string; want: number }[];
  // A machine without a global IPv6 address cannot send the 'own IPv6' rows: they say so in their name.
  it.each(table.filter((c) => c.from === undefined || !(c.from in OWN) || OWN[c.from]))(
    "$note → $want",
    async ({ user, address, from, path, want }) => {
      const source = from && from in OWN ? OWN[from] : from;
      const res = await curl(user, address, fixture.running.port, path, source);
      expect(res.status).toBe(want);
      if (want === 403)
        expect(res.body).toMatch(
          /^refused: this console serves only the user who started it \(uid 0\); this connection comes from uid \d+$/,
        );
    },
  );

  it("another user's wrong tokens never lock the owner out (red team F3)", async () => {
    for (let i = 0; i < 25; i++) {
      const res = await curl("tgtest", "127.0.0.1", fixture.running.port, "POST /login?guess");
      expect(res.status).toBe(403);
    }
    expect((await curl("owner", "127.0.0.1", fixture.running.port, "POST /login")).status).toBe(200);
  });

  it("another user's sign-ins on sockets closed at once are refused, never taken for a root owner (red team P2)", async () => {
    await run("runuser", [
      "-u",
      "tgtest",
      "--",
      "node",
      "-e",
      ORPHANS,
      String(fixture.running.port),
      "10",
      "15",
    ]);
    expect((await curl("owner", "127.0.0.1", fixture.running.port, "POST /login")).status).toBe(200);
  });

  it("holds [::1] at its port: another user cannot bind it while the console runs (red team F9)", async () => {
    const script = `require("net").createServer().on("error",e=>{console.log(e.code);process.exit(0)}).listen(${fixture.running.port},"::1",()=>{console.log("BOUND");process.exit(0)})`;
    const { stdout } = await run("runuser", ["-u", "tgtest", "--", "node", "-e", script], {
      encoding: "utf8",
    });
    expect(stdout.trim()).toBe("EADDRINUSE");
  });

  it("refuses to start when another user holds [::1] at its port, naming the uid", async () => {
    const probe = createServer();
    const port = await new Promise<number>((resolve) =>
      probe.listen(0, "127.0.0.1", () => resolve((probe.address() as { port: number }).port)),
    );
    await new Promise((resolve) => probe.close(resolve));
    const script = `require("net").createServer().listen(${port},"::1",()=>console.log("BOUND"))`;
    const squatter = spawn("runuser", ["-u", "tgtest", "--", "node", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        squatter.stdout.on("data", (d: Buffer) => d.toString().includes("BOUND") && resolve());
        squatter.once("exit", () => reject(new Error("the squatter could not bind")));
      });
      const uid = execFileSync("id", ["-u", "tgtest"], { encoding: "utf8" }).trim();
      await expect(startConsole({ store: fixture.store, token: TOKEN, port })).rejects.toThrow(
        `port ${port} is taken on ::1 by another program (uid ${uid}): a browser going to localhost:${port} would reach it`,
      );
    } finally {
      squatter.kill();
    }
  });
});

describe("/proc/net addresses", () => {
  it.each([
    ["127.0.0.1", 8080, "tcp", "0100007F:1F90", "7F000001:1F90"],
    ["127.0.0.2", 1, "tcp", "0200007F:0001", "7F000002:0001"],
    ["::1", 443, "tcp6", "00000000000000000000000001000000:01BB", "00000000000000000000000000000001:01BB"],
    [
      "::ffff:127.0.0.1",
      80,
      "tcp6",
      "0000000000000000FFFF00000100007F:0050",
      "00000000000000000000FFFF7F000001:0050",
    ],
  ])("%s port %d → %s %s (little-endian) / %s (big-endian)", (address, port, table, le, be) => {
    expect(procAddress(address, port)).toEqual({ table, text: endianness() === "LE" ? le : be });
  });

  it.each([
    ["127.0.0.1", true],
    ["127.255.0.9", true],
    ["::1", true],
    ["::ffff:127.0.0.1", true],
    ["10.0.0.1", false],
    ["::ffff:10.0.0.1", false],
    ["fe80::1", false],
  ])("%s is loopback: %s", (address, loopback) => {
    expect(isLoopbackAddress(address as string)).toBe(loopback);
  });
});
