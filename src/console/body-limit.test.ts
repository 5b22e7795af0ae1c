/**
 * The console's body limits over real HTTP on 127.0.0.1: the table in testdata/body-limit-cases.json —
 * sign-ins and answers of ordinary size are read, ones over the limit are refused with 413 and a reason
 * (declared by Content-Length or counted while a chunked body streams), and a refused answer changes nothing.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ask, consoleFixture, type RawResponse, TOKEN } from "../test-support/console.js";
import { BODY_LIMITS } from "./app.js";
import cases from "./testdata/body-limit-cases.json" with { type: "json" };

interface BodyCase {
  note: string;
  path: string;
  bytes: number;
  chunked: boolean;
  token: "right" | "wrong";
  want: number;
}

/** A body of exactly `bytes` bytes: the form or JSON the path takes, padded in a field it ignores or trims. */
function bodyOf(c: BodyCase): { body: string; type: string } {
  if (c.path === "/login") {
    const token = c.token === "right" ? TOKEN : "not-the-token-0123456789abcdefghijkl";
    const head = `token=${encodeURIComponent(token)}&name=x&pad=`;
    return {
      body: head + "a".repeat(Math.max(0, c.bytes - head.length)),
      type: "application/x-www-form-urlencoded",
    };
  }
  const head = '{"decision":"approve","reason":"';
  return { body: `${head}${"r".repeat(Math.max(0, c.bytes - head.length - 2))}"}`, type: "application/json" };
}

/**
 * POSTs `body` in 64 KB writes; the console may answer and stop reading before it is all sent, so a broken
 * pipe after that is expected, not an error.
 */
function send(
  port: number,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(
      { host: "127.0.0.1", port, method: "POST", path, headers, setHost: false, agent: false },
      (res) => {
        answered = true;
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          text += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on("socket", (socket) => socket.on("error", () => undefined));
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    for (let at = 0; at < body.length && !answered; at += 65_536) req.write(body.slice(at, at + 65_536));
    req.end();
  });
}

describe("console body limits", () => {
  let fixture: Awaited<ReturnType<typeof consoleFixture>>;
  let auth: Record<string, string>;
  beforeAll(async () => {
    fixture = await consoleFixture();
    const signedIn = await fixture.signIn("alice");
    auth = { ...signedIn.auth, "x-csrf-token": signedIn.csrf };
  });
  afterAll(async () => fixture.close());

  it("limits sign-in to 4 KB and the API to 64 KB", () => {
    expect(BODY_LIMITS).toEqual({ signIn: 4096, api: 65536 });
  });

  it.each(cases.cases as BodyCase[])("$note → $want", async (c) => {
    const record = await fixture.store.publish(ask({ callId: c.note }));
    const { body, type } = bodyOf(c);
    expect(Buffer.byteLength(body)).toBe(c.bytes);
    const headers: Record<string, string> = {
      host: fixture.host,
      origin: fixture.origin,
      "content-type": type,
      ...(c.path.startsWith("/api/") ? auth : {}),
      ...(c.chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(c.bytes) }),
    };
    const res = await send(fixture.running.port, c.path.replace("ASK", record.id), headers, body);
    expect(res.status).toBe(c.want);
    if (c.want === 413) expect(res.body).toMatch(/^refused: the request body is larger than \d+ bytes/);
    const state = (await fixture.store.get(record.id))?.state;
    expect(state).toBe(c.path.startsWith("/api/") && c.want === 200 ? "approved" : "pending");
  });
});
