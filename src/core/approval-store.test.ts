/**
 * The in-process approval store: the contract every store passes, plus what only this one does (it is
 * not shared, and it forgets the oldest settled asks past its limit).
 */
import { describe, expect, it } from "vitest";
import { approvalStoreContract } from "../test-support/approval-store-contract.js";
import { InProcessApprovalStore, settledMessage } from "./approval-store.js";
import type { ApprovalAsk } from "./types.js";

approvalStoreContract("in-process", async (now) => {
  const store = new InProcessApprovalStore({ now });
  return { open: () => store, close: async () => undefined };
});

const ask = (callId: string): ApprovalAsk => ({
  callId,
  tool: "write_file",
  details: {
    toolName: "write_file",
    description: "write a",
    risk: "medium",
    locations: [],
    type: "edit",
    sandbox: "none (write_file is not a shell command; toolgate runs it itself)",
  },
  timeoutMs: 60_000,
});

describe("InProcessApprovalStore", () => {
  it("is not shared: only this process can answer its asks", () => {
    expect(new InProcessApprovalStore().shared).toBe(false);
  });

  it("keeps the newest settled asks up to its limit, and every pending one", async () => {
    const store = new InProcessApprovalStore({ keepSettled: 2 });
    const records = [];
    for (const id of ["a", "b", "c", "d"]) records.push(await store.publish(ask(id)));
    for (const record of records.slice(0, 3)) await store.answer(record.id, { approved: true, by: "alice" });
    expect((await store.list()).map((r) => `${r.callId}:${r.state}`)).toEqual([
      "b:approved",
      "c:approved",
      "d:pending",
    ]);
    expect(await store.answer(records[0]!.id, { approved: false, by: "bob" })).toEqual({
      ok: false,
      message: `no approval with id "${records[0]!.id}"`,
    });
  });

  it("says nothing lost for a pending record", async () => {
    const store = new InProcessApprovalStore();
    expect(settledMessage(await store.publish(ask("a")))).toBeUndefined();
  });
});
