/**
 * How a kill ends `chat` and `run`, in real child processes running the built module: the first signal
 * cancels and lets the command clean up and leave; a command whose cleanup hangs is ended after the grace
 * period; a second signal ends it at once; removed handlers leave the default (death by the signal).
 * Every signal is sent once the child has said it is ready for it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../test-support/cli.js";

const MODULE = pathToFileURL(join(REPO_ROOT, "dist", "cli", "chat", "termination.js")).href;

interface Child {
  proc: ChildProcess;
  /** Resolves once the child has printed `line`. */
  printed(line: string): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>;
}

/**
 * A child that installs `onTermination([SIGTERM, SIGHUP], …, graceMs)`, prints `ready`, and on the signal
 * prints `cancel SIGNAL` then does what `onSignal` says (`exit` cleans up and leaves with 0; `hang` never
 * finishes). With `stop`, it removes the handlers before it says ready.
 */
function child(onSignal: "exit" | "hang", graceMs: number, stop = false): Child {
  const script = `
    const { onTermination } = await import(${JSON.stringify(MODULE)});
    const keepAlive = setInterval(() => {}, 1000);
    const stop = onTermination(["SIGTERM", "SIGHUP"], (signal) => {
      console.log("cancel " + signal);
      if (${JSON.stringify(onSignal)} === "exit") { clearInterval(keepAlive); stop(); }
    }, ${graceMs});
    if (${stop}) stop();
    console.log("ready");
  `;
  const proc = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  const waiting: { line: string; done: () => void }[] = [];
  proc.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
    for (const w of waiting.filter((w) => out.split("\n").includes(w.line))) {
      waiting.splice(waiting.indexOf(w), 1);
      w.done();
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>((done) =>
    proc.on("close", (code, signal) => {
      for (const w of waiting.splice(0)) w.done();
      done({ code, signal, out });
    }),
  );
  return {
    proc,
    exited,
    printed: (line) =>
      new Promise((done) => {
        if (out.split("\n").includes(line) || proc.exitCode !== null) done();
        else waiting.push({ line, done });
      }),
  };
}

describe("onTermination", () => {
  it("cancels on the first signal and lets the command leave through its cleanup", async () => {
    const c = child("exit", 600_000);
    await c.printed("ready");
    c.proc.kill("SIGTERM");
    // Exit code 0: the command ended by itself, not by the grace timer (which is unref'd, so it does not
    // keep the process alive either — with a 10-minute grace the test would otherwise time out).
    expect(await c.exited).toEqual({ code: 0, signal: null, out: "ready\ncancel SIGTERM\n" });
  });

  it("ends a command whose cleanup hangs once the grace period is over (128 + the signal)", async () => {
    const c = child("hang", 200);
    await c.printed("ready");
    c.proc.kill("SIGHUP");
    expect(await c.exited).toEqual({ code: 129, signal: null, out: "ready\ncancel SIGHUP\n" });
  });

  it("ends at once on a second signal", async () => {
    const c = child("hang", 600_000);
    await c.printed("ready");
    c.proc.kill("SIGTERM");
    await c.printed("cancel SIGTERM");
    c.proc.kill("SIGTERM");
    expect(await c.exited).toEqual({ code: 143, signal: null, out: "ready\ncancel SIGTERM\n" });
  });

  it("leaves the default behaviour once its handlers are removed", async () => {
    const c = child("hang", 600_000, true);
    await c.printed("ready");
    c.proc.kill("SIGTERM");
    expect(await c.exited).toEqual({ code: null, signal: "SIGTERM", out: "ready\n" });
  });
});
