/**
 * The adapter contract: every framework adapter (AI SDK, LangChain, OpenAI Agents), driven by its real
 * framework, gives the same outcomes for the four answers a policy can lead to — allow, ask approved, ask
 * refused, deny — and each leaves exactly one audit record for the call. Nothing reaches the gate's bus: an
 * ask is answered by the framework's approval step or the adapter's per-call `confirm`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADAPTER_DRIVERS } from "../test-support/adapter-drivers.js";
import { type PolicyGate, policyGate } from "../test-support/policy-gate.js";

describe.each(ADAPTER_DRIVERS)("the $name adapter", (driver) => {
  let fixture: PolicyGate;
  const busAsked: string[] = [];

  beforeAll(async () => {
    fixture = await policyGate(`contract-${driver.name}`);
    fixture.gate.bus.onConfirmation(async (request) => {
      busAsked.push(request.details.toolName);
      return { approved: false, reason: "the bus must not be asked" };
    });
  });
  afterAll(async () => {
    await fixture?.close();
  });

  /** Runs a turn; returns what the model saw and the audit records it added. */
  async function turn(tool: string, what: string, id: string, approve?: boolean) {
    const before = fixture.audit.records.length;
    const seen = await driver.turn(fixture.gate, {
      tool,
      what,
      id,
      ...(approve === undefined ? {} : { approve }),
    });
    return { ...seen, records: fixture.audit.records.slice(before) };
  }

  it("allow: the call runs once, the model reads its output, one audit record", async () => {
    const id = `${driver.name}-allow`;
    const { seen, stoppedForApproval, records } = await turn("greet", id, id);
    expect(stoppedForApproval).toBe(false);
    expect(seen).toContain(`greet did ${id}`);
    expect(fixture.ran.filter((r) => r === `greet:${id}`)).toHaveLength(1);
    expect(records).toEqual([
      expect.objectContaining({ tool: "greet", callId: id, decision: "allow", outcome: "ok" }),
    ]);
  });

  it("ask, approved: the framework stops, then the call runs once with no second question", async () => {
    const id = `${driver.name}-ask-yes`;
    const { seen, stoppedForApproval, records } = await turn("launch", id, id, true);
    expect(stoppedForApproval).toBe(true);
    expect(seen).toContain(`launch did ${id}`);
    expect(fixture.ran.filter((r) => r === `launch:${id}`)).toHaveLength(1);
    expect(busAsked).toEqual([]);
    expect(records).toEqual([
      expect.objectContaining({ tool: "launch", callId: id, decision: "ask", outcome: "ok" }),
    ]);
  });

  it("ask, refused: the tool never runs, the model reads a refusal, one audit record of it", async () => {
    const id = `${driver.name}-ask-no`;
    const { seen, stoppedForApproval, records } = await turn("launch", id, id, false);
    expect(stoppedForApproval).toBe(true);
    expect(seen).toMatch(/launch was denied|execution-denied/);
    expect(fixture.ran).not.toContain(`launch:${id}`);
    expect(busAsked).toEqual([]);
    expect(records).toEqual([
      expect.objectContaining({ tool: "launch", callId: id, decision: "ask", outcome: "denied_by_policy" }),
    ]);
  });

  it("deny: the tool never runs, the model reads the gate's refusal, one audit record", async () => {
    const id = `${driver.name}-deny`;
    const { seen, stoppedForApproval, records } = await turn("wipe", id, id);
    expect(stoppedForApproval).toBe(false);
    expect(seen).toMatch(/wipe was denied/);
    expect(fixture.ran).not.toContain(`wipe:${id}`);
    expect(records).toEqual([
      expect.objectContaining({ tool: "wipe", callId: id, decision: "deny", outcome: "denied_by_policy" }),
    ]);
  });
});
