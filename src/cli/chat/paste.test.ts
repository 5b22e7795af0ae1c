/**
 * The bracketed-paste filter on its own: markers dropped, newlines inside a paste (LF, CR, CRLF) shown as ␤,
 * typed newlines left alone, markers and characters split across reads, and the terminal's raw mode passed
 * through.
 */
import { describe, expect, it } from "vitest";
import { PASTED_NEWLINE, pastedText, pasteFilter } from "./paste.js";

const S = "\x1b[200~";
const E = "\x1b[201~";

async function filtered(chunks: (string | Buffer)[]): Promise<string> {
  const filter = pasteFilter({});
  const out: Buffer[] = [];
  filter.on("data", (d: Buffer) => out.push(d));
  const done = new Promise((r) => filter.on("end", r));
  for (const c of chunks) filter.write(c);
  filter.end();
  await done;
  return Buffer.concat(out).toString("utf8");
}

describe("pasteFilter", () => {
  it.each([
    ["typed keys pass unchanged", ["ls\r", "\x1b[A"], "ls\r\x1b[A"],
    ["a paste becomes one line", [`${S}one\ntwo\r\nthree\rfour${E}`], "one␤two␤three␤four"],
    ["text around a paste", [`say ${S}a\nb${E}\r`], "say a␤b\r"],
    ["a start marker split across reads", ["x\x1b[2", `00~a\nb${E}`], "xa␤b"],
    ["an end marker split across reads", [`${S}a\nb\x1b[20`, "1~\rc"], "a␤b\rc"],
    ["a paste split across reads", [`${S}a\n`, "b\n", `c${E}`], "a␤b␤c"],
    ["two pastes", [`${S}a\nb${E} ${S}c\nd${E}`], "a␤b c␤d"],
  ])("%s", async (_, chunks, expected) => {
    expect(await filtered(chunks)).toBe(expected);
  });

  it("decodes a character split across reads", async () => {
    const heron = Buffer.from(`${S}→\nok${E}`, "utf8");
    const at = heron.indexOf(0xe2) + 1; // inside the three bytes of →
    expect(await filtered([heron.subarray(0, at), heron.subarray(at)])).toBe("→␤ok");
  });

  it("turns ␤ back into newlines", () => {
    expect(pastedText(`a${PASTED_NEWLINE}b${PASTED_NEWLINE}`)).toBe("a\nb\n");
  });

  it("sets and reports the terminal's raw mode", () => {
    const calls: boolean[] = [];
    let raw = false;
    const terminal = {
      isTTY: true,
      get isRaw() {
        return raw;
      },
      setRawMode(mode: boolean) {
        calls.push(mode);
        raw = mode;
      },
    };
    const filter = pasteFilter(terminal);
    expect(filter.isTTY).toBe(true);
    filter.setRawMode?.(true);
    expect(filter.isRaw).toBe(true);
    filter.setRawMode?.(false);
    expect(calls).toEqual([true, false]);
    expect(pasteFilter({}).setRawMode).toBeUndefined();
  });
});
