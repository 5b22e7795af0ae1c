/**
 * Sign-in limits over real HTTP on loopback: the attempt sequences of testdata/signin-limit-cases.json, sent
 * from several addresses of 127.0.0.0/8 against a console whose clock the test moves, and the tokens of
 * testdata/token-cases.json that a person might choose — refused by the console and by
 * `toolgate console` (exit 2).
 */
import { afterEach, describe, expect, it } from "vitest";
import { toolgate } from "../test-support/cli.js";
import { consoleFixture, raw, TOKEN } from "../test-support/console.js";
import { ConsoleAccess, consoleTokenProblem } from "./index.js";
import { SignInLimit, signInKey } from "./signin-limit.js";
import limitCases from "./testdata/signin-limit-cases.json" with { type: "json" };
import remoteCases from "./testdata/signin-limit-remote-cases.json" with { type: "json" };
import tokenCases from "./testdata/token-cases.json" with { type: "json" };

interface Step {
  from: string;
  token: "right" | "wrong";
  advanceMs?: number;
  want: number;
  retryAfter?: number;
}

describe("the sign-in limit", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  it.each(limitCases.cases as { note: string; steps: Step[] }[])("$note", async ({ steps }) => {
    let clock = 1_000_000;
    const fixture = await consoleFixture({
      signInLimit: {
        freeFailures: 3,
        firstWaitMs: 1_000,
        maxWaitMs: 8_000,
        now: () => clock,
      },
    });
    close = fixture.close;
    for (const [i, step] of steps.entries()) {
      clock += step.advanceMs ?? 0;
      const res = await raw(fixture.running.port, {
        method: "POST",
        path: "/login",
        localAddress: step.from,
        headers: {
          host: fixture.host,
          origin: fixture.origin,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ token: step.token === "right" ? TOKEN : `${TOKEN}-guess` }).toString(),
      });
      expect({ step: i, status: res.status }).toEqual({ step: i, status: step.want });
      if (step.want === 429) {
        expect(res.headers["retry-after"]).toBe(String(step.retryAfter));
        expect(JSON.parse(res.body).error).toMatch(/^refused: too many wrong tokens; try again in \d+ s$/);
      } else expect(res.headers["retry-after"]).toBeUndefined();
      if (step.want === 200) expect(JSON.parse(res.body).session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
  });

  it("compares tokens of any length without throwing (digests of equal length)", () => {
    const access = new ConsoleAccess({ token: TOKEN, tls: false });
    for (const guess of ["", "x", TOKEN.slice(0, -1), `${TOKEN}x`, TOKEN.repeat(100)])
      expect(access.tokenMatches(guess)).toBe(false);
    expect(access.tokenMatches(TOKEN)).toBe(true);
  });
});

interface RemoteStep {
  op: "fail" | "wait";
  from: string;
  uid?: number;
  times?: number;
  want?: number;
}

describe("the sign-in limit by peer", () => {
  it.each(remoteCases.cases)("$note", ({ steps }) => {
    const limit = new SignInLimit({
      freeFailures: 3,
      firstWaitMs: 1_000,
      now: () => 0,
    });
    for (const [i, step] of (steps as RemoteStep[]).entries()) {
      const key = signInKey(step.uid === undefined ? { remote: step.from } : { uid: step.uid });
      if (step.op === "fail") for (let n = 0; n < (step.times ?? 1); n++) limit.failed(key);
      else expect({ step: i, wait: limit.waitMs(key) }).toEqual({ step: i, wait: step.want });
    }
  });
});

describe("a chosen token", () => {
  it.each(tokenCases.cases)("$note", ({ token, problem }) => {
    const found = consoleTokenProblem(token);
    if (problem === null) {
      expect(found).toBeUndefined();
      expect(() => new ConsoleAccess({ token, tls: false })).not.toThrow();
    } else {
      expect(found?.startsWith(problem)).toBe(true);
      expect(() => new ConsoleAccess({ token, tls: false })).toThrow(problem);
    }
  });

  it("is refused by `toolgate console` with exit 2, saying why and what to do", async () => {
    const r = await toolgate(["console"], { env: { TOOLGATE_CONSOLE_TOKEN: "0123456789abcdef" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "toolgate: TOOLGATE_CONSOLE_TOKEN: the console token must be at least 32 characters (it has 16); use a random one",
    );
  });
});
