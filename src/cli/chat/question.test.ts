import { createInterface } from "node:readline/promises";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { askBeforeStart, QuestionUnanswered } from "./question.js";

function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  const rl = createInterface({ input, output, terminal: false });
  return { input, rl };
}

describe("askBeforeStart", () => {
  it("answers with the line typed", async () => {
    const { input, rl } = terminal();
    const answer = askBeforeStart(rl, "Trust this folder? [y/N] ");
    input.write("y\n");
    await expect(answer).resolves.toBe("y");
    rl.close();
  });

  it("end of input is an answer: QuestionUnanswered, not readline's abort error", async () => {
    const { input, rl } = terminal();
    const answer = askBeforeStart(rl, "? ");
    input.end();
    await expect(answer).rejects.toEqual(new QuestionUnanswered("end of input"));
    // Asked again after the interface closed: the same answer at once.
    await expect(askBeforeStart(rl, "? ")).rejects.toBeInstanceOf(QuestionUnanswered);
  });

  it("a typed Ctrl-D on a terminal is an answer too", async () => {
    const input = new PassThrough();
    const rl = createInterface({ input, output: new PassThrough(), terminal: true });
    const answer = askBeforeStart(rl, "? ");
    input.write("\x04");
    await expect(answer).rejects.toEqual(new QuestionUnanswered("end of input"));
  });

  it("Ctrl-C while the question is open is an answer, and the interface stays usable", async () => {
    const { input, rl } = terminal();
    const listeners = () => rl.listenerCount("SIGINT") + rl.listenerCount("close");
    const before = listeners();
    const answer = askBeforeStart(rl, "? ");
    rl.emit("SIGINT");
    await expect(answer).rejects.toEqual(new QuestionUnanswered("Ctrl-C"));
    expect(listeners()).toBe(before);
    const next = askBeforeStart(rl, "? ");
    input.write("n\n");
    await expect(next).resolves.toBe("n");
    rl.close();
  });
});
