/**
 * The budget's arithmetic and the gauge's calibration: counts that cannot be true are not learned (a count
 * filling the window, fewer than 1 token per 6 characters, more than 1 per 1.5), the plan keeps a margin
 * over the learned rate, an exact counter needs none, and the signs of a prompt Ollama cut silently.
 */
import { describe, expect, it } from "vitest";
import { budgetFor, charsOf, cutSignal, plausible, roomFor, TokenGauge } from "./budget.js";

describe("the token gauge", () => {
  it("plans a third more than a learned rate, and starts at a token per 3 characters", () => {
    const gauge = new TokenGauge();
    expect(gauge.tokensFor(3000)).toBe(1000);
    expect(gauge.learn(10_000, 2000)).toBe(true);
    expect(gauge.tokensFor(3000)).toBe(800);
    expect(gauge.charsFor(800)).toBe(3000);
  });

  it.each([
    ["a count equal to the window", 40_000, 8192, 8192],
    ["a count over the window", 40_000, 9000, 8192],
    ["one token for the whole prompt", 40_000, 1, undefined],
    ["fewer than 1 token per 6 characters", 60_000, 9999, undefined],
    ["more than 1 token per 1.5 characters", 3000, 2001, undefined],
  ])("does not learn %s", (_, chars, tokens, window) => {
    const gauge = new TokenGauge();
    expect(gauge.learn(chars, tokens, window ? { window } : {})).toBe(false);
    expect(gauge.tokensFor(3000)).toBe(1000);
  });

  it("learns the bounds themselves, and any exact count without a margin", () => {
    expect(plausible(6000, 1000)).toBe(true);
    expect(plausible(1500, 1000)).toBe(true);
    const gauge = new TokenGauge();
    expect(gauge.learn(1000, 1000, { exact: true })).toBe(true);
    expect(gauge.tokensFor(500)).toBe(500);
  });

  it("after a refusal or a cut, raises the rate to what the prompt held, within the plausible", () => {
    const gauge = new TokenGauge();
    gauge.learn(12_000, 3000);
    gauge.atLeast(12_000, 6001);
    expect(gauge.tokensFor(12_000)).toBe(Math.ceil(6001 * (4 / 3)));
    gauge.atLeast(1000, 100_000);
    expect(gauge.tokensFor(1500)).toBe(Math.ceil((1500 / 1.5) * (4 / 3)));
  });

  it("counts the characters of contents, calls and their arguments", () => {
    expect(
      charsOf([
        { role: "user", content: "abcd" },
        { role: "assistant", content: "", toolCalls: [{ id: "1", name: "ls", arguments: { path: "." } }] },
      ]),
    ).toBe(4 + 16 + 0 + 16 + 2 + 12 + 16);
  });
});

describe("the budget", () => {
  it.each([
    [4096, undefined, 1024, 3072],
    [8192, undefined, 2048, 6144],
    [32_768, undefined, 2048, 30_720],
    [8192, 1000, 1000, 7192],
    [4096, 4096, 2048, 2048],
  ])("window %i, max_tokens %s: reserve %i, prompt %i", (window, maxTokens, reserve, prompt) => {
    expect(budgetFor(window, maxTokens)).toEqual({ window, reserve, prompt });
  });

  it("leaves the compaction target and the results' share in the room the fixed part leaves", () => {
    const budget = budgetFor(8192);
    expect(roomFor(budget, 1144)).toEqual({ fixed: 1144, target: 1144 + 3250, results: 2500 });
    expect(roomFor(budget, 1144, 0.5).results).toBe(1250);
    expect(roomFor(budget, 7000)).toEqual({ fixed: 7000, target: 7000, results: 0 });
  });
});

describe("signs that a server cut the prompt silently", () => {
  it.each([
    ["a count filling the window", 8192, 30_000, undefined, /the whole window of 8192/],
    ["fewer tokens than the characters can be", 2050, 40_000, undefined, /2050 prompt tokens for 40000/],
    [
      "a grown prompt counted less than before",
      3400,
      20_000,
      { chars: 12_000, tokens: 3000 },
      /3400 prompt tokens, fewer than the 3000 of the shorter prompt/,
    ],
  ])("%s", (_, tokens, chars, previous, message) => {
    expect(cutSignal(tokens, chars, 8192, previous)).toMatch(message);
  });

  it("none for a count that can be the whole prompt", () => {
    expect(cutSignal(5000, 20_000, 8192)).toBeUndefined();
    expect(cutSignal(4400, 20_000, 8192, { chars: 12_000, tokens: 3000 })).toBeUndefined();
    // After compaction the prompt is shorter: a smaller count is expected.
    expect(cutSignal(2000, 8000, 8192, { chars: 12_000, tokens: 3000 })).toBeUndefined();
  });
});
