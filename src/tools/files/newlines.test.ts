import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import wabtInit from "wabt";
import { seededRandom } from "../../utils/index.js";
import { COUNTER_BYTES, countLineFeeds, NewlineCounter } from "./newlines.js";

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

  it("counts the line feeds of any range, larger than the counter's memory too", () => {
    const random = seededRandom(8);
    const bytes = Buffer.alloc(COUNTER_BYTES * 2 + 333);
    for (let i = 0; i < bytes.length; i++) bytes[i] = random() < 0.1 ? 10 : 97;
    const ranges: [number, number][] = [
      [0, bytes.length],
      [0, 0],
      [5, 6],
      [COUNTER_BYTES - 3, COUNTER_BYTES + 40],
      [17, COUNTER_BYTES * 2 + 1],
    ];
    for (let i = 0; i < 50; i++) {
      const a = Math.floor(random() * bytes.length);
      ranges.push([a, Math.min(bytes.length, a + Math.floor(random() * 200))]);
    }
    for (const [start, end] of ranges) {
      expect({ start, end, n: countLineFeeds(bytes, start, end) }).toEqual({
        start,
        end,
        n: reference(bytes.subarray(start, end)),
      });
    }
  });
});
