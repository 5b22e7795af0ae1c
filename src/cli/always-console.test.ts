/**
 * "Always" answered elsewhere (the console's seam): the asking process publishes the rule its one writer
 * would add, with a call it matches and one it does not; an "always" answer from another store client makes
 * it write exactly that rule. A rule a deny or an earlier ask would shadow is published as its reason.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileApprovalStore } from "../approvals/index.js";
import type { ApprovalRecord, ToolCall } from "../core/index.js";
import { tempWorkspace } from "../test-support/cli.js";
import { createToolgate, type Toolgate } from "../toolgate.js";
import { retrustFile } from "../trust/index.js";
import { trustLookup } from "../workspace/index.js";
import { consoleOffer } from "./always-console.js";
import { gateOffer } from "./always-rule.js";

const POLICY = `default = "ask"

[[rules]]
tool = "shell"
decision = "deny"
when.command = { equals = "echo secret" }

[[rules]]
tool = "shell"
decision = "ask"
when.command = { prefix = "echo later" }
`;

const cleanup: string[] = [];
const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((c) => c.close()));
  await Promise.all(cleanup.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function setup() {
  const root = await tempWorkspace({ ".toolgate/policy.toml": POLICY }, "tg-always-console-");
  const config = await mkdtemp(join(tmpdir(), "tg-always-console-xdg-"));
  cleanup.push(root, config);
  const trustStore = join(config, "toolgate", "trusted.json");
  await retrustFile(root, ".toolgate/policy.toml", POLICY, trustStore);
  const store = new FileApprovalStore({ dir: join(config, "approvals") });
  const gate: Toolgate = await createToolgate({
    roots: [root],
    trustWorkspace: true,
    approvals: store,
    logger: { warn() {} },
  });
  closing.push(gate, store);
  const said: string[] = [];
  const offerAlways = consoleOffer(
    gateOffer(async () => gate, root, trustStore),
    async () => gate,
    root,
    (line) => said.push(line),
  );
  return { root, trustStore, store, gate, said, offerAlways, file: join(root, ".toolgate", "policy.toml") };
}

const echo = (command: string): ToolCall => ({ name: "shell", args: { command } });

/** The one pending ask, once published. */
async function published(store: FileApprovalStore): Promise<ApprovalRecord> {
  await expect.poll(async () => (await store.list({ state: "pending" })).length, { timeout: 30_000 }).toBe(1);
  return (await store.list({ state: "pending" }))[0] as ApprovalRecord;
}

describe("always answered in the console", () => {
  it("publishes the rule, a call it matches and one it does not; an always answer writes exactly that rule", async () => {
    const { store, gate, said, offerAlways, file, trustStore } = await setup();
    const running = gate.execute(echo("echo hi"), { offerAlways });
    const ask = await published(store);
    expect(ask.always).toEqual({
      rule: '[[rules]]\ntool = "shell"\ndecision = "allow"\nwhen.command = { equals = "echo hi" }',
      file: ".toolgate/policy.toml",
      matches: 'shell {"command":"echo hi"}',
      notMatches: 'shell {"command":"echo hi-other"}',
    });
    expect((await store.answer(ask.id, { approved: true, by: "alice", scope: "always" })).ok).toBe(true);
    const result = await running;
    expect(result.ok).toBe(true);
    const rule = (ask.always as { rule: string }).rule;
    const text = await readFile(file, "utf8");
    expect(text).toBe(`${POLICY}\n# added by toolgate: "always" for exactly one call\n${rule}\n`);
    expect(trustLookup(trustStore).file(file, Buffer.from(text)).state).toBe("trusted");
    expect(said).toEqual(["  added the rule to .toolgate/policy.toml\n"]);
  }, 60_000);

  it("writes nothing for an approval once", async () => {
    const { store, gate, said, offerAlways, file } = await setup();
    const running = gate.execute(echo("echo once"), { offerAlways });
    const ask = await published(store);
    await store.answer(ask.id, { approved: true, by: "alice" });
    expect((await running).ok).toBe(true);
    expect(await readFile(file, "utf8")).toBe(POLICY);
    expect(said).toEqual([]);
  }, 60_000);

  it("publishes why when an earlier ask rule would shadow the rule, and writes nothing", async () => {
    const { store, gate, offerAlways, file } = await setup();
    const running = gate.execute(echo("echo later today"), { offerAlways });
    const ask = await published(store);
    expect(ask.always).toEqual({
      refused: expect.stringMatching(/policy\.toml#2 .*decides this call before the rule would \(ask\)$/),
    });
    await store.answer(ask.id, { approved: true, by: "alice", scope: "always" });
    expect((await running).ok).toBe(true);
    expect(await readFile(file, "utf8")).toBe(POLICY);
  }, 60_000);

  it("refuses, with the reason, a rule for a call a deny rule also matches", async () => {
    const { offerAlways, root } = await setup();
    const offer = await offerAlways({
      callId: "c1",
      call: echo("echo secret"),
      details: {
        toolName: "shell",
        description: "",
        risk: "medium",
        locations: [root],
        type: "exec",
        sandbox: "",
      },
      signal: new AbortController().signal,
    });
    expect(offer.write).toBeUndefined();
    expect(offer.shown).toEqual({
      refused: expect.stringMatching(
        /^the policy denies this call \(rule policy\.toml#1 .*never overrides a deny$/,
      ),
    });
  }, 60_000);
});
