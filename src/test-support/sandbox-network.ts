/**
 * @module test-support/sandbox-network
 * What the network-grant tests reach for, all real and on this machine: a "named" HTTP server on 127.0.0.1
 * (the test's `[sandbox] allow_hosts` names it) serving a page, a git repository over dumb HTTP and an npm
 * registry with one package; canaries nobody names (TCP, UDP, an abstract unix socket) counting every
 * connection; and a look at /proc for the processes a network grant starts, to prove they end.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createSocket } from "node:dgram";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { join, normalize } from "node:path";
import { type AbstractCanary, startAbstractCanary } from "./abstract-canary.js";
import { startServer, type TestServer } from "./web-servers.js";

/** The servers and canaries of one test file. */
export interface NetworkFixtures {
  named: TestServer;
  /** The port of the loopback canary nobody names. */
  unnamedPort: number;
  abstract: AbstractCanary;
  udpPort: number;
  /** Connections the canaries have seen (TCP, UDP datagrams, abstract socket). */
  canaryHits(): number;
  /**
   * Reaches each of the three canaries once from this process and waits until all three have counted it:
   * whatever a finished command sent them is counted by then (each canary takes its traffic in order).
   */
  probe(): Promise<void>;
  /** `$NAMED`, `$UNNAMED`, `$UDP`, `$ABSTRACT` in `text`, filled in. */
  fill(text: string): string;
  close(): Promise<void>;
}

/** Starts everything under `dir` (a fresh temp folder). */
export async function startNetworkFixtures(dir: string): Promise<NetworkFixtures> {
  const repo = await makeRepository(join(dir, "repo-src"), join(dir, "repo.git"));
  const tarball = await makePackage(join(dir, "pkg"));
  let origin = "";
  const named = await startServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    if (path === "/hello") return res.end("named-ok\n");
    if (path.startsWith("/repo.git/")) {
      const file = normalize(join(repo, path.slice("/repo.git/".length)));
      if (!file.startsWith(repo) || !existsSync(file)) return notFound(res);
      return res.end(await readFile(file));
    }
    if (path === "/npm/tiny-pkg") {
      res.setHeader("content-type", "application/json");
      return res.end(JSON.stringify(packument(`${origin}/npm/tiny-pkg/-/tiny-pkg-1.0.0.tgz`, tarball.bytes)));
    }
    if (path === "/npm/tiny-pkg/-/tiny-pkg-1.0.0.tgz") return res.end(tarball.bytes);
    return notFound(res);
  });
  origin = named.origin;
  let tcpHits = 0;
  let udpHits = 0;
  // Every connection counts, not only complete requests (a raw `/dev/tcp` connect sends none).
  const unnamedServer = createServer((_req, res) => res.end("unnamed-reached\n"));
  unnamedServer.on("connection", () => tcpHits++);
  await new Promise<void>((resolve) => unnamedServer.listen(0, "127.0.0.1", resolve));
  const unnamedPort = (unnamedServer.address() as AddressInfo).port;
  const udp = createSocket("udp4");
  udp.on("message", () => udpHits++);
  await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
  const abstract = await startAbstractCanary(`toolgate-net-canary-${process.pid}`);
  const udpPort = udp.address().port;
  return {
    named,
    unnamedPort,
    abstract,
    udpPort,
    canaryHits: () => tcpHits + udpHits + abstract.hits(),
    async probe() {
      const [tcp, datagrams, abstractHits] = [tcpHits, udpHits, abstract.hits()];
      await new Promise<void>((resolve, reject) => {
        const socket = connect(unnamedPort, "127.0.0.1", () => {
          socket.destroy();
          resolve();
        });
        socket.on("error", reject);
      });
      const sender = createSocket("udp4");
      await new Promise<void>((resolve) => sender.send("probe", udpPort, "127.0.0.1", () => resolve()));
      sender.close();
      const python = `import socket; socket.socket(socket.AF_UNIX).connect("\\0${abstract.name}")`;
      execFileSync("python3", ["-c", python], { stdio: "pipe" });
      await abstract.waitForHits(abstractHits + 1);
      await waitUntil(() => tcpHits > tcp && udpHits > datagrams);
    },
    fill: (text) =>
      text
        .replaceAll("$NAMED", String(named.port))
        .replaceAll("$UNNAMED", String(unnamedPort))
        .replaceAll("$UDP", String(udpPort))
        .replaceAll("$ABSTRACT", abstract.name),
    async close() {
      udp.close();
      await abstract.close();
      await named.close();
      unnamedServer.closeAllConnections();
      await new Promise((resolve) => unnamedServer.close(resolve));
    },
  };
}

function notFound(res: import("node:http").ServerResponse) {
  res.statusCode = 404;
  res.end("not found\n");
}

/** A bare repository with one commit (README: "cloned-content"), ready for git's dumb HTTP protocol. */
async function makeRepository(src: string, bare: string): Promise<string> {
  await mkdir(src, { recursive: true });
  await writeFile(join(src, "README"), "cloned-content\n");
  const git = (args: string[], cwd: string) =>
    execFileSync("git", args, {
      cwd,
      stdio: "pipe",
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@t",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@t",
      },
    });
  git(["init", "-q", "-b", "main", "."], src);
  git(["add", "README"], src);
  git(["commit", "-q", "-m", "one"], src);
  git(["clone", "-q", "--bare", src, bare], src);
  git(["update-server-info"], bare);
  return bare;
}

/** An npm package tarball (`package/` inside, as `npm pack` makes it) whose main module exports a marker. */
async function makePackage(dir: string): Promise<{ bytes: Buffer }> {
  await mkdir(join(dir, "package"), { recursive: true });
  const manifest = { name: "tiny-pkg", version: "1.0.0", main: "index.js" };
  await writeFile(join(dir, "package", "package.json"), JSON.stringify(manifest));
  await writeFile(join(dir, "package", "index.js"), 'module.exports = "tiny-pkg-works";\n');
  execFileSync("tar", ["-czf", "tiny-pkg-1.0.0.tgz", "package"], { cwd: dir, stdio: "pipe" });
  return { bytes: await readFile(join(dir, "tiny-pkg-1.0.0.tgz")) };
}

/** The registry's document for tiny-pkg. */
function packument(tarballUrl: string, bytes: Buffer) {
  const integrity = `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
  const shasum = createHash("sha1").update(bytes).digest("hex");
  const version = {
    name: "tiny-pkg",
    version: "1.0.0",
    main: "index.js",
    dist: { tarball: tarballUrl, integrity, shasum },
  };
  return { name: "tiny-pkg", "dist-tags": { latest: "1.0.0" }, versions: { "1.0.0": version } };
}

/** A process seen in /proc. */
interface Seen {
  pid: number;
  ppid: number;
  state: string;
  cmdline: string;
}

function processes(): Seen[] {
  const out: Seen[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      out.push({ pid: Number(entry), ppid: Number(fields[1]), state: fields[0] ?? "", cmdline });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** The live processes below `root` (children, grandchildren, …). */
export function descendants(root: number): Seen[] {
  const all = processes().filter((p) => p.state !== "Z" && p.state !== "X");
  const below = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (!below.has(p.pid) && below.has(p.ppid)) {
        below.add(p.pid);
        grew = true;
      }
    }
  }
  return all.filter((p) => p.pid !== root && below.has(p.pid));
}

/** The egress-proxy socket folders named on the command lines of `seen` (the forwarder's `UNIX-CONNECT:`). */
export function proxyFolders(seen: readonly Seen[]): string[] {
  const folders = seen.flatMap((p) =>
    [...p.cmdline.matchAll(/UNIX-CONNECT:(\S+)\/proxy\.sock/g)].map((m) => m[1]!),
  );
  return [...new Set(folders)];
}

/** Live processes anywhere whose command line is exactly `words` (joined by spaces). */
export function runningExactly(words: string): Seen[] {
  return processes().filter((p) => p.state !== "Z" && p.state !== "X" && p.cmdline === words);
}

/** Live processes anywhere whose command line contains `text`. */
export function runningWith(text: string): Seen[] {
  return processes().filter((p) => p.state !== "Z" && p.state !== "X" && p.cmdline.includes(text));
}

/** Waits (bounded by the test's own time-out) until `done()` holds; checks every 50 ms. */
export async function waitUntil(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 50));
}
