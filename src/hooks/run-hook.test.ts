/**
 * Every way a hook can fail ends as a deny that names the hook and the cause, and leaves nothing running:
 * exit 1, exit 137, killed, a timeout, a missing script, garbage on stdout, 10 MB on stdout, a child that
 * outlives the hook. Real bash children; the pre-tool answer comes from the same HookSet the gate uses.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { DecisionRequest, PolicyDecision, Tool } from "../core/index.js";
import { tempWorkspace } from "../test-support/cli.js";
import { liveGroupMembers } from "../utils/index.js";
import { HookSet } from "./hook-set.js";
import { runHook } from "./run-hook.js";
import type { HookSpec } from "./sources.js";

const spec = (command: string, timeoutMs = 20_000): HookSpec => ({
  name: "guard",
  event: "pre_tool",
  format: "claude",
  command,
  timeoutMs,
  match: { matcher: "Bash" },
  source: "test#0",
  origin: "user",
});

const request = {
  tool: { name: "shell" } as Tool,
  args: { command: "ls" },
  risk: "high",
} as unknown as DecisionRequest;
const allowed: PolicyDecision = { decision: "allow", risk: "high", reason: "a rule allows it" };

/** Running, not a zombie waiting for a reaper (a stopped child of an exited hook may be one). */
async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  return stat !== "" && state !== "Z" && state !== "X";
}

const FAILURES: [note: string, command: string, cause: string, timeoutMs?: number][] = [
  ["exit 1", "exit 1", "exited with status 1"],
  ["exit 137 (as if killed)", "exit 137", "exited with status 137"],
  ["killed by a signal", "kill -9 $$", "was killed by SIGKILL"],
  ["a timeout", "sleep 30", "did not finish within 300 ms", 300],
  [
    "a missing script",
    "/nonexistent/hooks/guard.sh",
    "exited with status 127 (command not found: is the script there?)",
  ],
  [
    "garbage on stdout",
    "echo 'this is { not json'",
    'printed output that is not JSON ("this is { not json")',
  ],
  ["10 MB on stdout", "head -c 10485760 /dev/zero | tr '\\0' a", "printed more than 1048576 bytes"],
  ["an unknown decision", `echo '{"decision":"maybe"}'`, 'gave an unknown decision "maybe"'],
  [
    "updatedInput",
    `echo '{"hookSpecificOutput":{"updatedInput":{"command":"ls -la"}}}'`,
    "asked to change the call's input (updatedInput), which toolgate does not do",
  ],
];

describe("a failing hook denies, naming itself and the cause", () => {
  it.each(FAILURES)("%s", async (_, command, cause, timeoutMs) => {
    const cwd = await tempWorkspace();
    // The hook's shell writes its pid, its process group's id: once the call is decided, no member is left.
    const pidFile = join(cwd, "hook.pid");
    const hook = spec(`echo $$ > ${pidFile}; ${command}`, timeoutMs);
    const hooks = new HookSet({ hooks: [hook], cwd, mayAllow: false, failOpen: false });
    const decision = await hooks.pre(request, allowed);
    expect(decision.decision).toBe("deny");
    expect(decision.reason).toBe(`hook \`guard\` failed: it ${cause} (hooks fail closed)`);
    expect(decision.hooks?.[0]).toMatchObject({ hook: "guard", source: "test#0", failure: cause });
    expect(liveGroupMembers(Number(await readFile(pidFile, "utf8")))).toEqual([]);
  });

  it("stops a child that outlives the hook, and denies", async () => {
    const cwd = await tempWorkspace();
    const pidFile = join(cwd, "child.pid");
    const command = `sleep 300 & echo $! > ${pidFile}; exit 0`;
    const run = await runHook({
      command,
      timeoutMs: 20_000,
      input: "{}",
      cwd,
      env: { PATH: process.env["PATH"]! },
    });
    expect(run.failure).toBe("left a process running after it exited");
    const pid = Number(await readFile(pidFile, "utf8"));
    expect(await alive(pid)).toBe(false);
    const hooks = new HookSet({ hooks: [spec(command)], cwd, mayAllow: false, failOpen: false });
    expect((await hooks.pre(request, allowed)).reason).toBe(
      "hook `guard` failed: it left a process running after it exited (hooks fail closed)",
    );
  });

  it('with hooks_fail = "open" (the user\'s own config), a failure is noted and the policy stands', async () => {
    const cwd = await tempWorkspace();
    const hooks = new HookSet({ hooks: [spec("exit 1")], cwd, mayAllow: false, failOpen: true });
    const decision = await hooks.pre(request, allowed);
    expect(decision.decision).toBe("allow");
    expect(decision.reason).toBe(
      'a rule allows it; hook `guard` failed (exited with status 1); ignored (hooks_fail = "open")',
    );
  });
});

describe("the strictest answer wins", () => {
  const asked: PolicyDecision = { decision: "ask", risk: "high", reason: "no rule matched" };
  const allow = `echo '{"decision":"allow","reason":"vetted"}'`;
  const cases: [
    note: string,
    policy: PolicyDecision,
    hooks: HookSpec[],
    mayAllow: boolean,
    want: string,
    reason: string,
  ][] = [
    [
      "a hook's ask turns allow into ask",
      allowed,
      [spec(`echo '{"decision":"ask","reason":"look first"}'`)],
      false,
      "ask",
      "asked because hook `guard` said: look first",
    ],
    [
      "exit 2 turns ask into deny",
      asked,
      [spec("echo nope >&2; exit 2")],
      false,
      "deny",
      "denied because hook `guard` said: nope",
    ],
    [
      "a user hook's allow lifts ask with hooks_may_allow",
      asked,
      [spec(allow)],
      true,
      "allow",
      "allowed because hook `guard` said: vetted (hooks_may_allow)",
    ],
    [
      "…not without it",
      asked,
      [spec(allow)],
      false,
      "ask",
      "no rule matched; a hook's allow lifts an ask only with hooks_may_allow = true in your own config",
    ],
    [
      "…nor from a workspace hook",
      asked,
      [{ ...spec(allow), origin: "workspace" }],
      true,
      "ask",
      "no rule matched; a workspace hook's allow does not lift an ask",
    ],
    [
      "allow and deny together: deny",
      asked,
      [spec(allow), { ...spec("exit 2"), name: "strict" }],
      true,
      "deny",
      "denied because hook `strict` said: it exited with status 2",
    ],
  ];
  it.each(cases)("%s", async (_, policy, specs, mayAllow, want, reason) => {
    const hooks = new HookSet({ hooks: specs, cwd: await tempWorkspace(), mayAllow, failOpen: false });
    const decision = await hooks.pre(request, policy);
    expect([decision.decision, decision.reason]).toEqual([want, reason]);
  });

  it("nothing lifts a deny: the hooks are not even run", async () => {
    const cwd = await tempWorkspace();
    const marker = join(cwd, "ran");
    const hooks = new HookSet({
      hooks: [spec(`touch ${marker}; ${allow}`)],
      cwd,
      mayAllow: true,
      failOpen: false,
    });
    const denied: PolicyDecision = { decision: "deny", risk: "high", reason: "a rule denies it" };
    expect(await hooks.pre(request, denied)).toBe(denied);
    await expect(readFile(marker)).rejects.toThrow();
  });

  it("runs matching hooks in parallel", async () => {
    const cwd = await tempWorkspace();
    // Each hook waits until all four have started: run one after another, they would time out.
    const command = `touch ${cwd}/started.$$; for i in $(seq 1 400); do [ $(ls ${cwd} | grep -c started) -ge 4 ] && exit 0; sleep 0.05; done; exit 1`;
    const specs = [1, 2, 3, 4].map((i) => ({ ...spec(command), name: `h${i}` }));
    const hooks = new HookSet({ hooks: specs, cwd, mayAllow: false, failOpen: false });
    const decision = await hooks.pre(request, allowed);
    expect(decision.hooks?.map((h) => h.failure ?? "ok")).toEqual(["ok", "ok", "ok", "ok"]);
  });
});
