import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import wabtInit from "wabt";
import { seededRandom } from "../../utils/index.js";
import { ChunkScan, COUNTER_BYTES, NewlineCounter } from "./newlines.js";

function reference(bytes: Uint8Array): number {
  let n = 0;
  for (const b of bytes) if (b === 10) n++;
  return n;
}

describe("NewlineCounter", () => {
  it("holds newlines.wat, assembled", async () => {
    const wabt = await wabtInit();
    const source = await readFile(new URL("./newlines.wat", import.meta.url), "utf8");
    const { buffer } = wabt.parseWat("newlines.wat", source, { simd: true }).toBinary({});
    const embedded = (await readFile(new URL("./newlines.ts", import.meta.url), "utf8")).match(
      /"(AGFzbQ[A-Za-z0-9+/=]+)"/,
    )?.[1];
    expect(embedded).toBe(Buffer.from(buffer).toString("base64"));
  });

  it("counts what a byte-by-byte count counts, at every length and alignment", () => {
    const counter = NewlineCounter.create()!;
    expect(counter).toBeDefined();
    const random = seededRandom(5);
    for (let length = 0; length <= 100; length++) {
      for (let round = 0; round < 20; round++) {
        // Dense and sparse newlines, and other bytes that differ from 0x0A by one bit or by sign.
        const density = round % 2 === 0 ? 0.5 : 0.05;
        for (let i = 0; i < length; i++) {
          counter.buffer[i] =
            random() < density ? 10 : [0x0b, 0x8a, 0x00, 0x0d, 0x4a][Math.floor(random() * 5)]!;
        }
        // Bytes past `length` are not counted.
        counter.buffer.fill(10, length, length + 32);
        expect({ length, n: counter.count(length) }).toEqual({
          length,
          n: reference(counter.buffer.subarray(0, length)),
        });
      }
    }
  });

  it("counts a whole buffer, and two counters do not share memory", () => {
    const a = NewlineCounter.create()!;
    const b = NewlineCounter.create()!;
    expect(a.buffer.length).toBe(COUNTER_BYTES);
    a.buffer.fill(10);
    b.buffer.fill(0);
    expect(a.count(COUNTER_BYTES)).toBe(COUNTER_BYTES);
    expect(b.count(COUNTER_BYTES)).toBe(0);
    b.buffer[COUNTER_BYTES - 1] = 10;
    expect(b.count(COUNTER_BYTES)).toBe(1);
    expect(b.count(COUNTER_BYTES - 1)).toBe(0);
  });

  it("holds what a byte-by-byte search finds for two line feeds in a row, at every length and alignment", () => {
    const counter = NewlineCounter.create()!;
    const random = seededRandom(6);
    for (let length = 0; length <= 70; length++) {
      for (let round = 0; round < 30; round++) {
        for (let i = 0; i < length; i++) counter.buffer[i] = random() < 0.4 ? 10 : 0x61;
        // Line feeds right after the end are never part of a pair found.
        counter.buffer.fill(10, length, length + 16);
        const start = Math.floor(random() * (length + 1));
        const expected = Buffer.from(counter.buffer.subarray(0, length)).indexOf("\n\n", start);
        expect({ length, start, at: counter.pairBetween(start, length) }).toEqual({
          length,
          start,
          at: expected,
        });
      }
    }
  });

  it("scans a chunk in the shared memory, again after another chunk used it, and in JS when too large", () => {
    const random = seededRandom(8);
    const chunk = (size: number) => {
      const bytes = Buffer.alloc(size);
      for (let i = 0; i < size; i++) bytes[i] = random() < 0.2 ? 10 : 97;
      return bytes;
    };
    const small = chunk(70_000);
    const other = chunk(5_000);
    const large = chunk(COUNTER_BYTES + 100);
    const scans = [new ChunkScan(small), new ChunkScan(other), new ChunkScan(large)];
    const chunks = [small, other, large];
    for (let round = 0; round < 60; round++) {
      const k = Math.floor(random() * 3);
      const bytes = chunks[k]!;
      const start = Math.floor(random() * bytes.length);
      const end = Math.min(bytes.length, start + Math.floor(random() * 3000));
      expect({ k, start, n: scans[k]!.lineFeeds(start, end) }).toEqual({
        k,
        start,
        n: reference(bytes.subarray(start, end)),
      });
      expect({ k, start, at: scans[k]!.pair(start) }).toEqual({ k, start, at: bytes.indexOf("\n\n", start) });
    }
  });
});
