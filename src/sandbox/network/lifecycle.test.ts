/**
 * A network grant's processes and socket end with the command — foreground, background, and when toolgate
 * itself is killed — and a grant that cannot get its namespace never runs (fail closed). Real bwrap, socat
 * and processes; the checks read /proc.
 */
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handOver, startGateRunner } from "../../test-support/gate-runner.js";
import {
  descendants,
  type NetworkFixtures,
  proxyFolders,
  runningExactly,
  runningWith,
  startNetworkFixtures,
  waitUntil,
} from "../../test-support/sandbox-network.js";
import { createToolgate, type Toolgate } from "../../toolgate.js";
import { DEFAULT_SANDBOX_SETTINGS, type LauncherFd, prepareSandbox } from "../prepare.js";
import { SandboxSetupError } from "../survey.js";
import { connectNetwork, pendingNetwork } from "./connect.js";
import { openForwarder } from "./forwarder.js";

/** bwrap's options as a launcher descriptor carries them (`--args`: NUL-terminated). */
function bwrapOptions(fd: LauncherFd | undefined): string[] {
  if (!fd || !("data" in fd)) throw new Error("fd 3 carries no data");
  return Buffer.from(fd.data).toString("latin1").split("\0").slice(0, -1);
}

const POLICY = '[[rules]]\ntool = "shell"\ndecision = "allow"\nsandbox = "network"\n';

let base: string;
let ws: string;
let fixtures: NetworkFixtures;
let gate: Toolgate;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "toolgate-netlife-"));
  await chmod(base, 0o755);
  ws = join(base, "ws");
  await mkdir(ws);
  fixtures = await startNetworkFixtures(join(base, "fixtures"));
  gate = await createToolgate({
    roots: [ws],
    policyText: POLICY,
    config: { sandbox: { mode: "workspace-write", allow_hosts: [fixtures.named.hostPort] } },
  });
  // shell_processes is asked about: a person approves.
  gate.bus.onConfirmation(async () => ({ approved: true }));
});
afterAll(async () => {
  await gate?.close();
  await fixtures?.close();
  await rm(base, { recursive: true, force: true });
});

/** The forwarder's folder below process `root`, once exactly one network grant runs there. */
async function grantFolder(root: number): Promise<string> {
  await waitUntil(() => proxyFolders(descendants(root)).length === 1);
  return proxyFolders(descendants(root))[0]!;
}

describe("a network grant ends with its command", () => {
  it("foreground: the namespace, socat and the proxy's socket are gone when the result is in", async () => {
    const command = `while [ ! -e go ]; do sleep 0.05; done; curl -sS http://127.0.0.1:${fixtures.named.port}/hello`;
    const running = gate.execute({ name: "shell", args: { command, timeout: 60_000 } });
    const folder = await grantFolder(process.pid);
    expect(existsSync(join(folder, "proxy.sock"))).toBe(true);
    expect(runningWith(folder).length).toBeGreaterThan(0);
    await writeFile(join(ws, "go"), "");
    const result = await running;
    expect(result.llmContent).toContain("named-ok");
    await waitUntil(() => runningWith(folder).length === 0);
    expect(existsSync(folder)).toBe(false);
    await rm(join(ws, "go"));
  });

  it("background: shell_processes stop ends the command, the forwarder and the proxy", async () => {
    const started = await gate.execute({
      name: "shell",
      args: { command: "sleep 4242", background: true, sandbox: "network", justification: "test" },
    });
    expect(started.ok, started.llmContent).toBe(true);
    const folder = await grantFolder(process.pid);
    await waitUntil(() => runningExactly("sleep 4242").length === 1);
    const id = (started.data as { id: string }).id;
    const stopped = await gate.execute({ name: "shell_processes", args: { action: "stop", id } });
    expect(stopped.ok, stopped.llmContent).toBe(true);
    await waitUntil(() => runningWith(folder).length === 0 && runningExactly("sleep 4242").length === 0);
    expect(existsSync(folder)).toBe(false);
  });

  it("killed toolgate (SIGKILL, as the non-root user): nothing it started for the grant outlives it", async () => {
    const [userWs, home] = [join(base, "kill-ws"), join(base, "kill-home")];
    for (const dir of [userWs, home]) await mkdir(dir);
    handOver([userWs, home]);
    const runner = await startGateRunner({
      roots: [userWs],
      policyText: POLICY,
      config: { sandbox: { mode: "workspace-write" } },
      env: { HOME: home, XDG_CONFIG_HOME: home, PATH: "/usr/local/bin:/usr/bin:/bin" },
      asTestUser: true,
    });
    const started = await runner.execute({
      name: "shell",
      args: { command: "sleep 4343", background: true, sandbox: "network", justification: "test" },
    });
    expect(started.ok, started.llmContent).toBe(true);
    const folder = await grantFolder(runner.pid);
    await waitUntil(() => runningExactly("sleep 4343").length === 1);
    process.kill(runner.pid, "SIGKILL");
    await runner.exited;
    await waitUntil(() => runningWith(folder).length === 0 && runningExactly("sleep 4343").length === 0);
    // The socket file is left (nobody removed it) but nothing answers on it any more.
    const code = await new Promise<string>((resolve) => {
      const socket = connect(join(folder, "proxy.sock"));
      socket.once("connect", () => resolve("connected"));
      socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
    });
    expect(["ECONNREFUSED", "ENOENT"]).toContain(code);
    await rm(folder, { recursive: true, force: true });
  });
});

describe("fail closed", () => {
  it("a malformed [sandbox] allow_hosts entry stops the gate at creation, naming it", async () => {
    await expect(
      createToolgate({ roots: [ws], config: { sandbox: { allow_hosts: ["http://10.0.0.1/"] } } }),
    ).rejects.toThrow('sandbox.allow_hosts: invalid entry "http://10.0.0.1/": expected host or host:port');
  });

  it("a granted command is sealed until connectNetwork gives it its namespace", () => {
    const confinement = prepareSandbox(
      { ...DEFAULT_SANDBOX_SETTINGS, mode: "workspace-write" },
      { roots: [ws], cwd: ws, grant: "network" },
    );
    try {
      expect(confinement.sandboxed).toBe(true);
      if (!confinement.sandboxed) return;
      expect(confinement.network).toBeDefined();
      // bwrap reads its options from the descriptor `--args` names (fd 3, the first of `fds`).
      expect(confinement.argv.slice(1, 3)).toEqual(["--args", "3"]);
      const sealed = bwrapOptions(confinement.fds[0]);
      expect(sealed).toContain("--unshare-all");
      expect(sealed).not.toContain("--share-net");
      // Once connected, the same descriptor carries --share-net and the proxy variables.
      const launch = confinement.network!.launch(["nsenter", "--"], { HTTP_PROXY: "http://127.0.0.1:3128" });
      expect(launch.argv.slice(0, 5)).toEqual(["nsenter", "--", confinement.argv[0], "--args", "3"]);
      const granted = bwrapOptions(launch.fds[0]);
      expect(granted).toContain("--share-net");
      expect(granted.join(" ")).toContain("--setenv HTTP_PROXY http://127.0.0.1:3128");
      // The other descriptors keep their places: the filter at 4, the opened sources and their copies after it.
      expect(launch.fds.slice(1)).toEqual(confinement.fds.slice(1));
    } finally {
      if (confinement.sandboxed) confinement.release();
    }
  });

  it("a namespace that cannot be made refuses the command with the reason, and releases what it held", async () => {
    let released = 0;
    const attempt = connectNetwork({
      sandboxed: true,
      profile: "workspace-write+network",
      argv: ["never-run"],
      release: () => {
        released++;
        return undefined;
      },
      fds: [],
      network: pendingNetwork(() => ({ argv: ["never-run"], fds: [] }), join(base, "no-such-bwrap"), []),
    });
    await expect(attempt).rejects.toThrow(SandboxSetupError);
    await expect(attempt).rejects.toThrow(/could not be set up: .*no-such-bwrap was not found.*did not run/);
    expect(released).toBe(1);
    expect(proxyFolders(descendants(process.pid))).toEqual([]);
  });

  it("a forwarder that cannot start (socat missing) says so", async () => {
    const attempt = openForwarder({
      socketPath: join(base, "none.sock"),
      port: 3128,
      bwrap: "bwrap",
      socat: join(base, "no-such-socat"),
    });
    await expect(attempt).rejects.toThrow("socat is not installed (apt-get install socat)");
  });
});
