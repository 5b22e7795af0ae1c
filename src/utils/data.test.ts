import { describe, expect, it } from "vitest";
import { canonicalJson, deepFreeze, isPlainObject } from "./data.js";

describe("isPlainObject", () => {
  it.each([
    [{}, true],
    [{ a: 1 }, true],
    [Object.create(null), true],
    [[], false],
    [null, false],
    [undefined, false],
    ["text", false],
    [3, false],
    [new Date(0), false],
  ])("%o → %s", (value, expected) => {
    expect(isPlainObject(value)).toBe(expected);
  });
});

describe("deepFreeze", () => {
  it("freezes nested objects and arrays in place and returns the value", () => {
    const value = { a: { b: [1, { c: 2 }] } };
    const frozen = deepFreeze(value);
    expect(frozen).toBe(value);
    expect(Object.isFrozen(value.a.b[1])).toBe(true);
    expect(() => {
      (value.a.b as unknown[]).push(3);
    }).toThrow(TypeError);
  });

  it("ends on cycles", () => {
    const a: Record<string, unknown> = {};
    a["self"] = a;
    expect(Object.isFrozen(deepFreeze(a))).toBe(true);
  });
});

describe("canonicalJson", () => {
  it.each([
    [{ b: 1, a: 2 }, '{"a":2,"b":1}'],
    [{ z: [{ y: 1, x: 2 }], a: null }, '{"a":null,"z":[{"x":2,"y":1}]}'],
    [{ a: undefined }, '{"a":null}'],
    [[undefined, "s"], '[null,"s"]'],
    [undefined, "null"],
    ["é\n", '"é\\n"'],
    [{ B: 1, a: 1 }, '{"B":1,"a":1}'],
  ])("%o → %s", (value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });
});
