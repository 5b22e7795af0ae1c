import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import {
  createDecoder,
  decodeText,
  detectEncoding,
  detectLineEnding,
  encodeText,
  looksBinary,
  withLineEnding,
} from "./encoding.js";

const latin1 = Buffer.from("café naïve résumé à la crème brûlée\n", "latin1");
const samples: [string, Buffer, string, boolean][] = [
  ["utf-8", Buffer.from("héllo wörld\n"), "utf-8", false],
  [
    "utf-8 with BOM",
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("héllo\r\n")]),
    "utf-8",
    true,
  ],
  [
    "utf-16le with BOM",
    Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode("héllo\n", "utf-16le")]),
    "utf-16le",
    true,
  ],
  [
    "utf-16be with BOM",
    Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode("héllo\n", "utf-16be")]),
    "utf-16be",
    true,
  ],
  ["utf-16le without BOM", iconv.encode("plain ascii text in utf16\n", "utf-16le"), "utf-16le", false],
  ["utf-16be without BOM", iconv.encode("plain ascii text in utf16\n", "utf-16be"), "utf-16be", false],
  ["latin-1", latin1, "iso-8859-1", false],
];

describe("detectEncoding / decodeText / encodeText", () => {
  it.each(samples)("%s round-trips byte-exactly", (_name, bytes, encoding, bom) => {
    const detected = detectEncoding(bytes);
    expect(detected).toEqual({ encoding, bom, binary: false });
    const decoded = decodeText(bytes, detected);
    expect(decoded.text).not.toContain("\ufeff");
    expect(encodeText(decoded.text, decoded).bytes.equals(bytes)).toBe(true);
  });

  it("decodes latin-1 text correctly", () => {
    expect(decodeText(latin1).text).toBe("café naïve résumé à la crème brûlée\n");
  });

  it("keeps bytes a legacy guess cannot round-trip by falling back to ISO-8859-1", () => {
    const odd = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x81, 0x8d, 0x20, 0x9d, 0x0a]);
    const decoded = decodeText(odd);
    expect(encodeText(decoded.text, decoded).bytes.equals(odd)).toBe(true);
  });

  it("writes text the encoding cannot hold as UTF-8 and says so", () => {
    const out = encodeText("snowman ☃", { encoding: "iso-8859-1", bom: false });
    expect(out.encoding).toBe("utf-8");
    expect(out.bytes.toString("utf8")).toBe("snowman ☃");
  });

  it("detects binary content", () => {
    expect(
      detectEncoding(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00])).binary,
    ).toBe(true);
    expect(looksBinary(Buffer.from([1, 2, 3, 4, 5, 65, 66, 67]))).toBe(true);
    expect(looksBinary(Buffer.from("text with\ttabs and \x1b[31mcolors\x1b[0m\n"))).toBe(false);
  });

  it("does not take a multi-byte character cut by the sample for invalid UTF-8", () => {
    const bytes = Buffer.from("aé");
    expect(detectEncoding(bytes.subarray(0, 2), false).encoding).toBe("utf-8");
  });
});

describe("line endings", () => {
  it("is crlf only when every break is CRLF", () => {
    expect(detectLineEnding("a\r\nb\r\n")).toBe("crlf");
    expect(detectLineEnding("a\r\nb\n")).toBe("lf");
    expect(detectLineEnding("a\nb")).toBe("lf");
    expect(detectLineEnding("ab")).toBe("lf");
    expect(withLineEnding("a\nb\r\nc", "crlf")).toBe("a\r\nb\r\nc");
    expect(withLineEnding("a\nb", "lf")).toBe("a\nb");
  });
});

describe("createDecoder", () => {
  it("decodes UTF-16LE split across chunks and strips the BOM", () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode("héllo", "utf-16le")]);
    const decoder = createDecoder("utf-16le");
    const text = decoder.write(bytes.subarray(0, 5)) + decoder.write(bytes.subarray(5)) + decoder.end();
    expect(text).toBe("héllo");
  });
});
