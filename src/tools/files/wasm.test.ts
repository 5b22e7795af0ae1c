import { describe, expect, it } from "vitest";
import { lazyModule, WASM_PAGE, Wasm } from "./wasm.js";

/** The smallest valid module: the magic number and version 1. */
const EMPTY_MODULE = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]).toString("base64");

describe("lazyModule", () => {
  it("compiles on the first call and gives the same module after", () => {
    const get = lazyModule(EMPTY_MODULE);
    const first = get();
    expect(first).not.toBeNull();
    expect(get()).toBe(first);
  });

  it("gives null, once and for all, for bytes this runtime cannot compile", () => {
    const get = lazyModule(Buffer.from("not a module").toString("base64"));
    expect(get()).toBeNull();
    expect(get()).toBeNull();
  });

  it("makes memories of whole pages that grow", () => {
    const memory = new Wasm.Memory({ initial: 1 });
    expect(memory.buffer.byteLength).toBe(WASM_PAGE);
    memory.grow(2);
    expect(memory.buffer.byteLength).toBe(3 * WASM_PAGE);
  });
});
