/**
 * Issue 4's command adversarial table end to end: the shared table
 * (`policy/shell/testdata/adversarial-commands.json`) through `createToolgate` with a DESIGN §6 policy file —
 * the real engine, the tree-sitter command plug-in, `gate.check` and `gate.execute` — and through the binary.
 */
import { existsSync, readFileSync } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Toolgate } from "../index.js";
import { tempWorkspace, toolgate } from "../test-support/cli.js";
import { openGate } from "./fixtures.js";

interface Case {
  note: string;
  command: string;
}
const table = JSON.parse(
  readFileSync(new URL("../policy/shell/testdata/adversarial-commands.json", import.meta.url), "utf8"),
) as { allowPrefixes: string[]; neverAllowed: Case[]; allowed: Case[]; denied: Case[]; notDenied: Case[] };

const toml = (list: string[]) => `[${list.map((p) => JSON.stringify(p)).join(", ")}]`;
/** Allows only the table's prefixes (ls, cat, grep, echo, git status); everything else asks. */
const ALLOW_ONLY = `default = "ask"

[[rules]]
tool = "shell"
decision = "allow"
when.command = { prefix = ${toml(table.allowPrefixes)} }
`;
/** The same plus a deny on rm, anywhere in the command. */
const WITH_DENY = `${ALLOW_ONLY}
[[rules]]
tool = "shell"
decision = "deny"
when.command = { prefix = ["rm"] }
message = "rm is not allowed"
`;
/** Files the table's commands would delete or change if any of them ran. */
const CANARIES = {
  x: "canary x\n",
  y: "canary y\n",
  b: "canary b\n",
  f: "canary f\n",
  "README.md": "readme\n",
};

let root: string;
let allowOnly: Toolgate;
let withDeny: Toolgate;

beforeAll(async () => {
  root = await tempWorkspace(CANARIES);
  // HOME inside the workspace: a command that wrongly ran could not touch the real ~/.bashrc.
  const env = { HOME: root };
  allowOnly = await openGate(root, { policyText: ALLOW_ONLY, env });
  withDeny = await openGate(root, { policyText: WITH_DENY, env });
});
afterAll(async () => {
  await Promise.all([allowOnly.close(), withDeny.close()]);
  await rm(root, { recursive: true, force: true });
});

/** The decision of `gate.check`, or "invalid" when the arguments were refused before the policy. */
async function decisionOf(gate: Toolgate, command: string): Promise<string> {
  const result = await gate.check({ name: "shell", args: { command } });
  return result.ok ? result.decision.decision : `invalid:${result.error.type}`;
}

describe("gate.check: a policy allowing only ls, cat, grep, echo, git status", () => {
  it.each(table.neverAllowed)("never allows: $note", async ({ command }) => {
    for (const gate of [allowOnly, withDeny]) {
      expect(["ask", "deny", "invalid:invalid_params"]).toContain(await decisionOf(gate, command));
    }
  });

  it.each(table.allowed)("allows: $note", async ({ command }) => {
    const result = await allowOnly.check({ name: "shell", args: { command } });
    expect(result).toMatchObject({
      ok: true,
      decision: { decision: "allow", rule: { id: "inline policy#1" } },
    });
    expect(await decisionOf(withDeny, command)).toBe("allow");
  });

  it.each(table.denied)("deny rm matches: $note", async ({ command }) => {
    const result = await withDeny.check({ name: "shell", args: { command } });
    expect(result).toMatchObject({
      ok: true,
      decision: { decision: "deny", rule: { id: "inline policy#2" } },
    });
  });

  it.each(table.notDenied)("deny rm does not match: $note", async ({ command }) => {
    expect(await decisionOf(withDeny, command)).not.toBe("deny");
  });
});

describe("gate.execute: nothing in the never-allowed table runs without a person", () => {
  it("every case is denied (ask with nobody to answer, or the rm rule) and no canary changed", async () => {
    const outcomes: string[] = [];
    for (const { note, command } of table.neverAllowed) {
      const result = await withDeny.execute({ name: "shell", args: { command } });
      outcomes.push(`${note}: ${result.decision}/${result.error?.type}`);
      expect(result.ok, note).toBe(false);
      expect(["denied_by_policy", "invalid_params"], note).toContain(result.error?.type);
    }
    expect(outcomes).toHaveLength(table.neverAllowed.length);
    for (const [name, content] of Object.entries(CANARIES)) {
      expect(await readFile(join(root, name), "utf8")).toBe(content);
    }
    expect((await readdir(root)).sort()).toEqual(Object.keys(CANARIES).sort());
  });

  it("a denied command names the rule's message; an allowed pipeline runs", async () => {
    const denied = await withDeny.execute({ name: "shell", args: { command: "ls && rm x" } });
    expect(denied.error).toEqual({
      type: "denied_by_policy",
      message: "shell was denied: rm is not allowed",
    });
    expect(existsSync(join(root, "x"))).toBe(true);
    const ran = await allowOnly.execute({ name: "shell", args: { command: "echo hi | grep h" } });
    expect(ran).toMatchObject({ ok: true, decision: "allow", llmContent: "hi\n[exit code 0]" });
  });
});

describe("the binary: policy check and an unanswered ask", () => {
  let ws: string;
  beforeAll(async () => {
    ws = await tempWorkspace({ ".toolgate/policy.toml": ALLOW_ONLY, "canary.txt": "alive\n" });
  });
  afterAll(() => rm(ws, { recursive: true, force: true }));

  it("toolgate policy check shell 'git status; rm -rf x' is not allow", async () => {
    const r = await toolgate(
      ["policy", "check", "shell", '{"command":"git status; rm -rf x"}', "--json", "--workspace", ws],
      { cwd: ws },
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { decision: string; risk: string };
    expect(out.decision).toBe("ask");
    expect(out.risk).toBe("high");
  });

  it("an ask nobody answers exits 3 and the command never ran", async () => {
    const r = await toolgate(
      ["call", "shell", '{"command":"git status; rm canary.txt"}', "--json", "--workspace", ws],
      { cwd: ws },
    );
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      decision: "ask",
      error: { type: "denied_by_policy" },
    });
    expect(await readFile(join(ws, "canary.txt"), "utf8")).toBe("alive\n");
  });
});

describe('default = "allow" never runs a command no rule could vouch for', () => {
  const DEFAULT_ALLOW = `default = "allow"

[[rules]]
tool = "shell"
decision = "deny"
when.command = { prefix = ["rm"] }
`;

  it.each([
    ["$(echo rm) x", "ask"],
    ["find . -delete", "allow"],
    ["bash -c 'touch y'", "ask"],
    ["echo hi > f", "ask"],
    ["ls -la && git status", "allow"],
    ["rm -rf x", "deny"],
    ["sudo rm x", "deny"],
    ["echo $(", "ask"],
  ])("%j → %s", async (command, want) => {
    const gate = await openGate(root, { policyText: DEFAULT_ALLOW, env: { HOME: root } });
    try {
      const result = await gate.check({ name: "shell", args: { command } });
      expect(result.ok && result.decision.decision).toBe(want);
      if (want === "ask") {
        expect(result.ok && result.decision.reason).toMatch(
          /^no rule matched; the default allows, but not this call: command: the command cannot be vouched for \(/,
        );
      }
    } finally {
      await gate.close();
    }
  });
});
