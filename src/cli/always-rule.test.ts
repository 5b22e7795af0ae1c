import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ToolCall } from "../core/index.js";
import { tempWorkspace } from "../test-support/cli.js";
import { createToolgate, type Toolgate } from "../toolgate.js";
import { retrustFile } from "../trust/index.js";
import { trustLookup } from "../workspace/index.js";
import { alwaysOffer, gateOffer, writtenLine } from "./always-rule.js";
import { POLICY_TEMPLATE } from "./commands/init-templates.js";

const POLICY = `# my policy: this comment stays
default = "ask"

[[rules]]
tool = "shell"
decision = "deny"
when.command = { equals = "echo secret" }
`;

const cleanup: string[] = [];
const gates: Toolgate[] = [];
afterEach(async () => {
  await Promise.all(gates.splice(0).map((g) => g.close()));
  await Promise.all(cleanup.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A workspace whose policy file is trusted in a trust list of its own; the gate reads that file. */
async function setup(policy = POLICY) {
  const root = await tempWorkspace({ ".toolgate/policy.toml": policy }, "tg-always-");
  const config = await mkdtemp(join(tmpdir(), "tg-always-xdg-"));
  cleanup.push(root, config);
  const store = join(config, "toolgate", "trusted.json");
  await retrustFile(root, ".toolgate/policy.toml", policy, store);
  const file = join(root, ".toolgate", "policy.toml");
  return { root, store, file };
}

async function gateFor(root: string): Promise<Toolgate> {
  const gate = await createToolgate({ roots: [root], trustWorkspace: true, logger: { warn() {} } });
  gates.push(gate);
  return gate;
}

async function offerFor(call: ToolCall, root: string, store: string) {
  const gate = await gateFor(root);
  return alwaysOffer(call, "medium", {
    policy: gate.policy,
    tool: gate.registry.get(call.name),
    root,
    trustStore: store,
  });
}

/** How the gate decides a call now: whether it asked, and whether it ran. */
async function decide(root: string, call: ToolCall): Promise<{ asked: boolean; decision: string | null }> {
  const gate = await gateFor(root);
  let asked = false;
  const result = await gate.execute(call, {
    confirm: async () => {
      asked = true;
      return { approved: false, reason: "the test said no" };
    },
  });
  return { asked, decision: result.decision };
}

const echo = (command: string): ToolCall => ({ name: "shell", args: { command } });

/** The gate's own offer for `call` (what chat, run, call and mcp make). */
function gateOfferFor(gate: Toolgate, call: ToolCall, root: string, store: string) {
  return gateOffer(
    async () => gate,
    root,
    store,
  )({
    callId: "c1",
    call,
    details: {
      type: "generic",
      toolName: call.name,
      description: "",
      risk: "medium",
      locations: [],
      sandbox: "",
    },
    signal: new AbortController().signal,
  });
}

describe('"always" writes the exact rule to the policy file (in-process)', () => {
  it("appends the rule shown, keeps the file's text, re-trusts it; the next identical call runs without asking, a broader one still asks", async () => {
    const { root, store, file } = await setup();
    expect(await decide(root, echo("echo hi"))).toEqual({ asked: true, decision: "ask" });

    const offer = await offerFor(echo("echo hi"), root, store);
    if (!("rule" in offer)) throw new Error(`refused: ${offer.refused}`);
    expect(offer.file).toBe(".toolgate/policy.toml");
    expect(offer.rule).toBe(
      '[[rules]]\ntool = "shell"\ndecision = "allow"\nwhen.command = { equals = "echo hi" }',
    );
    expect(await offer.write()).toEqual({ written: true });

    const text = await readFile(file, "utf8");
    expect(text).toBe(`${POLICY}\n# added by toolgate: "always" for exactly one call\n${offer.rule}\n`);
    expect(trustLookup(store).file(file, Buffer.from(text)).state).toBe("trusted");
    expect(await decide(root, echo("echo hi"))).toEqual({ asked: false, decision: "allow" });
    expect(await decide(root, echo("echo hi there"))).toEqual({ asked: true, decision: "ask" });
    expect(await decide(root, echo("echo hi; echo secret"))).toMatchObject({
      asked: false,
      decision: "deny",
    });
  });

  it("refuses a rule where the policy denies the call, and writes nothing", async () => {
    const { root, store, file } = await setup();
    const offer = await offerFor(echo("echo secret"), root, store);
    expect(offer).toEqual({
      refused: expect.stringMatching(
        /^the policy denies this call \(rule policy\.toml#1 \(line \d+\)\), and "always" never overrides a deny$/,
      ),
    });
    expect(await readFile(file, "utf8")).toBe(POLICY);
  });

  it("refuses a rule that an earlier rule of the file would shadow", async () => {
    const policy = `${POLICY}\n[[rules]]\ntool = "shell"\ndecision = "ask"\nwhen.command = { prefix = "echo" }\n`;
    const { root, store } = await setup(policy);
    const offer = await offerFor(echo("echo hi"), root, store);
    expect(offer).toEqual({ refused: expect.stringContaining("policy.toml#2") });
    expect("refused" in offer && offer.refused).toMatch(/decides this call before the rule would \(ask\)$/);
  });

  it("refuses when the workspace's policy file changed since it was trusted", async () => {
    const { root, store, file } = await setup();
    await writeFile(file, `${POLICY}# edited\n`);
    const offer = await offerFor(echo("echo hi"), root, store);
    expect(offer).toEqual({ refused: expect.stringContaining("changed since it was trusted") });
  });

  it("refuses without a policy file (the built-in default has nowhere to add a rule)", async () => {
    const root = await tempWorkspace({}, "tg-always-");
    cleanup.push(root);
    const offer = await offerFor(echo("echo hi"), root, join(root, "unused.json"));
    expect(offer).toEqual({ refused: expect.stringContaining("no policy file is in force") });
  });

  it("passes on why no rule can name the call (the denial hint's own builder)", async () => {
    const { root, store } = await setup();
    const offer = await offerFor(echo("curl x | sh"), root, store);
    expect(offer).toEqual({ refused: expect.stringContaining("cannot be vouched for") });
  });

  it("a failed write leaves the file as it was and says so", async () => {
    // Changed between the question and the answer: nothing is written over the change.
    const { root, store, file } = await setup();
    const offer = await offerFor(echo("echo hi"), root, store);
    if (!("rule" in offer)) throw new Error(offer.refused);
    await writeFile(file, `${POLICY}# meanwhile\n`);
    expect(await offer.write()).toEqual({
      failed: `${file} changed since the rule was shown; nothing was written`,
    });
    expect(await readFile(file, "utf8")).toBe(`${POLICY}# meanwhile\n`);

    // The trust list cannot be written (its folder is a file): the rule is taken out again.
    const second = await setup();
    const broken = await offerFor(echo("echo hi"), second.root, join(second.file, "trusted.json"));
    // That list trusts nothing, so the offer is refused before any write...
    expect(broken).toEqual({ refused: expect.stringContaining("changed since it was trusted") });
    // ...and an offer made with the real list, written when the list has become unwritable, restores the file.
    const offer2 = await offerFor(echo("echo hi"), second.root, second.store);
    if (!("rule" in offer2)) throw new Error(offer2.refused);
    await rm(join(second.store, ".."), { recursive: true });
    await writeFile(join(second.store, ".."), "not a folder");
    const failed = await offer2.write();
    expect(failed).toEqual({
      failed: expect.stringMatching(
        /^could not re-trust .* the rule was taken out again, the file is as it was$/,
      ),
    });
    expect(await readFile(second.file, "utf8")).toBe(POLICY);
  });
});

describe('"always" in the running process (gateOffer): the written rule is put in force at once', () => {
  /** Whether `gate` asks about `call` now (a refusal answers, so nothing runs). */
  async function asks(gate: Toolgate, call: ToolCall): Promise<boolean> {
    let asked = false;
    await gate.execute(call, {
      confirm: async () => {
        asked = true;
        return { approved: false, reason: "the test said no" };
      },
    });
    return asked;
  }

  it("the same gate no longer asks for the call once the rule is written; a broader call still asks", async () => {
    const { root, store } = await setup();
    const gate = await gateFor(root);
    expect(await asks(gate, echo("echo hi"))).toBe(true);
    const offer = await gateOfferFor(gate, echo("echo hi"), root, store);
    if (!("rule" in offer)) throw new Error(offer.refused);
    expect(await offer.write()).toEqual({ written: true });
    expect(gate.policy.rules.at(-1)?.ref.id).toBe("policy.toml#2");
    expect(await asks(gate, echo("echo hi"))).toBe(false);
    expect(await asks(gate, echo("echo hi there"))).toBe(true);
  });

  it("a rule not written is not put in force; one the process refuses is reported and the policy in force stays", async () => {
    const { root, store, file } = await setup();
    const gate = await gateFor(root);
    const before = gate.policy;
    const offer = await gateOfferFor(gate, echo("echo hi"), root, store);
    if (!("rule" in offer)) throw new Error(offer.refused);
    await writeFile(file, `${POLICY}# meanwhile\n`);
    expect(await offer.write()).toMatchObject({ failed: expect.stringContaining("changed since") });
    expect(gate.policy).toBe(before);
    expect(await asks(gate, echo("echo hi"))).toBe(true);

    // The host refuses the new policy (here: it throws, as `usePolicy` does for one its tools reject).
    const again = await setup();
    const gate2 = await gateFor(again.root);
    const refusing = await alwaysOffer(echo("echo hi"), "medium", {
      policy: gate2.policy,
      tool: gate2.registry.get("shell"),
      tools: gate2.registry.list(),
      root: again.root,
      trustStore: again.store,
      use: () => {
        throw new Error("rule policy.toml#2 names an argument shell does not have");
      },
    });
    if (!("rule" in refusing)) throw new Error(refusing.refused);
    const written = await refusing.write();
    expect(written).toEqual({
      written: true,
      notInForce: "rule policy.toml#2 names an argument shell does not have",
    });
    expect(writtenLine(refusing, written)).toBe(
      "  added the rule to .toolgate/policy.toml; this session goes on without it and may ask again (rule policy.toml#2 names an argument shell does not have)\n",
    );
    expect(await asks(gate2, echo("echo hi"))).toBe(true);
  });
});

describe('`toolgate init`\'s starter policy offers "always" (issue 34: the exact rule, where it goes)', () => {
  it("offers a rule for asked writes, commands and fetches; says why for a secret read; a deny is never asked", async () => {
    const { root, store } = await setup(POLICY_TEMPLATE);
    const gate = await gateFor(root);
    const offered = async (call: ToolCall) => {
      const offer = await gateOfferFor(gate, call, root, store);
      return "rule" in offer ? { file: offer.file, rule: offer.rule } : offer;
    };
    expect(await offered({ name: "write_file", args: { path: "out.txt", content: "x" } })).toEqual({
      file: ".toolgate/policy.toml",
      rule: '[[rules]]\ntool = "write_file"\ndecision = "allow"\nwhen.path = { equals = "out.txt" }',
    });
    expect(await offered(echo("npm test"))).toEqual({
      file: ".toolgate/policy.toml",
      rule: '[[rules]]\ntool = "shell"\ndecision = "allow"\nwhen.command = { equals = "npm test" }',
    });
    expect(await offered({ name: "web_fetch", args: { url: "https://example.com/a" } })).toMatchObject({
      file: ".toolgate/policy.toml",
    });
    // The starter's own ask rule for files that may hold secrets is checked with the same precedence: an
    // allow added after it cannot win, and the refusal names it.
    expect(await offered({ name: "read_file", args: { path: ".env" } })).toEqual({
      refused: expect.stringMatching(
        /^rule policy\.toml#sensitive-read \(line \d+\) decides this call before the rule would \(ask\)$/,
      ),
    });
    expect(await gate.check(echo("rm -rf build"))).toMatchObject({
      ok: true,
      decision: { decision: "deny" },
    });
  });
});
