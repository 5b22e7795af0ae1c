/**
 * The network namespace a grant gets keeps the host's abstract unix sockets and loopback services out on its
 * own — without the command's bwrap or the seccomp filter, which refuses unix sockets anyway and would hide a
 * namespace that shares the host's. testdata/namespace.json: each argv runs in the host's namespace first (it
 * must reach its canary: the row can fail) and then entered into a fresh grant namespace (it must reach
 * nothing), from python, socat and node; as this user and as the non-root user tgtest.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUNUSER, TEST_USER, testUser } from "../../test-support/gate-runner.js";
import { type NetworkFixtures, startNetworkFixtures } from "../../test-support/sandbox-network.js";

interface NamespaceCase {
  note: string;
  argv: string[];
}

interface Outcome {
  ns: string;
  exitCode: number | null;
  stderr: string;
  error?: string;
}

const testdata = join(dirname(fileURLToPath(import.meta.url)), "testdata");
const cases = (
  JSON.parse(readFileSync(join(testdata, "namespace.json"), "utf8")) as { cases: NamespaceCase[] }
).cases;

const run = promisify(execFile);
let base: string;
let fixtures: NetworkFixtures;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "toolgate-netns-"));
  await chmod(base, 0o755);
  fixtures = await startNetworkFixtures(join(base, "fixtures"));
});

afterAll(async () => {
  await fixtures?.close();
  await rm(base, { recursive: true, force: true });
});

/** Runs `argv` through the runner in `mode`, as tgtest when `asTestUser`; resolves with its report. */
async function runOnce(mode: "control" | "inside", argv: string[], asTestUser: boolean): Promise<Outcome> {
  const filled = argv.map((word) => fixtures.fill(word).replaceAll("$NODE", process.execPath));
  const runner = [process.execPath, join(testdata, "namespace-runner.mjs"), mode, JSON.stringify(filled)];
  const words = asTestUser ? [RUNUSER, "-u", TEST_USER, "--", ...runner] : runner;
  const env = { PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`, LANG: "C.UTF-8" };
  // A runner that fails rejects with its stderr (execFile's error carries it).
  const { stdout } = await run(words[0]!, words.slice(1), { env });
  return JSON.parse(stdout) as Outcome;
}

/** Connections the canaries saw while `work` ran (the probe's own three taken off, once they have arrived). */
async function hitsDuring(work: () => Promise<Outcome>): Promise<{ hits: number; outcome: Outcome }> {
  const before = fixtures.canaryHits();
  const outcome = await work();
  await fixtures.probe();
  return { hits: fixtures.canaryHits() - before - 3, outcome };
}

const users = [
  ["this user", false],
  ...(testUser() ? [[`the non-root user ${TEST_USER}`, true] as const] : []),
] as const;

describe.each(users)("a grant's namespace alone, as %s", (_who, asTestUser) => {
  it.each(cases.map((c) => [c.note, c] as const))("%s", async (_note, c) => {
    const control = await hitsDuring(() => runOnce("control", c.argv, asTestUser));
    expect(control.outcome.exitCode, `in the host's namespace: ${control.outcome.stderr}`).toBe(0);
    expect(
      control.hits,
      "the canary cannot be reached even from the host: the row proves nothing",
    ).toBeGreaterThan(0);
    const inside = await hitsDuring(() => runOnce("inside", c.argv, asTestUser));
    expect(inside.hits, `reached from inside the grant's namespace: ${inside.outcome.stderr}`).toBe(0);
    // The argv ran in another namespace, not the host's (a prefix that failed would pass every row).
    expect(inside.outcome.ns).toMatch(/^net:\[\d+\]$/);
    expect(inside.outcome.ns).not.toBe(control.outcome.ns);
    expect(inside.outcome.error).toBeUndefined();
  });
});
