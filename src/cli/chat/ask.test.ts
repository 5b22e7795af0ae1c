import { createInterface } from "node:readline/promises";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { ConfirmationDetails } from "../../core/index.js";
import { terminalConfirm } from "./ask.js";

const shell: ConfirmationDetails = {
  toolName: "shell",
  description: "Run ls",
  risk: "high",
  locations: [],
  type: "exec",
  command: "ls -la",
  sandbox: "workspace-write (writes only inside the workspace; no network; secrets unreadable)",
};

// parseAnswer and alwaysScope are covered in render.test.ts; this file drives the terminal confirm itself.
describe("the terminal confirmation question", () => {
  it("asks again on an unclear answer and treats end of input as no", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = "";
    output.on("data", (d: Buffer) => {
      shown += d.toString();
    });
    const rl = createInterface({ input, output, terminal: false });
    /** Resolves once the question has been put `n` times (a line sent before it is asked would be lost). */
    const asked = async (n: number) => {
      while (shown.split("Allow? [y]es / [N]o / [a]lways: ").length - 1 < n)
        await new Promise((r) => setImmediate(r));
    };
    const written: string[] = [];
    const ask = terminalConfirm(
      rl,
      (t) => written.push(t),
      () => undefined,
    );
    const answer = ask({ details: shell, signal: new AbortController().signal } as Parameters<typeof ask>[0]);
    await asked(1);
    input.write("perhaps\n");
    await asked(2);
    input.write("a\n");
    expect(await answer).toEqual({ approved: true, always: true });
    expect(written.join("")).toContain("please answer y, n or a");
    const aborted = new AbortController();
    const second = ask({ details: shell, signal: aborted.signal } as Parameters<typeof ask>[0]);
    aborted.abort();
    expect(await second).toEqual({ approved: false });
    rl.close();
  });
});
