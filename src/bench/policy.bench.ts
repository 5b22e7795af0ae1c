/**
 * @module bench/policy
 * The evaluation kernel alone: 1,000 rules (exact names, globs, `*`, argument conditions) spread over 1,000
 * tool names and 100,000 prepared calls, through `evaluate` (indexed, candidates memoised per name) and
 * through the fastest linear scan written here (every rule's tool globs as precompiled RegExps). Spread over
 * 1,000 names, each call sees few rules: this is the kernel's best case. What a host pays for a real policy
 * piling rules onto one tool, analysis included, is in `gate-policy`.
 */
import picomatch from "picomatch";
import type { Decision, RuleRef, ToolKind } from "../core/index.js";
import { defineTool, okResult, type Tool } from "../core/index.js";
import type { CompiledPolicy, PreparedCall } from "../policy/index.js";
import { createCommandKind, evaluate, matchRule, PolicyEngine, parsePolicy } from "../policy/index.js";
import { loadBashParser } from "../policy/shell/parser.js";
import { seededRandom } from "../utils/index.js";
import { fmt, measure, measureSync, report, stats } from "./harness.js";

const RULES = 1000;
const TOOLS = 1000;
const CALLS = 100_000;
const BATCH = 1000;

const rand = seededRandom(42);
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;

/** 700 plain names and 300 MCP-style names on 30 servers. */
const names: string[] = [];
for (let i = 0; i < 700; i++) names.push(`tool_${i}`);
for (let s = 0; s < 30; s++) for (let t = 0; t < 10; t++) names.push(`mcp__srv${s}__op${t}`);
const kinds: ToolKind[] = ["read", "search", "edit", "execute", "fetch", "other"];
const kindOf = new Map(names.map((n) => [n, pick(kinds)]));

const decisions: Decision[] = ["allow", "ask", "deny"];
const paths = ["src/a.ts", "src/lib/b.ts", "docs/readme.md", "secrets/key.pem", "build/out.js", ".env"];
const commands = ["git status", "git push --force", "npm test", "ls -la", "rm -rf build", "curl x"];

function condition(): string {
  switch (Math.floor(rand() * 6)) {
    case 0:
      return `when.path = { prefix = "${pick(["src/", "docs/", "secrets/"])}" }`;
    case 1:
      return `when.path = { glob = "${pick(["src/**/*.ts", "**/*.md", "build/**"])}" }`;
    case 2:
      return `when.command = { prefix = ["${pick(commands)}", "${pick(commands)}"] }`;
    case 3:
      return `when.command = { oneOf = ["${pick(commands)}", "${pick(commands)}"] }`;
    case 4:
      return `when.command = { contains = "${pick(["--force", "rm", "test"])}" }`;
    default:
      return `when.path = { regex = "^${pick(["src", "docs", "build"])}/[a-z]+" }`;
  }
}

/** 680 exact-name rules, 300 glob rules, 20 `*` rules; about 40% carry a condition. */
function policyText(): string {
  const rules: string[] = ['default = "ask"'];
  for (let i = 0; i < RULES; i++) {
    let tool: string;
    if (i < 680) tool = `"${pick(names)}"`;
    else if (i < 980) {
      const s = Math.floor(rand() * 30);
      tool = `"${pick([`mcp__srv${s}__*`, `mcp__srv${s}__op[0-4]`, `tool_${Math.floor(rand() * 70)}?`, `tool_*${Math.floor(rand() * 10)}`])}"`;
    } else tool = '"*"';
    const lines = ["[[rules]]", `tool = ${tool}`, `decision = "${pick(decisions)}"`];
    if (tool === '"*"') lines.push(rand() < 0.5 ? `kind = "${pick(kinds)}"` : condition());
    else if (rand() < 0.4) lines.push(condition());
    rules.push(lines.join("\n"));
  }
  return rules.join("\n\n");
}

function calls(): PreparedCall[] {
  const out: PreparedCall[] = [];
  for (let i = 0; i < CALLS; i++) {
    const name = pick(names);
    const args: Record<string, unknown> = rand() < 0.5 ? { path: pick(paths) } : { command: pick(commands) };
    out.push({ tool: { name, kind: kindOf.get(name)! }, args, risk: "medium" });
  }
  return out;
}

/**
 * The anchor: no index, no memo; each call tests every rule's tool entries (the RegExp picomatch compiles
 * each to, built once), then its conditions.
 */
function linearScan(policy: CompiledPolicy) {
  const rules = policy.rules.map((rule) => ({
    rule,
    tests: rule.tools.map((entry): ((name: string) => boolean) | null => {
      if (entry === "*") return null;
      const re = picomatch.makeRe(entry, { dot: true });
      return (name) => re.test(name);
    }),
  }));
  const rank: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };
  return (call: PreparedCall): { decision: Decision; rule: RuleRef | undefined } => {
    let deny: RuleRef | undefined;
    const best: [RuleRef | undefined, Decision][] = [
      [undefined, "allow"],
      [undefined, "allow"],
    ];
    for (const { rule, tests } of rules) {
      let level = -1;
      for (const test of tests) {
        if (test === null) level = level === -1 ? 1 : level;
        else if (test(call.tool.name)) level = 0;
      }
      if (level === -1) continue;
      const decision = matchRule(rule, call);
      if (decision === undefined) continue;
      if (decision === "deny" && deny === undefined) deny = rule.ref;
      const top = best[level]!;
      if (top[0] === undefined || rank[decision] > rank[top[1]]) {
        top[0] = rule.ref;
        top[1] = decision;
      }
    }
    if (deny) return { decision: "deny", rule: deny };
    for (const [rule, decision] of best) if (rule) return { decision, rule };
    return { decision: policy.defaultDecision, rule: undefined };
  };
}

type Stats = ReturnType<typeof stats>;

/** Milliseconds of CPU time this process used since `since` (user + system). */
function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

/**
 * Per-call times of `ours` and each anchor over `work`, in batches (one timer read per batch, as one call
 * is below the timer's resolution), interleaved batch by batch so all see the same machine load. Times are
 * CPU time, not wall time: the benchmark machine is shared, and time spent descheduled is not ours.
 */
function perCall(
  work: readonly PreparedCall[],
  ours: (call: PreparedCall) => unknown,
  anchors: readonly ((call: PreparedCall) => unknown)[],
  anchorEvery: readonly number[],
): { ours: Stats; anchors: Stats[] } {
  const a: number[] = [];
  const b: number[][] = anchors.map(() => []);
  for (let start = 0, n = 0; start < work.length; start += BATCH, n++) {
    const end = Math.min(work.length, start + BATCH);
    const t0 = process.cpuUsage();
    for (let i = start; i < end; i++) ours(work[i]!);
    a.push(cpuMs(t0) / (end - start));
    // The anchors are 20-300x slower: each is timed on every `anchorEvery[k]`-th batch only, so the run
    // stays short.
    anchors.forEach((anchor, k) => {
      if (n % anchorEvery[k]! !== 0) return;
      const t = process.cpuUsage();
      for (let i = start; i < end; i++) anchor(work[i]!);
      b[k]!.push(cpuMs(t) / (end - start));
    });
  }
  return { ours: stats(a), anchors: b.map((samples) => stats(samples)) };
}

/** Shell commands an agent typically sends, benign and abusive, over the programs the analysis knows. */
const SHELL_COMMANDS = [
  "git status",
  "git diff --stat",
  "git log -p -n 3 -- src/index.ts",
  "git branch -a",
  "git diff --output=.git/config",
  "find . -name '*.ts' -not -path './node_modules/*'",
  "find . -name '*.tmp' -delete",
  "sed -n '1,20p' README.md",
  "sed -n 's/a/b/e' f",
  "awk '{print $1}' data.txt | sort -n | uniq -c",
  "awk 'BEGIN{system(\"id\")}'",
  "grep -rn TODO src && rg -l export src",
  "tar -tf a.tar",
  "tar -tf a.tar --to-command=sh",
  "ls -la src; cat package.json",
  "npm test -- --run",
  "rm -rf build",
  "xxd f | head -n 5",
];

const SHELL_POLICY = `default = "ask"

[[rules]]
tool = "shell"
decision = "allow"
when.command = { prefix = ["git", "find", "sed", "awk", "grep", "rg", "sort", "uniq", "tar", "ls", "cat", "npm", "xxd", "head"] }

[[rules]]
tool = "shell"
decision = "deny"
when.command = { prefix = ["rm"] }
`;

/**
 * Before the argument analysis (commit 1967105) this figure was 24.8 µs p50 per command beside a 10.0 µs
 * bare parse (2.48×); the issue allows the analysis 1.5× of that. The target is the ratio to the anchor
 * measured in the same run, which a loaded machine moves far less than the absolute figure.
 */
const MAX_PARSE_RATIO = 3.7;

/**
 * Whole policy decisions for shell calls (the engine prepares the command with the real tree-sitter
 * analysis, then evaluates), beside the anchor of the bare tree-sitter parse of the same commands: the
 * floor any parse-or-refuse analysis pays.
 */
async function benchShellDecisions(): Promise<void> {
  const parser = await loadBashParser();
  const plugins = [createCommandKind()];
  const policy = await parsePolicy(SHELL_POLICY, "bench-shell.toml", { plugins });
  const engine = new PolicyEngine({ policy, roots: ["/"] });
  const tool = defineTool({
    name: "shell",
    description: "bench shell",
    parameters: { type: "object", properties: { command: { type: "string" } } },
    kind: "execute",
    risk: "medium",
    argKinds: { command: "command" },
    run: async () => okResult("unused"),
  }) as Tool;
  const decideAll = async () => {
    for (const command of SHELL_COMMANDS) {
      const args = { command };
      await engine.decide({ tool, invocation: tool.build(args), args, risk: "medium" });
    }
  };
  const parseAll = () => {
    for (const command of SHELL_COMMANDS) parser.parse(command)?.delete();
  };
  const ours = await measure(decideAll, 400, 50);
  const anchor = measureSync(parseAll, 400, 50);
  const per = (ms: number) => ms / SHELL_COMMANDS.length;
  report({
    name: `policy decision for a shell command (p50 per command, ${SHELL_COMMANDS.length} commands)`,
    ours: `${fmt(per(ours.p50))} (p99 ${fmt(per(ours.p99))})`,
    anchor: `${fmt(per(anchor.p50))} bare tree-sitter parse (p99 ${fmt(per(anchor.p99))})`,
    ratio: ours.p50 / anchor.p50,
    target: `≤ ${MAX_PARSE_RATIO}× the bare parse`,
    pass: ours.p50 / anchor.p50 <= MAX_PARSE_RATIO,
  });
}

export default async function run(): Promise<void> {
  await benchShellDecisions();
  const text = policyText();
  const t0 = performance.now();
  const policy = await parsePolicy(text, "bench.toml");
  const loadMs = performance.now() - t0;
  report({
    name: `load + compile ${RULES} rules`,
    ours: fmt(loadMs),
    target: "≤ 500 ms",
    pass: loadMs <= 500,
  });

  const work = calls();
  let candidates = 0;
  for (const call of work) {
    const c = policy.index.candidates(call.tool.name);
    candidates += c.specific.length + c.any.length;
  }
  console.log(`      mean candidate rules per call: ${(candidates / work.length).toFixed(1)} of ${RULES}`);
  const scans = [linearScan(policy)];
  // Same answers from all, or the comparison means nothing.
  for (let i = 0; i < 5000; i++) {
    const a = evaluate(policy, work[i]!);
    for (const scan of scans) {
      const b = scan(work[i]!);
      if (a.decision !== b.decision || a.rule?.id !== b.rule?.id) {
        throw new Error(`evaluate and the linear scan disagree on call ${i}: ${a.reason} vs ${b.rule?.id}`);
      }
    }
  }
  // Warm all (JIT; the per-name memo fills on the first pass, as it would in a long-running host).
  perCall(work.slice(0, 20_000), (c) => evaluate(policy, c), scans, [10]);

  // Three rounds over all 100,000 calls; the machine is shared, so the quietest round is reported.
  let best: { ours: Stats; anchors: Stats[] } | undefined;
  for (let round = 0; round < 3; round++) {
    const got = perCall(work, (c) => evaluate(policy, c), scans, [5]);
    if (best === undefined || got.ours.p50 < best.ours.p50) best = got;
  }
  const { ours, anchors } = best!;
  report({
    name: `evaluate kernel per call, CPU time (${RULES} rules over ${TOOLS} tools, ${CALLS.toLocaleString("en")} calls, batches of ${BATCH})`,
    ours: `p50 ${fmt(ours.p50)} p99 (per batch) ${fmt(ours.p99)}`,
    target: "p50 ≤ 5 µs (absolute)",
    pass: ours.p50 <= 0.005,
  });
  const labels = ["linear scan, precompiled RegExp per rule"];
  anchors.forEach((anchor, k) => {
    const ratio = anchor.p50 / ours.p50;
    report({
      name: `evaluate vs ${labels[k]}`,
      ours: `p50 ${fmt(ours.p50)} p99 ${fmt(ours.p99)}`,
      anchor: `p50 ${fmt(anchor.p50)} p99 ${fmt(anchor.p99)}`,
      ratio,
      target: "≥ 20×",
      pass: ratio >= 20,
    });
  });
}
