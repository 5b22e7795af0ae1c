import { describe, expect, it } from "vitest";
import { HeadTailBuffer } from "./output-buffer.js";

describe("HeadTailBuffer", () => {
  it("keeps everything under the limit", () => {
    const b = new HeadTailBuffer(10);
    b.write(Buffer.from("abc"));
    b.write(Buffer.from("defg"));
    expect(b.text()).toBe("abcdefg");
    expect(b.omitted).toBe(0);
  });

  it("keeps head and tail and counts what it dropped", () => {
    const b = new HeadTailBuffer(10);
    for (const chunk of ["0123", "4567", "89ab", "cdef", "ghij"]) b.write(Buffer.from(chunk));
    expect(b.total).toBe(20);
    expect(b.omitted).toBe(10);
    expect(b.text()).toBe("01234\n[... 10 bytes omitted ...]\nfghij");
  });

  it("handles one chunk larger than the whole limit", () => {
    const b = new HeadTailBuffer(6);
    b.write(Buffer.from("abcdefghijklmnop"));
    expect(b.text()).toBe("abc\n[... 10 bytes omitted ...]\nnop");
  });

  it("does not split a character between contiguous head and tail", () => {
    const b = new HeadTailBuffer(8);
    const bytes = Buffer.from("aaé€"); // 2 + 2 + 3 bytes = 7
    b.write(bytes.subarray(0, 3));
    b.write(bytes.subarray(3));
    expect(b.text()).toBe("aaé€");
  });
});
