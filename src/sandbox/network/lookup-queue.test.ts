/** The proxy's bound on name lookups: at most the limit in flight, waiting ones dropped unsent when their client leaves. */
import { describe, expect, it } from "vitest";
import type { ResolvedAddress } from "../../net/index.js";
import { lookupQueue } from "./lookup-queue.js";

/** A resolver whose lookups wait until `answer(name)`; `sent` lists the names it was asked for, in order. */
function heldResolver() {
  const sent: string[] = [];
  const pending = new Map<string, (a: ResolvedAddress[]) => void>();
  const lookup = (host: string) =>
    new Promise<ResolvedAddress[]>((resolve) => {
      sent.push(host);
      pending.set(host, resolve);
    });
  const answer = (host: string) => pending.get(host)?.([{ address: "93.184.216.34", family: 4 }]);
  return { sent, lookup, answer };
}

describe("lookupQueue", () => {
  it("sends at most the limit at once and the next one when one is answered", async () => {
    const held = heldResolver();
    const resolverFor = lookupQueue(held.lookup, 2);
    const signal = new AbortController().signal;
    const results = ["a", "b", "c"].map((name) => resolverFor(signal)(name));
    expect(held.sent).toEqual(["a", "b"]);
    held.answer("a");
    await results[0];
    expect(held.sent).toEqual(["a", "b", "c"]);
  });

  it("drops a waiting lookup unsent when its client leaves, and refuses one asked after", async () => {
    const held = heldResolver();
    const resolverFor = lookupQueue(held.lookup, 1);
    const [stays, leaves] = [new AbortController(), new AbortController()];
    const first = resolverFor(stays.signal)("first");
    const dropped = resolverFor(leaves.signal)("dropped");
    leaves.abort();
    await expect(dropped).rejects.toThrow("aborted");
    await expect(resolverFor(leaves.signal)("late")).rejects.toThrow("aborted");
    held.answer("first");
    await first;
    expect(held.sent).toEqual(["first"]);
  });
});
