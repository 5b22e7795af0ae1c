/**
 * What a network grant gives a command, through the shell tool and real bwrap: testdata/network.json, run in
 * this process and again in a toolgate process of the non-root user tgtest (when the suite runs as root; root
 * inside a sandbox would hide real breaks). Everyday network work goes through (curl, git, npm, Python); the
 * host's loopback services, UDP, abstract sockets, private and metadata addresses stay out of reach.
 */
import { readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type GateRunner,
  handOver,
  type RunnerResult,
  startGateRunner,
  testUser,
} from "../../test-support/gate-runner.js";
import { type NetworkFixtures, startNetworkFixtures } from "../../test-support/sandbox-network.js";
import { createToolgate, type Toolgate } from "../../toolgate.js";

interface NetworkCase {
  note: string;
  command: string;
  stdout?: string;
  output?: string;
  absent?: string;
  exitCode?: number;
  canary?: boolean;
}

const here = dirname(fileURLToPath(import.meta.url));
const cases = (
  JSON.parse(readFileSync(join(here, "testdata", "network.json"), "utf8")) as { cases: NetworkCase[] }
).cases;
const POLICY = '[[rules]]\ntool = "shell"\ndecision = "allow"\nsandbox = "network"\n';

let base: string;
let fixtures: NetworkFixtures;
let gate: Toolgate;
let runner: GateRunner;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "toolgate-netgrant-"));
  // The other user's toolgate must reach its workspace, home and config folder below this one.
  await chmod(base, 0o755);
  fixtures = await startNetworkFixtures(join(base, "fixtures"));
  const config = { sandbox: { mode: "workspace-write" as const, allow_hosts: [fixtures.named.hostPort] } };
  const ws = join(base, "ws");
  await mkdir(ws);
  gate = await createToolgate({ roots: [ws], policyText: POLICY, config });
  // shell_processes (reading a background command) is asked about: a person approves.
  gate.bus.onConfirmation(async () => ({ approved: true }));
  const [userWs, home, xdg] = [join(base, "user-ws"), join(base, "user-home"), join(base, "user-xdg")];
  for (const dir of [userWs, home, xdg]) await mkdir(dir);
  handOver([userWs, home, xdg]);
  runner = await startGateRunner({
    roots: [userWs],
    policyText: POLICY,
    config,
    env: { HOME: home, XDG_CONFIG_HOME: xdg, PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8" },
    asTestUser: true,
  });
});

afterAll(async () => {
  await runner?.close();
  await gate?.close();
  await fixtures?.close();
  await rm(base, { recursive: true, force: true });
});

/** Runs `c` with `execute` and checks it; canary hits are counted only after the canaries' own probe. */
async function check(c: NetworkCase, execute: (command: string) => Promise<RunnerResult>): Promise<void> {
  const before = fixtures.canaryHits();
  const result = await execute(fixtures.fill(c.command));
  const text = result.llmContent;
  expect(result.sandbox, text).toBe("workspace-write+network");
  // The command ran in its sandbox: a namespace that failed to start would make every refusal pass.
  expect(text).not.toMatch(/^bwrap: |could not be set up/m);
  if (c.exitCode !== undefined) expect(result.data?.exitCode, text).toBe(c.exitCode);
  if (c.stdout) expect(result.data?.stdout ?? "", text).toContain(c.stdout);
  if (c.output) expect(text).toContain(fixtures.fill(c.output));
  if (c.absent) expect(text).not.toContain(c.absent);
  if (c.canary) {
    // Anything the command sent arrived before the probe's own connections: after them, the count is final.
    await fixtures.probe();
    expect(fixtures.canaryHits() - before, "a canary was reached").toBe(3);
  }
}

describe("a network grant, as this user", () => {
  it.each(cases.map((c) => [c.note, c] as const))("%s", async (_note, c) => {
    await check(c, async (command) => {
      const r = await gate.execute({ name: "shell", args: { command, timeout: 60_000 } });
      return { ...r, llmContent: `${r.llmContent}`, data: r.data as RunnerResult["data"] };
    });
  });
});

describe("a network grant, in the background: nothing the foreground cannot reach", () => {
  it.each(cases.filter((c) => c.canary).map((c) => [c.note, c] as const))("%s", async (_note, c) => {
    const before = fixtures.canaryHits();
    const started = await gate.execute({
      name: "shell",
      args: { command: fixtures.fill(c.command), background: true },
    });
    expect(started.ok, `${started.llmContent}`).toBe(true);
    expect(started.sandbox).toBe("workspace-write+network");
    const id = (started.data as { id: string }).id;
    let output: string | undefined;
    while (output === undefined) {
      const read = await gate.execute({ name: "shell_processes", args: { action: "read", id } });
      const data = read.data as { status?: string; stdout?: string; stderr?: string };
      if (data.status === "exited") output = `${data.stdout ?? ""}${data.stderr ?? ""}`;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(output).not.toMatch(/^bwrap: /m);
    if (c.absent) expect(output).not.toContain(c.absent);
    await fixtures.probe();
    expect(fixtures.canaryHits() - before, "a canary was reached").toBe(3);
  });
});

describe(`a network grant, as the non-root user (${testUser() ? "tgtest" : "this user: not root"})`, () => {
  it("runs as that user, inside the sandbox too", async () => {
    const result = await runner.execute({
      name: "shell",
      args: { command: "id -u", sandbox: "network", justification: "test" },
    });
    if (testUser()) expect(runner.uid).toBe(testUser()!.uid);
    expect(runner.uid).not.toBe(0);
    expect(result.data?.stdout?.trim()).toBe(String(runner.uid));
  });

  it.each(cases.map((c) => [c.note, c] as const))("%s", async (_note, c) => {
    await check(c, (command) => runner.execute({ name: "shell", args: { command, timeout: 60_000 } }));
  });
});
