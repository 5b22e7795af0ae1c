/**
 * "Only tighten" as a property (issue 30 item 9, issue 27 item 4): an untrusted workspace policy's decision
 * is exactly the stricter of the built-in policy's and the workspace file's own with everything that loosens
 * taken out (allow rules, sandbox grants, lowered risks) — the oracle builds that file as text and loads it as
 * a trusted policy — so it is never looser than either, nor than the file trusted. Policies are drawn from
 * `testdata/untrusted-corpus.json` with a fixed seed, and decided through the real tools, argument kinds and
 * `checkCall` (resolve, build, decide).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultSettings } from "../config/defaults.js";
import { checkCall, type PolicyDecision, ToolRegistry } from "../core/index.js";
import { createInProcessStateBackend } from "../state/index.js";
import { tempWorkspace } from "../test-support/cli.js";
import { policyPlugins } from "../toolgate.js";
import { type BuiltinTools, createBuiltinTools } from "../tools/index.js";
import { seededRandom } from "../utils/index.js";
import { DEFAULT_READ_ASK_PATTERNS } from "../workspace/index.js";
import {
  type ArgKindPlugin,
  builtinDefaultPolicy,
  type CompiledPolicy,
  createRecorder,
  PolicyEngine,
  parsePolicy,
  renderExplanation,
  stricterOnly,
} from "./index.js";

interface Corpus {
  defaults: (string | null)[];
  decisions: string[];
  targets: Record<string, unknown>[];
  extras: Record<string, unknown>[];
  calls: { name: string; args: Record<string, unknown> }[];
  named: { note: string; policy: string; call: number; want: string }[];
}

const corpus = JSON.parse(
  readFileSync(join(import.meta.dirname, "testdata", "untrusted-corpus.json"), "utf8"),
) as Corpus;
const RANK: Record<string, number> = { allow: 0, ask: 1, deny: 2 };
const SEED = 20_27_04;
const POLICIES = 150;

let root: string;
let builtins: BuiltinTools;
let registry: ToolRegistry;
let plugins: ArgKindPlugin[];
let builtin: CompiledPolicy;
let source: string;

beforeAll(async () => {
  root = await tempWorkspace({
    "README.md": "# r\n",
    ".env": "K=v\n",
    "src/app.ts": "x\n",
    "notes.md": "n\n",
  });
  builtins = await createBuiltinTools({
    roots: [root],
    settings: defaultSettings(),
    logger: { warn() {} },
    env: {},
    state: createInProcessStateBackend(),
  });
  registry = new ToolRegistry();
  for (const tool of builtins.tools) registry.register(tool, { schemaChecked: true });
  plugins = policyPlugins(builtins.workspace);
  builtin = await builtinDefaultPolicy({ ...loadOptions(), sensitiveFiles: DEFAULT_READ_ASK_PATTERNS });
  source = join(root, ".toolgate", "policy.toml");
});
afterAll(() => builtins.close());

const loadOptions = () => ({ plugins, roots: [root], tools: registry.list(), checkExamples: false });

async function decide(policy: CompiledPolicy, call: Corpus["calls"][number]): Promise<PolicyDecision> {
  const result = await checkCall(
    { registry, decider: new PolicyEngine({ policy, plugins, roots: [root] }) },
    call,
  );
  if (!result.ok) throw new Error(`${call.name} ${JSON.stringify(call.args)}: ${result.error.message}`);
  return result.decision;
}

/** One workspace policy drawn from the corpus's parts. */
function draw(random: () => number): Record<string, unknown> {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const rules = Array.from({ length: 1 + Math.floor(random() * 5) }, () => {
    const decision = pick(corpus.decisions);
    const extra = { ...pick(corpus.extras) };
    if (decision === "deny") delete extra.sandbox; // the loader refuses a grant on a deny
    return { ...structuredClone(pick(corpus.targets)), decision, ...extra };
  });
  const fallback = pick(corpus.defaults);
  return { ...(fallback === null ? {} : { default: fallback }), rules };
}

/** The oracle's file: the same policy with everything that loosens taken out, written out as text. */
function withoutLoosening(spec: Record<string, unknown>): string {
  const rules = (spec.rules as Record<string, unknown>[])
    .filter((r) => r.decision !== "allow")
    .map(({ sandbox: _grant, risk, ...rest }) => (risk === "high" ? { ...rest, risk } : rest));
  return stringify({ ...spec, rules });
}

describe("an untrusted workspace policy only tightens", { timeout: 600_000 }, () => {
  it(`over ${POLICIES} drawn policies × ${corpus.calls.length} calls: exactly the stricter of built-in and tightening-only`, async () => {
    const random = seededRandom(SEED);
    const seen = new Set<string>();
    let decided = 0;
    for (let n = 0; n < POLICIES; n++) {
      const spec = draw(random);
      const text = stringify(spec);
      const workspace = await parsePolicy(text, source, loadOptions());
      const untrusted = stricterOnly(builtin, workspace).policy;
      const tightening = await parsePolicy(withoutLoosening(spec), source, loadOptions());
      for (const call of corpus.calls) {
        const [u, b, t, trusted] = await Promise.all(
          [untrusted, builtin, tightening, workspace].map((p) => decide(p, call)),
        );
        const where = `policy ${n} (seed ${SEED}):\n${text}\ncall ${call.name} ${JSON.stringify(call.args)}`;
        expect(RANK[u!.decision], where).toBe(Math.max(RANK[b!.decision]!, RANK[t!.decision]!));
        expect(RANK[u!.decision]!, where).toBeGreaterThanOrEqual(RANK[trusted!.decision]!);
        // The built-in policy grants no way out of the sandbox, and the workspace's grants are dropped.
        expect(u!.sandbox, where).toBeUndefined();
        seen.add(`${b!.decision}/${t!.decision}→${u!.decision}`);
        decided++;
      }
    }
    expect(decided).toBe(POLICIES * corpus.calls.length);
    // The draw reaches every way the two can combine, so the property is not true by accident.
    for (const combo of [
      "allow/allow→allow",
      "allow/deny→deny",
      "ask/allow→ask",
      "allow/ask→ask",
      "ask/deny→deny",
    ])
      expect(seen, combo).toContain(combo);
  });

  it.each(corpus.named)("$note", async ({ policy, call, want }) => {
    const workspace = await parsePolicy(policy, source, loadOptions());
    const outcome = stricterOnly(builtin, workspace);
    const recorder = createRecorder();
    const engine = new PolicyEngine({ policy: outcome.policy, plugins, roots: [root] });
    const result = await checkCall({ registry, decider: engine }, corpus.calls[call]!, {
      decide: (request) => engine.decide(request, recorder),
    });
    expect(result.ok && result.decision.decision).toBe(want);
    // The trace shows both layers and which one decided.
    const trace = renderExplanation(recorder.events);
    expect(trace).toContain("[builtin]");
    expect(trace).toContain(`[${source}, untrusted:`);
    expect(trace).toMatch(/decision (allow|ask|deny): the strictest of the layers/);
  });

  it("names the dropped sandbox grant and the ignored allow rules in one warning line", async () => {
    const workspace = await parsePolicy(
      '[[rules]]\ntool = "shell"\ndecision = "ask"\nsandbox = "off"\n[[rules]]\ntool = "ls"\ndecision = "allow"\n',
      source,
      loadOptions(),
    );
    const outcome = stricterOnly(builtin, workspace, "changed since /w was trusted");
    expect(outcome.ignoredGrants).toEqual(["policy.toml#1"]);
    expect(outcome.warning).toBe(
      `${source} changed since /w was trusted: ignoring its 1 allow rule and the sandbox grant of policy.toml#1 ` +
        "(only its deny and ask rules and a stricter default apply; `toolgate trust` shows what it would change and trusts it)",
    );
    // The rule itself still asks: only the grant is gone.
    const decision = await decide(outcome.policy, { name: "shell", args: { command: "rm -rf build" } });
    expect(decision).toMatchObject({ decision: "ask" });
    expect(decision.sandbox).toBeUndefined();
  });
});
